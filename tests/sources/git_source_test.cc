// GitSource on real repositories made by the test with the git CLI: revision resolution
// (branch, tags, full/short SHA, HEAD), reading a path at a commit without a checkout, and
// every error as a value with its exact text.
#include "sources/git_source.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "tests/sources/git_repo.h"

namespace fleetwave::sources {
namespace {

using testing::GitRepo;
using testing::TempDir;

const char* kDeployment = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
)";

const char* kServiceAndConfig = R"(apiVersion: v1
kind: Service
metadata:
  name: web
---
# an empty document between two objects is dropped
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
data:
  key: "1"
)";

const char* kNamespaceJson =
    R"({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "web"}})";

std::vector<std::string> Names(const ReadResult& r) {
  std::vector<std::string> out;
  for (const Manifest& m : r.manifests) {
    out.push_back(m.file + "#" + std::to_string(m.document) + " " +
                  m.object["kind"].get<std::string>() + "/" +
                  m.object["metadata"]["name"].get<std::string>() + " @" +
                  std::to_string(m.pos.line) + ":" + std::to_string(m.pos.column));
  }
  return out;
}

std::vector<std::string> Messages(const ReadResult& r) {
  std::vector<std::string> out;
  for (const engine::Error& e : r.errors) out.push_back(e.ToString());
  return out;
}

// History used by the resolution table:
//   A (main, tag v1, annotated tag v1-annotated) -- B (main, HEAD)
//    \-- C (feature)
class GitSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_.Write("apps/web/deployment.yaml", kDeployment);
    a_ = repo_.Commit("A");
    repo_.Git("tag v1");
    repo_.Git("tag -a v1-annotated -m release");
    repo_.Git("branch feature");
    repo_.Write("apps/web/service.yml", kServiceAndConfig);
    b_ = repo_.Commit("B");
    repo_.Git("checkout -q feature");
    repo_.Write("apps/web/namespace.json", kNamespaceJson);
    c_ = repo_.Commit("C");
    repo_.Git("checkout -q main");
  }

  TempDir tmp_;
  GitRepo repo_{tmp_.path()};
  GitSource source_;
  std::string a_, b_, c_;
};

TEST_F(GitSourceTest, ResolvesEveryKindOfRevisionToACommit) {
  struct Case {
    std::string name;
    std::string revision;
    std::string* want;
  };
  const std::vector<Case> cases = {
      {"branch", "main", &b_},        {"other branch", "feature", &c_},
      {"lightweight tag", "v1", &a_}, {"annotated tag peels to its commit", "v1-annotated", &a_},
      {"full sha", a_, &a_},          {"short sha", a_.substr(0, 8), &a_},
      {"HEAD", "HEAD", &b_},          {"empty means HEAD", "", &b_},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Resolution r = source_.Resolve(repo_.dir(), c.revision);
    ASSERT_TRUE(r.ok()) << r.error->ToString();
    EXPECT_EQ(r.snapshot->sha, *c.want);
    EXPECT_EQ(r.snapshot->revision, c.revision);
    EXPECT_TRUE(r.snapshot->is_git);
    EXPECT_EQ(r.snapshot->sha.size(), 40u);
  }
}

TEST_F(GitSourceTest, FileUrlIsTheSameRepository) {
  Resolution r = source_.Resolve("file://" + repo_.dir(), "main");
  ASSERT_TRUE(r.ok()) << r.error->ToString();
  EXPECT_EQ(r.snapshot->sha, b_);
  EXPECT_EQ(r.snapshot->repo_url, "file://" + repo_.dir());
}

TEST_F(GitSourceTest, HeadMovesAfterANewCommitAndOldSnapshotsStayReadable) {
  Resolution before = source_.Resolve(repo_.dir(), "HEAD");
  ASSERT_TRUE(before.ok());
  repo_.Remove("apps/web/service.yml");
  const std::string d = repo_.Commit("D removes the service");

  Resolution after = source_.Resolve(repo_.dir(), "HEAD");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(before.snapshot->sha, b_);
  EXPECT_EQ(after.snapshot->sha, d);
  // The old snapshot still reads commit B, not the work tree nor the new HEAD.
  EXPECT_EQ(Names(source_.Read(*before.snapshot, "apps/web")).size(), 3u);
  EXPECT_EQ(Names(source_.Read(*after.snapshot, "apps/web")).size(), 1u);
}

