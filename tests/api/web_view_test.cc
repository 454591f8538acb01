// GET / serves the web view: one self-contained page whose Content-Security-Policy admits exactly
// its own inline style and script (by SHA-256) and nothing from anywhere else.
#include "api/web_view.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include <string>
#include <vector>

#include "tests/api/api_test_client.h"
#include "tests/api/api_test_fixture.h"

namespace fleetwave::api {
namespace {

using actors::StatusBoard;

using testing::ApiServerFixture;
using testing::Http;
using testing::HttpResult;

class WebViewTest : public ApiServerFixture {};

// The text between `open` and `close`, and how many `open`s the page has.
std::string Between(const std::string& text, const std::string& open, const std::string& close,
                    int* count) {
  *count = 0;
  for (size_t at = text.find(open); at != std::string::npos; at = text.find(open, at + 1)) {
    ++*count;
  }
  const size_t start = text.find(open);
  if (start == std::string::npos) return "";
  const size_t end = text.find(close, start + open.size());
  if (end == std::string::npos) return "";
  return text.substr(start + open.size(), end - start - open.size());
}

std::string Sha256Source(const std::string& text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  unsigned char b64[64] = {0};
  EVP_EncodeBlock(b64, digest, SHA256_DIGEST_LENGTH);
  return "'sha256-" + std::string(reinterpret_cast<const char*>(b64)) + "'";
}

TEST_F(WebViewTest, RootServesThePage) {
  Start();
  struct Case {
    std::string name, method;
    bool has_body;
  };
  const std::vector<Case> cases = {{"Get", "GET", true}, {"Head", "HEAD", false}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const HttpResult r = Http(server_->port(), c.method, "/");
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.header("content-type"), "text/html; charset=utf-8");
    EXPECT_EQ(r.header("cache-control"), "no-store");
    EXPECT_EQ(r.header("content-security-policy"), WebView().content_security_policy);
    EXPECT_EQ(r.header("x-content-type-options"), "nosniff");
    EXPECT_EQ(r.header("referrer-policy"), "no-referrer");
    EXPECT_EQ(r.header("content-length"), std::to_string(WebView().html.size()));
    EXPECT_EQ(r.body, c.has_body ? WebView().html : "");
  }
}

TEST_F(WebViewTest, OtherMethodsAre405) {
  Start();
  for (const std::string method : {"POST", "PUT", "DELETE"}) {
    SCOPED_TRACE(method);
    const HttpResult r = Http(server_->port(), method, "/");
    EXPECT_EQ(r.status, 405);
    EXPECT_EQ(r.header("allow"), "GET, HEAD");
  }
}

// The policy names the page's own inline style and script by hash, allows requests to the
// daemon only, and nothing else: a script injected into the page would not run.
TEST_F(WebViewTest, PolicyNamesThePageItself) {
  const std::string& html = WebView().html;
  const std::string& csp = WebView().content_security_policy;
  int scripts = 0, styles = 0;
  const std::string script = Between(html, "<script>", "</script>", &scripts);
  const std::string style = Between(html, "<style>", "</style>", &styles);
  ASSERT_EQ(scripts, 1);
  ASSERT_EQ(styles, 1);
  ASSERT_FALSE(script.empty());
  ASSERT_FALSE(style.empty());
  EXPECT_EQ(csp, "default-src 'none'; script-src " + Sha256Source(script) + "; style-src " +
                     Sha256Source(style) +
                     "; connect-src 'self'; img-src 'self' data:; base-uri 'none'; "
                     "form-action 'none'; frame-ancestors 'none'");
}

// Self-contained: nothing is loaded from elsewhere, and nothing the policy would block (inline
// handlers, style attributes) is in the markup.
TEST_F(WebViewTest, PageLoadsNothingElse) {
  const std::string& html = WebView().html;
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  struct Case {
    std::string name, needle;
  };
  const std::vector<Case> forbidden = {
      {"ExternalUrl", "http://"},
      {"ExternalTlsUrl", "https://"},
      {"ScriptSrc", "<script src"},
      {"Link", "<link"},
      {"Import", "@import"},
      {"CssUrl", "url("},
      {"StyleAttribute", "style=\""},
      {"InlineHandler", " onclick="},
      {"Eval", "eval("},
      {"InnerHtml", "innerHTML"},
  };
  for (const Case& c : forbidden) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(html.find(c.needle), std::string::npos) << c.needle;
  }
}

}  // namespace
}  // namespace fleetwave::api
