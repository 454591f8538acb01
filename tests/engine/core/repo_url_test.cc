// Repository URL identity (Argo CD's normalisation), redaction, and the longest-prefix choice
// of a `repositories:` entry.
#include "engine/repo_url.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fleetwave::engine {
namespace {

TEST(RepoUrlTest, NormalizesAsArgoCdCompares) {
  struct Case {
    std::string name, url, want;
  };
  const std::vector<Case> cases = {
      {"https as is", "https://github.com/org/repo", "https://github.com/org/repo"},
      {".git dropped", "https://github.com/org/repo.git", "https://github.com/org/repo"},
      {"trailing slash dropped", "https://github.com/org/repo/", "https://github.com/org/repo"},
      {"host and scheme case", "HTTPS://GitHub.COM/Org/Repo.git", "https://github.com/Org/Repo"},
      {"default port dropped", "https://github.com:443/org/repo", "https://github.com/org/repo"},
      {"other port kept", "https://git.local:8443/org/repo", "https://git.local:8443/org/repo"},
      {"http user dropped", "https://deploy@github.com/org/repo", "https://github.com/org/repo"},
      {"password dropped", "https://u:secret@github.com/org/repo", "https://github.com/org/repo"},
      {"scp-like is ssh", "git@gitlab.example.com:org/repo.git",
       "ssh://git@gitlab.example.com/org/repo"},
      {"ssh url", "ssh://git@gitlab.example.com:22/org/repo.git",
       "ssh://git@gitlab.example.com/org/repo"},
      {"ssh port kept", "ssh://git@127.0.0.1:2222/srv/repo.git",
       "ssh://git@127.0.0.1:2222/srv/repo"},
      {"ipv6 host", "https://[::1]:8080/r.git", "https://[::1]:8080/r"},
      {"local path as is", "/srv/git/repo.git", "/srv/git/repo.git"},
      {"file url as is", "file:///srv/git/repo", "file:///srv/git/repo"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(NormalizeRepoUrl(c.url), c.want);
  }
}

TEST(RepoUrlTest, LocalPathsAreNotRemote) {
  EXPECT_FALSE(ParseRepoUrl("/srv/repo"));
  EXPECT_FALSE(ParseRepoUrl("./a:b"));
  EXPECT_FALSE(ParseRepoUrl("file:///srv/repo"));
  EXPECT_FALSE(ParseRepoUrl("ftp://host/repo"));
  ASSERT_TRUE(ParseRepoUrl("https://u:p@h/r"));
  EXPECT_TRUE(ParseRepoUrl("https://u:p@h/r")->has_password);
}

TEST(RepoUrlTest, RedactsPasswordsOnly) {
  EXPECT_EQ(RedactUrl("https://u:s3cret@h.example/r.git"), "https://u:***@h.example/r.git");
  EXPECT_EQ(RedactUrl("https://u@h.example/r.git"), "https://u@h.example/r.git");
  EXPECT_EQ(RedactUrl("git@h.example:org/r.git"), "git@h.example:org/r.git");
  EXPECT_EQ(RedactUrl("https://h.example/a@b:c"), "https://h.example/a@b:c");
}

TEST(RepoUrlTest, LongestPrefixOnASegmentBoundaryWins) {
  std::vector<RepositoryConfig> repos(5);
  repos[0].url = "https://git.example.com/";
  repos[1].url = "https://git.example.com/platform/";
  repos[2].url = "https://git.example.com/platform/infra.git";
  repos[3].url = "ssh://git@git.example.com/";
  repos[4].url = "ssh://git.example.com/";
  struct Case {
    std::string name, url;
    int want;  // index, -1 for none
  };
  const std::vector<Case> cases = {
      {"host prefix", "https://git.example.com/other/repo", 0},
      {"longer prefix", "https://git.example.com/platform/apps.git", 1},
      {"exact repository", "https://GIT.example.com/platform/infra", 2},
      {"no match across a segment", "https://git.example.com/platformer/x", 0},
      {"scheme differs", "http://git.example.com/platform/apps", -1},
      {"other host", "https://example.com/platform/apps", -1},
      {"scp-like matches ssh", "git@git.example.com:platform/apps.git", 3},
      {"another user: the entry without a user", "deploy@git.example.com:org/r.git", 4},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const RepositoryConfig* got = FindRepository(repos, c.url);
    EXPECT_EQ(got == nullptr ? -1 : static_cast<int>(got - repos.data()), c.want);
  }
}

}  // namespace
}  // namespace fleetwave::engine