TEST_F(GitSourceTest, ReadsManifestsInFileNameOrderWithPositions) {
  // Noise the reader must skip: other file types, a subdirectory, a symlink, and uncommitted
  // work-tree files (reading is from the commit's tree).
  repo_.Write("apps/web/README.md", "# not a manifest\n");
  repo_.Write("apps/web/nested/inner.yaml", kDeployment);
  repo_.Write("apps/web/namespace.json", kNamespaceJson);
  testing::Run("ln -s deployment.yaml '" + repo_.dir() + "/apps/web/link.yaml'");
  const std::string sha = repo_.Commit("noise");
  repo_.Write("apps/web/uncommitted.yaml", kDeployment);

  Resolution r = source_.Resolve(repo_.dir(), "main");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.snapshot->sha, sha);
  ReadResult read = source_.Read(*r.snapshot, "./apps/web/");
  EXPECT_TRUE(read.ok()) << ::testing::PrintToString(Messages(read));
  EXPECT_EQ(Names(read), (std::vector<std::string>{
                             "apps/web/deployment.yaml#0 Deployment/web @1:1",
                             "apps/web/namespace.json#0 Namespace/web @1:1",
                             "apps/web/service.yml#0 Service/web @1:1",
                             "apps/web/service.yml#1 ConfigMap/web-config @8:1",
                         }));
  // JSON values keep their YAML types: quoted "1" stays a string, 2 is a number.
  EXPECT_EQ(read.manifests[0].object["spec"]["replicas"], 2);
  EXPECT_EQ(read.manifests[3].object["data"]["key"], "1");
}

TEST_F(GitSourceTest, ACommitThatDoesNotTouchThePathReadsIdenticalDocuments) {
  Resolution before = source_.Resolve(repo_.dir(), "main");
  repo_.Write("apps/other/deployment.yaml", kDeployment);
  repo_.Write("README.md", "unrelated\n");
  const std::string e = repo_.Commit("E touches other paths only");
  Resolution after = source_.Resolve(repo_.dir(), "main");
  ASSERT_TRUE(before.ok() && after.ok());
  ASSERT_NE(before.snapshot->sha, after.snapshot->sha);
  EXPECT_EQ(after.snapshot->sha, e);

  ReadResult old_read = source_.Read(*before.snapshot, "apps/web");
  ReadResult new_read = source_.Read(*after.snapshot, "apps/web");
  ASSERT_TRUE(old_read.ok() && new_read.ok());
  ASSERT_EQ(old_read.manifests.size(), 3u);
  ASSERT_EQ(new_read.manifests.size(), old_read.manifests.size());
  for (size_t i = 0; i < old_read.manifests.size(); ++i) {
    SCOPED_TRACE(old_read.manifests[i].file);
    EXPECT_EQ(new_read.manifests[i].file, old_read.manifests[i].file);
    EXPECT_EQ(new_read.manifests[i].object, old_read.manifests[i].object);
  }
}

TEST_F(GitSourceTest, ReadingTheRootAndAFileUrlSnapshot) {
  repo_.Write("top.yaml", kDeployment);
  repo_.Commit("top-level manifest");
  Resolution r = source_.Resolve("file://" + repo_.dir(), "main");
  ASSERT_TRUE(r.ok());
  for (const std::string path : {"", ".", "./"}) {
    SCOPED_TRACE("path '" + path + "'");
    EXPECT_EQ(Names(source_.Read(*r.snapshot, path)),
              (std::vector<std::string>{"top.yaml#0 Deployment/web @1:1"}));
  }
}

