#include "api/web_view.h"

#include <openssl/evp.h>
#include <openssl/sha.h>

#include <string_view>

namespace fleetwave::api {
namespace {

// The page's three parts, each a raw string literal in its own file so it reads as CSS, HTML
// and JavaScript. Nothing in them refers to anything outside the page.
constexpr std::string_view kStyle =
#include "api/web_view_style.inc"
    ;
constexpr std::string_view kBody =
#include "api/web_view_body.inc"
    ;
constexpr std::string_view kScript =
#include "api/web_view_script.inc"
    ;

// CSP source expression for an inline element's exact text: 'sha256-<base64 of its digest>'.
std::string Sha256Source(std::string_view text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  unsigned char b64[4 * ((SHA256_DIGEST_LENGTH + 2) / 3) + 1];
  const int n = EVP_EncodeBlock(b64, digest, SHA256_DIGEST_LENGTH);
  return "'sha256-" + std::string(reinterpret_cast<const char*>(b64), static_cast<size_t>(n)) + "'";
}

WebViewPage Build() {
  WebViewPage page;
  page.html.reserve(kStyle.size() + kBody.size() + kScript.size() + 512);
  page.html += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  page.html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  page.html += "<meta name=\"color-scheme\" content=\"light dark\">\n";
  page.html += "<title>fleetwave rollouts</title>\n<style>";
  page.html += kStyle;
  page.html += "</style>\n</head>\n<body>";
  page.html += kBody;
  page.html += "<script>";
  page.html += kScript;
  page.html += "</script>\n</body>\n</html>\n";
  // Only the page's own inline style and script run (by hash, so an injected element cannot),
  // it talks only to the daemon that served it, and no other site may frame it.
  page.content_security_policy = "default-src 'none'; script-src " + Sha256Source(kScript) +
                                 "; style-src " + Sha256Source(kStyle) +
                                 "; connect-src 'self'; img-src 'self' data:; base-uri 'none'; "
                                 "form-action 'none'; frame-ancestors 'none'";
  return page;
}

}  // namespace

const WebViewPage& WebView() {
  static const WebViewPage page = Build();
  return page;
}

}  // namespace fleetwave::api
