// Push webhooks: HMAC vectors, authentication per provider, what a push names, and which sets
// follow it.
#include "engine/webhook.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace fleetwave::engine {
namespace {

TEST(WebhookTest, HmacSha256MatchesPublishedVectors) {
  // RFC 4231 test case 2, and the example of GitHub's webhook documentation.
  EXPECT_EQ(HmacSha256Hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(HmacSha256Hex("It's a Secret to Everybody", "Hello, World!"),
            "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17");
  // RFC 4231 test case 6: a key longer than the block is hashed first.
  EXPECT_EQ(HmacSha256Hex(std::string(131, '\xaa'),
                          "Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  EXPECT_TRUE(ConstantTimeEqual("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEqual("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEqual("abc", "abcd"));
}

const char* kSecret = "webhook-secret-9931";

const char* kGitHubPush = R"({"ref": "refs/heads/main", "repository": {
  "html_url": "https://github.com/Org/Repo", "clone_url": "https://github.com/Org/Repo.git",
  "ssh_url": "git@github.com:Org/Repo.git", "default_branch": "main"}})";

const char* kGitLabPush = R"({"object_kind": "push", "ref": "refs/heads/dev", "project": {
  "git_http_url": "https://gitlab.example.com/grp/app.git",
  "git_ssh_url": "git@gitlab.example.com:grp/app.git", "default_branch": "main"}})";

const char* kBitbucketPush = R"({"repository": {"links": {"html": {
  "href": "https://bitbucket.org/team/app"}}}, "push": {"changes": [
  {"new": {"type": "branch", "name": "release"}}]}})";

struct Case {
  std::string name;
  std::map<std::string, std::string> headers;
  std::string body;
  int status;
  std::string message;
  std::string ref;  // of the push, when status is 200
};