TEST_F(GitSourceTest, ABadManifestIsReportedAtItsLineAndColumn) {
  repo_.Write("apps/web/bad.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x\n");
  repo_.Write("apps/web/scalar.yaml", "just a string\n");
  const std::string sha = repo_.Commit("bad manifests");
  Resolution r = source_.Resolve(repo_.dir(), "main");
  ASSERT_TRUE(r.ok());
  ReadResult read = source_.Read(*r.snapshot, "apps/web");
  EXPECT_FALSE(read.ok());
  const std::string at = repo_.dir() + "@" + sha + ":";
  EXPECT_EQ(Messages(read), (std::vector<std::string>{
                                at + "apps/web/bad.yaml:4:1: end of map flow not found",
                                at + "apps/web/scalar.yaml:1:1: a manifest must be an object",
                            }));
  ASSERT_EQ(read.errors.size(), 2u);
  EXPECT_EQ(read.errors[0].kind, engine::ErrorKind::kInvalidInput);
  EXPECT_EQ(read.errors[1].kind, engine::ErrorKind::kInvalidInput);
  // The good files of the same directory are still read.
  EXPECT_EQ(read.manifests.size(), 3u);
}

TEST_F(GitSourceTest, ErrorsAreValuesWithExactText) {
  TempDir other;
  testing::WriteFile(std::filesystem::path(other.path()) / "notes.txt", "a file\n");
  testing::WriteFile(std::filesystem::path(other.path()) / "broken/.git", "gitdir: /nowhere\n");
  const std::string repo = repo_.dir();
  struct Case {
    std::string name;
    std::string repo_url;
    std::string revision;
    std::string path;  // read after a successful resolve
    engine::ErrorKind kind;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"unknown revision", repo, "no-such-branch", "", engine::ErrorKind::kNotFound,
       repo + ": unknown revision \"no-such-branch\""},
      {"unknown sha", repo, "0123456789abcdef0123456789abcdef01234567", "",
       engine::ErrorKind::kNotFound,
       repo + ": unknown revision \"0123456789abcdef0123456789abcdef01234567\""},
      {"revision naming a tree, not a commit", repo, "main:apps", "", engine::ErrorKind::kNotFound,
       repo + ": revision \"main:apps\" is not a commit"},
      {"missing path", repo, "main", "apps/nope", engine::ErrorKind::kNotFound,
       repo + "@" + b_ + ":apps/nope: path not found"},
      {"path is a file", repo, "main", "apps/web/deployment.yaml", engine::ErrorKind::kNotFound,
       repo + "@" + b_ + ":apps/web/deployment.yaml: not a directory"},
      {"path leaving the repository", repo, "main", "../etc", engine::ErrorKind::kNotFound,
       repo + "@" + b_ + ":../etc: path leaves the repository"},
      {"repository does not exist", other.path() + "/missing", "main", "",
       engine::ErrorKind::kTransient,
       other.path() + "/missing: cannot open repository: " + other.path() +
           "/missing does not exist"},
      {"repository is a file", other.path() + "/notes.txt", "main", "",
       engine::ErrorKind::kTransient,
       other.path() + "/notes.txt: cannot open repository: " + other.path() +
           "/notes.txt is not a directory"},
      // Without a mirror directory (the CLI's offline commands) remote URLs are refused.
      {"remote url", "https://example.com/org/repo.git", "main", "", engine::ErrorKind::kPermanent,
       "https://example.com/org/repo.git: remote repositories are read by the daemon only (its "
       "state directory holds their mirrors); use a local path or file:// URL"},
      {"scp-like remote", "git@example.com:org/repo.git", "main", "", engine::ErrorKind::kPermanent,
       "git@example.com:org/repo.git: remote repositories are read by the daemon only (its "
       "state directory holds their mirrors); use a local path or file:// URL"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Resolution r = source_.Resolve(c.repo_url, c.revision);
    engine::Error error;
    if (r.ok()) {
      ReadResult read = source_.Read(*r.snapshot, c.path);
      ASSERT_EQ(read.errors.size(), 1u);
      EXPECT_TRUE(read.manifests.empty());
      error = read.errors[0];
    } else {
      ASSERT_TRUE(c.path.empty()) << "resolve failed: " << r.error->ToString();
      error = *r.error;
    }
    EXPECT_EQ(error.ToString(), c.message);
    EXPECT_EQ(engine::ErrorKindName(error.kind), std::string(engine::ErrorKindName(c.kind)));
  }

  // The object says where, the message what, so a condition or the API can show them apart.
  Resolution main = source_.Resolve(repo, "main");
  ASSERT_TRUE(main.ok());
  ReadResult missing = source_.Read(*main.snapshot, "apps/nope");
  ASSERT_EQ(missing.errors.size(), 1u);
  EXPECT_EQ(missing.errors[0].object, repo + "@" + b_ + ":apps/nope");
  EXPECT_EQ(missing.errors[0].message, "path not found");

  // A .git that does not lead to a repository is unreadable, not silently a plain directory.
  Resolution broken = source_.Resolve(other.path() + "/broken", "HEAD");
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error->kind, engine::ErrorKind::kTransient);
  EXPECT_EQ(broken.error->ToString().rfind(other.path() + "/broken: cannot open repository: ", 0),
            0u)
      << broken.error->ToString();
}

