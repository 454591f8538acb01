// Plain (non-git) directories as sources: the revision is a content hash that is stable while
// nothing changes and changes on an edit; a snapshot keeps the content it was resolved with.
#include "sources/directory_source.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "sources/git_source.h"
#include "tests/sources/git_repo.h"

namespace fleetwave::sources {
namespace {

using testing::TempDir;
using testing::WriteFile;
namespace fs = std::filesystem;

const char* kConfigMap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n";

class DirectorySourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(root_ / "app/a.yaml", kConfigMap);
    WriteFile(root_ / "app/b.json",
              R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}})");
    WriteFile(root_ / "app/notes.txt", "ignored\n");
    fs::create_directories(root_ / "empty");
  }
  std::string Sha() {
    Resolution r = source_.Resolve(tmp_.path(), "HEAD");
    EXPECT_TRUE(r.ok()) << r.error->ToString();
    return r.ok() ? r.snapshot->sha : "";
  }

  TempDir tmp_;
  fs::path root_{tmp_.path()};
  GitSource source_;
};

TEST_F(DirectorySourceTest, ContentHashIsStableAndChangesOnlyWithManifests) {
  const std::string first = Sha();
  EXPECT_EQ(first.size(), 40u);
  EXPECT_EQ(Sha(), first) << "same content, same revision";

  struct Step {
    std::string name;
    std::function<void()> change;
    bool changes_revision;
  };
  const std::vector<Step> steps = {
      {"a non-manifest file changes", [&] { WriteFile(root_ / "app/notes.txt", "edited\n"); },
       false},
      {"a manifest is edited",
       [&] { WriteFile(root_ / "app/a.yaml", std::string(kConfigMap) + "data: {k: v}\n"); }, true},
      {"a manifest is renamed", [&] { fs::rename(root_ / "app/a.yaml", root_ / "app/c.yaml"); },
       true},
      {"a subdirectory is added", [&] { fs::create_directories(root_ / "more"); }, true},
  };
  std::string previous = first;
  for (const Step& s : steps) {
    SCOPED_TRACE(s.name);
    s.change();
    const std::string now = Sha();
    if (s.changes_revision) {
      EXPECT_NE(now, previous);
    } else {
      EXPECT_EQ(now, previous);
    }
    previous = now;
  }
}

TEST_F(DirectorySourceTest, ASnapshotKeepsTheContentItWasResolvedWith) {
  Resolution r = source_.Resolve("file://" + tmp_.path(), "");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r.snapshot->is_git);
  WriteFile(root_ / "app/a.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\n");

  ReadResult read = source_.Read(*r.snapshot, "app");
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read.manifests.size(), 2u);
  EXPECT_EQ(read.manifests[0].file, "app/a.yaml");
  EXPECT_EQ(read.manifests[0].object["metadata"]["name"], "one");
  EXPECT_EQ(read.manifests[1].file, "app/b.json");
  EXPECT_EQ(read.manifests[1].object["kind"], "Secret");
}

TEST_F(DirectorySourceTest, ErrorsHaveTheSameFormsAsForGit) {
  WriteFile(root_ / "bad/x.yaml", "a: [1, 2\n");
  Resolution r = source_.Resolve(tmp_.path(), "");
  ASSERT_TRUE(r.ok());
  const std::string at = tmp_.path() + "@" + r.snapshot->sha + ":";
  struct Case {
    std::string name, path;
    engine::ErrorKind kind;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"missing path", "nope", engine::ErrorKind::kNotFound, at + "nope: path not found"},
      {"path is a file", "app/a.yaml", engine::ErrorKind::kNotFound,
       at + "app/a.yaml: not a directory"},
      {"bad manifest", "bad", engine::ErrorKind::kInvalidInput,
       at + "bad/x.yaml:2:1: end of sequence flow not found"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ReadResult read = source_.Read(*r.snapshot, c.path);
    ASSERT_EQ(read.errors.size(), 1u);
    EXPECT_EQ(read.errors[0].kind, c.kind);
    EXPECT_EQ(read.errors[0].ToString(), c.message);
  }
  ReadResult empty = source_.Read(*r.snapshot, "empty");
  EXPECT_TRUE(empty.ok());
  EXPECT_TRUE(empty.manifests.empty());

  Resolution branch = source_.Resolve(tmp_.path(), "main");
  ASSERT_FALSE(branch.ok());
  EXPECT_EQ(branch.error->kind, engine::ErrorKind::kNotFound);
  EXPECT_EQ(branch.error->ToString(),
            tmp_.path() +
                ": unknown revision \"main\" (a plain directory has only its current content; "
                "use HEAD)");
}

}  // namespace
}  // namespace fleetwave::sources