TEST(WebhookTest, AuthenticatesEachProviderAndReadsThePush) {
  const std::string good = "sha256=" + HmacSha256Hex(kSecret, kGitHubPush);
  const std::string bad = "sha256=" + HmacSha256Hex("guess", kGitHubPush);
  const std::vector<Case> cases = {
      {"github signed",
       {{"x-github-event", "push"}, {"x-hub-signature-256", good}},
       kGitHubPush,
       200,
       "github push to refs/heads/main of https://github.com/Org/Repo",
       "refs/heads/main"},
      {"github upper-case hex",
       {{"x-github-event", "push"},
        {"x-hub-signature-256", "sha256=" +
                                    [&] {
                                      std::string hex = HmacSha256Hex(kSecret, kGitHubPush);
                                      for (char& c : hex) c = static_cast<char>(std::toupper(c));
                                      return hex;
                                    }()}},
       kGitHubPush,
       200,
       "github push to refs/heads/main of https://github.com/Org/Repo",
       "refs/heads/main"},
      {"github wrong signature",
       {{"x-github-event", "push"}, {"x-hub-signature-256", bad}},
       kGitHubPush,
       401,
       "github event with a wrong X-Hub-Signature-256 signature",
       ""},
      {"github body changed after signing",
       {{"x-github-event", "push"}, {"x-hub-signature-256", good}},
       std::string(kGitHubPush) + " ",
       401,
       "github event with a wrong X-Hub-Signature-256 signature",
       ""},
      {"github unsigned",
       {{"x-github-event", "push"}},
       kGitHubPush,
       401,
       "github event without an X-Hub-Signature-256 signature",
       ""},
      {"github ping",
       {{"x-github-event", "ping"},
        {"x-hub-signature-256", "sha256=" + HmacSha256Hex(kSecret, "{}")}},
       "{}",
       202,
       "github event \"ping\" is not a push: nothing to do",
       ""},
      {"gitea own header",
       {{"x-gitea-event", "push"}, {"x-gitea-signature", HmacSha256Hex(kSecret, kGitHubPush)}},
       kGitHubPush,
       200,
       "gitea push to refs/heads/main of https://github.com/Org/Repo",
       "refs/heads/main"},
      {"gitlab token",
       {{"x-gitlab-event", "Push Hook"}, {"x-gitlab-token", kSecret}},
       kGitLabPush,
       200,
       "gitlab push to refs/heads/dev of https://gitlab.example.com/grp/app.git",
       "refs/heads/dev"},
      {"gitlab wrong token",
       {{"x-gitlab-event", "Push Hook"}, {"x-gitlab-token", "webhook-secret-9932"}},
       kGitLabPush,
       401,
       "GitLab event with a wrong X-Gitlab-Token",
       ""},
      {"gitlab no token",
       {{"x-gitlab-event", "Push Hook"}},
       kGitLabPush,
       401,
       "GitLab event without X-Gitlab-Token",
       ""},
      {"bitbucket signed",
       {{"x-event-key", "repo:push"},
        {"x-hub-signature", "sha256=" + HmacSha256Hex(kSecret, kBitbucketPush)}},
       kBitbucketPush,
       200,
       "bitbucket push to refs/heads/release of https://bitbucket.org/team/app",
       "refs/heads/release"},
      {"no provider header",
       {},
       kGitHubPush,
       400,
       "not a push webhook: no X-GitHub-Event, X-Gitea-Event, X-Gitlab-Event or X-Event-Key",
       ""},
      {"signed but not json",
       {{"x-github-event", "push"},
        {"x-hub-signature-256", "sha256=" + HmacSha256Hex(kSecret, "[1")}},
       "[1",
       400,
       "github event whose body is not a JSON object",
       ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const WebhookVerdict v = CheckWebhook(c.headers, c.body, kSecret);
    EXPECT_EQ(v.status, c.status);
    EXPECT_EQ(v.message, c.message);
    EXPECT_EQ(v.message.find(kSecret), std::string::npos);
    EXPECT_EQ(v.push.has_value(), c.status == 200);
    if (v.push) {
      EXPECT_EQ(v.push->ref, c.ref);
    }
  }
}

WebhookPush GitHubMain() {
  return CheckWebhook({{"x-github-event", "push"},
                       {"x-hub-signature-256", "sha256=" + HmacSha256Hex(kSecret, kGitHubPush)}},
                      kGitHubPush, kSecret)
      .push.value();
}

TEST(WebhookTest, RevisionFollowsTheBranchTagOrDefault) {
  WebhookPush push = GitHubMain();
  EXPECT_TRUE(RevisionFollowsPush("main", push));
  EXPECT_TRUE(RevisionFollowsPush("refs/heads/main", push));
  EXPECT_TRUE(RevisionFollowsPush("", push));
  EXPECT_TRUE(RevisionFollowsPush("HEAD", push));
  EXPECT_TRUE(RevisionFollowsPush("{{.branch}}", push));
  EXPECT_FALSE(RevisionFollowsPush("dev", push));
  EXPECT_FALSE(RevisionFollowsPush("v1.0", push));
  push.ref = "refs/heads/dev";
  EXPECT_FALSE(RevisionFollowsPush("HEAD", push));  // not the default branch
  push.default_branch.clear();
  EXPECT_TRUE(RevisionFollowsPush("HEAD", push));  // unknown default: maybe
  push.ref = "refs/tags/v1.0";
  EXPECT_TRUE(RevisionFollowsPush("v1.0", push));
}

ApplicationSet SetWithSource(const std::string& repo, const std::string& revision) {
  ApplicationSet set;
  set.template_ = {{"spec", {{"source", {{"repoURL", repo}, {"targetRevision", revision}}}}}};
  return set;
}

TEST(WebhookTest, SetsFollowThePushedRepositoryAtThePushedRef) {
  const WebhookPush push = GitHubMain();
  struct SetCase {
    std::string name;
    ApplicationSet set;
    bool want;
  };
  ApplicationSet git_generator;
  Generator g;
  g.kind = Generator::Kind::kGit;
  g.git.repo_url = "https://github.com/org/repo";  // host and path compared case-insensitively
  g.git.revision = "main";
  Generator matrix;
  matrix.kind = Generator::Kind::kMatrix;
  matrix.matrix.generators = {Generator{}, g};
  git_generator.generators = {matrix};
  ApplicationSet multi;
  multi.template_ = {
      {"spec",
       {{"sources",
         {{{"repoURL", "https://example.com/charts"}},
          {{"repoURL", "git@github.com:Org/Repo.git"}, {"targetRevision", "HEAD"}}}}}}};
  const std::vector<SetCase> cases = {
      {"same https url", SetWithSource("https://github.com/Org/Repo.git", "main"), true},
      {"ssh spelling", SetWithSource("ssh://git@github.com/Org/Repo", "main"), true},
      {"other branch", SetWithSource("https://github.com/Org/Repo", "dev"), false},
      {"other repository", SetWithSource("https://github.com/Org/Other", "main"), false},
      {"templated repoURL", SetWithSource("https://github.com/Org/{{name}}", "main"), true},
      {"pinned sha", SetWithSource("https://github.com/Org/Repo", "0123abcd"), false},
      {"git generator in a matrix", git_generator, true},
      {"one of several sources", multi, true},
  };
  for (const SetCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(AppSetFollowsPush(c.set, push), c.want);
  }
}

}  // namespace
}  // namespace fleetwave::engine
