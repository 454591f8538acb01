#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/api_token.h"
#include "tests/api/api_test_fixture.h"

namespace fleetwave::api {
namespace {

using actors::StatusBoard;

using engine::Json;
using testing::ApiServerFixture;
using testing::Http;
using testing::HttpResult;

TEST(ApiTokenTest, ConstantTimeEquals) {
  struct Case {
    std::string name, expected, presented;
    bool equal;
  };
  const std::vector<Case> cases = {
      {"Same", "abc123", "abc123", true},
      {"Prefix", "abc123", "abc", false},
      {"Longer", "abc123", "abc1234", false},
      {"LastByte", "abc123", "abc124", false},
      {"EmptyPresented", "abc", "", false},
      {"EmptyExpectedNeverMatches", "", "", false},
      {"PrefixWithNul", std::string("ab\0", 3), "ab", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(ConstantTimeEquals(c.expected, c.presented), c.equal);
  }
}

TEST(ApiTokenTest, BearerToken) {
  struct Case {
    std::string name, header;
    std::optional<std::string> token;
  };
  const std::vector<Case> cases = {
      {"Plain", "Bearer abc", "abc"},
      {"SchemeCaseInsensitive", "bearer abc", "abc"},
      {"ExtraSpaces", "Bearer   abc  ", "abc"},
      {"Basic", "Basic dXNlcjpwYXNz", std::nullopt},
      {"SchemeOnly", "Bearer", std::nullopt},
      {"SchemeAndSpace", "Bearer ", std::nullopt},
      {"NoSeparator", "Bearerabc", std::nullopt},
      {"Empty", "", std::nullopt},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = BearerToken(c.header);
    EXPECT_EQ(got ? std::optional<std::string>(std::string(*got)) : std::nullopt, c.token);
  }
}

class ApiAuthTest : public ApiServerFixture {
 protected:
  void ExpectUnauthorized(const HttpResult& r, const std::string& message) {
    EXPECT_EQ(r.status, 401) << r.body;
    EXPECT_EQ(r.header("www-authenticate").rfind("Bearer", 0), 0u);
    EXPECT_EQ(r.header("content-type"), "application/json");
    const Json b = Json::parse(r.body, nullptr, false);
    EXPECT_EQ(b["code"], 401);
    EXPECT_EQ(b["message"], message);
  }
  int LinesContaining(const std::string& text) {
    int n = 0;
    for (const auto& line : Logs()) n += line.find(text) != std::string::npos;
    return n;
  }
};

TEST_F(ApiAuthTest, MissingOrWrongTokenIs401) {
  Start();
  struct Case {
    std::string name;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"NoHeader", {}, "missing Authorization: Bearer token"},
      {"WrongToken", {{"Authorization", "Bearer guess"}}, "wrong bearer token"},
      {"TokenPrefix", {{"Authorization", "Bearer s3cret"}}, "wrong bearer token"},
      {"BasicScheme",
       {{"Authorization", "Basic czNjcmV0LXRva2Vu"}},
       "Authorization is not a bearer token"},
      {"EmptyBearer", {{"Authorization", "Bearer "}}, "Authorization is not a bearer token"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ExpectUnauthorized(
        Http(server_->port(), "POST", "/api/v1/applications/guestbook-dev/sync", c.headers),
        c.message);
  }
  // Authentication is checked before anything else: an unknown app is 401 too, not 404.
  ExpectUnauthorized(Sync("nope", "guess"), "wrong bearer token");
  EXPECT_TRUE(Commands().empty());
  EXPECT_EQ(LinesContaining("refused (401)"), 6);
  EXPECT_EQ(LinesContaining("guess"), 0);  // never a presented token in the log
}

// A rotated file is picked up on the first request carrying the new token (mismatch -> re-read);
// the old token keeps working only until the 60 s refresh re-reads the file.
TEST_F(ApiAuthTest, RotatedToken) {
  Start();
  EXPECT_EQ(Sync("guestbook-dev", "s3cret-token").status, 202);
  WriteToken("  rotated-token \n");
  EXPECT_EQ(Sync("guestbook-dev", "rotated-token").status, 202);
  EXPECT_EQ(LinesContaining("loaded a new token"), 1);
  // The mismatch re-read already replaced the old token.
  ExpectUnauthorized(Sync("guestbook-dev", "s3cret-token"), "wrong bearer token");

  // Rotated again while the old one is still cached: it stays valid until the refresh.
  WriteToken("third-token");
  clock_seconds_ += 59;
  EXPECT_EQ(Sync("guestbook-dev", "rotated-token").status, 202);
  clock_seconds_ += 1;
  ExpectUnauthorized(Sync("guestbook-dev", "rotated-token"), "wrong bearer token");
  EXPECT_EQ(Sync("guestbook-dev", "third-token").status, 202);
  for (const auto& line : Logs()) {
    for (const char* token : {"s3cret", "rotated-token", "third-token"}) {
      EXPECT_EQ(line.find(token), std::string::npos) << "a token in the log: " << line;
    }
  }
}

TEST_F(ApiAuthTest, MissingTokenFileRefusesEveryMutation) {
  std::filesystem::remove(token_path_);
  Start();
  // Logged at start, before any request.
  EXPECT_EQ(LinesContaining("token file " + token_path_ + " cannot be read"), 1);
  for (int i = 0; i < 3; ++i) {
    ExpectUnauthorized(Sync("guestbook-dev", "s3cret-token"),
                       "no API token is configured or readable (see the daemon's log)");
  }
  // Logged once for the condition, not once per request.
  EXPECT_EQ(LinesContaining("token file " + token_path_ + " cannot be read"), 1);
  EXPECT_EQ(LinesContaining("every API mutation is refused with 401"), 1);

  WriteToken("s3cret-token\n");
  EXPECT_EQ(Sync("guestbook-dev", "s3cret-token").status, 202);
  EXPECT_EQ(LinesContaining("loaded a new token"), 1);
  EXPECT_EQ(Commands().size(), 1u);
}

// Deleting the file revokes the token at the next refresh, and the condition is logged.
TEST_F(ApiAuthTest, DeletedTokenFileRevokesAtRefresh) {
  Start();
  EXPECT_EQ(Sync("guestbook-dev", "s3cret-token").status, 202);
  std::filesystem::remove(token_path_);
  clock_seconds_ += 59;
  EXPECT_EQ(Sync("guestbook-dev", "s3cret-token").status, 202);  // cached until the refresh
  clock_seconds_ += 1;
  ExpectUnauthorized(Sync("guestbook-dev", "s3cret-token"),
                     "no API token is configured or readable (see the daemon's log)");
  EXPECT_EQ(LinesContaining("token file " + token_path_ + " cannot be read"), 1);
}

TEST_F(ApiAuthTest, EmptyTokenFileMatchesNothing) {
  WriteToken(" \n\t");
  Start();
  EXPECT_EQ(LinesContaining("is empty"), 1);
  ExpectUnauthorized(Http(server_->port(), "POST", "/api/v1/applications/guestbook-dev/sync",
                          {{"Authorization", "Bearer x"}}),
                     "no API token is configured or readable (see the daemon's log)");
}

TEST_F(ApiAuthTest, NoTokenFileConfigured) {
  ApiServer server(board_, [](const ApiCommand&) { return ApiCommandResult{202, "ok"}; });
  std::vector<std::string> logs;
  ApiServerOptions options;
  options.listen = "127.0.0.1:0";
  options.log = [&logs](const std::string& line) { logs.push_back(line); };
  ASSERT_EQ(server.Start(options), std::nullopt);
  const HttpResult r = Http(server.port(), "POST", "/api/v1/applications/guestbook-dev/sync",
                            {{"Authorization", "Bearer x"}});
  EXPECT_EQ(r.status, 401);
  server.Stop();  // joins the server's threads: `logs` is ours again
  bool logged = false;
  for (const auto& line : logs)
    logged |= line.find("no apiTokenFile is configured") != std::string::npos;
  EXPECT_TRUE(logged);
}

}  // namespace
}  // namespace fleetwave::api
