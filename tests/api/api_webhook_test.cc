// POST /api/v1/webhook: no bearer token, the push's signature (engine/webhook.h) is its
// authentication; a verified push reaches the handler as a "webhook" with the repository's
// URLs and ref, anything else is refused without reaching it. Rate-limited.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "engine/webhook.h"
#include "tests/api/api_test_client.h"
#include "tests/api/api_test_fixture.h"

namespace fleetwave::api {
namespace {

using testing::ApiServerFixture;
using testing::Http;
using testing::HttpResult;

const char* kPush = R"({"ref": "refs/heads/main", "repository": {
  "html_url": "https://git.example.com/org/repo", "default_branch": "main"}})";
const char* kGitLabPush = R"({"ref": "refs/heads/main", "project": {
  "git_http_url": "https://git.example.com/org/repo.git", "default_branch": "main"}})";

class ApiWebhookTest : public ApiServerFixture {
 protected:
  void StartWithSecret(const std::string& secret) {
    secret_path_ = dir_ + "/webhook-secret";
    std::ofstream(secret_path_, std::ios::trunc) << secret << "\n";
    ApiServerOptions options;
    options.webhook_secret_file = secret_path_;
    Start(options);
  }
  HttpResult Post(const std::vector<std::pair<std::string, std::string>>& headers,
                  const std::string& body = kPush) {
    return Http(server_->port(), "POST", "/api/v1/webhook", headers, body);
  }
  std::string secret_path_;
};

TEST_F(ApiWebhookTest, SignedPushReachesTheHandlerAndBadOnesDoNot) {
  StartWithSecret("hook-secret-1");
  result_ = ApiCommandResult{202, "refresh of 1 applicationset(s) started: guestbook"};
  const std::string good = "sha256=" + engine::HmacSha256Hex("hook-secret-1", kPush);
  struct Case {
    std::string name;
    std::vector<std::pair<std::string, std::string>> headers;
    int status;
    bool reaches_handler;
    std::string body = kPush;
  };
  const std::vector<Case> cases = {
      {"signed", {{"X-GitHub-Event", "push"}, {"X-Hub-Signature-256", good}}, 202, true},
      {"wrong signature",
       {{"X-GitHub-Event", "push"},
        {"X-Hub-Signature-256", "sha256=" + engine::HmacSha256Hex("guess", kPush)}},
       401,
       false},
      {"unsigned", {{"X-GitHub-Event", "push"}}, 401, false},
      // A bearer token is no signature.
      {"bearer token only",
       {{"X-GitHub-Event", "push"}, {"Authorization", "Bearer s3cret-token"}},
       401,
       false},
      {"gitlab token",
       {{"X-Gitlab-Event", "Push Hook"}, {"X-Gitlab-Token", "hook-secret-1"}},
       202,
       true,
       kGitLabPush},
      {"gitlab wrong token",
       {{"X-Gitlab-Event", "Push Hook"}, {"X-Gitlab-Token", "x"}},
       401,
       false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const size_t before = Commands().size();
    const auto r = Post(c.headers, c.body);
    EXPECT_EQ(r.status, c.status) << r.body;
    EXPECT_EQ(r.body.find("hook-secret-1"), std::string::npos) << r.body;
    const std::vector<ApiCommand> commands = Commands();
    ASSERT_EQ(commands.size(), before + (c.reaches_handler ? 1 : 0));
    if (c.reaches_handler) {
      EXPECT_EQ(commands.back().kind, "webhook");
      EXPECT_EQ(commands.back().ref, "refs/heads/main");
      ASSERT_FALSE(commands.back().repo_urls.empty());
      EXPECT_EQ(commands.back().repo_urls[0].find("git.example.com/org/repo"), 8u);
    }
  }
  for (const std::string& line : Logs()) {
    EXPECT_EQ(line.find("hook-secret-1"), std::string::npos) << line;
  }
  EXPECT_EQ(Http(server_->port(), "GET", "/api/v1/webhook").status, 405);
}

TEST_F(ApiWebhookTest, RotatedSecretIsUsedAtOnce) {
  StartWithSecret("old-secret");
  std::ofstream(secret_path_, std::ios::trunc) << "new-secret\n";
  const auto r =
      Post({{"X-GitHub-Event", "push"},
            {"X-Hub-Signature-256", "sha256=" + engine::HmacSha256Hex("new-secret", kPush)}});
  EXPECT_EQ(r.status, 202) << r.body;
}

TEST_F(ApiWebhookTest, WithoutASecretFileEveryPushIsRefused) {
  Start();
  const auto r = Post({{"X-GitHub-Event", "push"},
                       {"X-Hub-Signature-256", "sha256=" + engine::HmacSha256Hex("", kPush)}});
  EXPECT_EQ(r.status, 503) << r.body;
  EXPECT_TRUE(Commands().empty());
}

TEST_F(ApiWebhookTest, AFloodIsRateLimited) {
  StartWithSecret("hook-secret-1");
  int limited = 0;
  for (int i = 0; i < 40; ++i) {
    if (Post({{"X-GitHub-Event", "push"}}).status == 429) ++limited;
  }
  EXPECT_GT(limited, 0);
  EXPECT_TRUE(Commands().empty());
}

}  // namespace
}  // namespace fleetwave::api