TEST_F(GitSourceTest, OneSourceServesManyThreadsAtOnce) {
  // The blocking pool calls one GitSource from several threads: each call opens its own
  // repository handle, so concurrent resolves and reads agree with a serial run.
  std::vector<std::thread> threads;
  std::vector<std::string> results(8);
  for (size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] {
      const std::string revision = i % 2 == 0 ? "main" : "feature";
      Resolution r = source_.Resolve(repo_.dir(), revision);
      if (!r.ok()) return;
      ReadResult read = source_.Read(*r.snapshot, "apps/web");
      results[i] = r.snapshot->sha + " " + std::to_string(read.manifests.size());
    });
  }
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < results.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(results[i], i % 2 == 0 ? b_ + " 3" : c_ + " 2");
  }
}

TEST_F(GitSourceTest, FetchOfALocalRepositoryOnlyChecksItIsReadable) {
  EXPECT_FALSE(source_.Fetch(repo_.dir()).has_value());
  EXPECT_FALSE(source_.Fetch("file://" + repo_.dir()).has_value());
  std::optional<engine::Error> missing = source_.Fetch(repo_.dir() + "/nope");
  ASSERT_TRUE(missing.has_value());
  EXPECT_EQ(missing->kind, engine::ErrorKind::kTransient);
}

TEST(LocalPathOf, SeparatesLocalPathsFromRemotes) {
  struct Case {
    std::string name, url;
    std::optional<std::string> want;
  };
  const std::vector<Case> cases = {
      {"absolute path", "/srv/git/app", "/srv/git/app"},
      {"relative path", "repos/app", "repos/app"},
      {"file url", "file:///srv/git/app", "/srv/git/app"},
      {"https", "https://github.com/org/app.git", std::nullopt},
      {"ssh url", "ssh://git@github.com/org/app.git", std::nullopt},
      {"scp-like", "git@github.com:org/app.git", std::nullopt},
      {"colon after a slash is a path", "./a:b", "./a:b"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(LocalPathOf(c.url), c.want);
  }
}

TEST(NormalizePath, KeepsReadsInsideTheRepository) {
  struct Case {
    std::string name, path;
    std::optional<std::string> want;
  };
  const std::vector<Case> cases = {
      {"empty is the root", "", ""},
      {"dot is the root", ".", ""},
      {"dot-slash prefix", "./apps/web", "apps/web"},
      {"trailing slash", "apps/web/", "apps/web"},
      {"doubled slashes", "apps//web", "apps/web"},
      {"dot-dot", "apps/../..", std::nullopt},
      {"absolute", "/etc", std::nullopt},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(NormalizePath(c.path), c.want);
  }
}

}  // namespace
}  // namespace fleetwave::sources
