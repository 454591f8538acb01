// One snapshot per (repoURL, targetRevision) per reconcile: ResolveOnce asks the source once
// per key, even from many threads, and memoises errors too.
#include "sources/resolve_once.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "sources/fake_source.h"

namespace fleetwave::sources {
namespace {

TEST(ResolveOnce, EveryAppOfAReconcileSeesTheSameCommit) {
  FakeSource fake;
  fake.SetRevision("repo", "main", "sha-1");
  fake.SetRevision("repo", "HEAD", "sha-1");
  fake.SetRevision("repo", "v2", "sha-2");
  fake.SetRevision("other", "main", "sha-9");
  {
    ResolveOnce once(fake);
    struct App {
      std::string name, repo, revision, want_sha;
    };
    const std::vector<App> apps = {
        {"first app on main", "repo", "main", "sha-1"},
        {"second app on main", "repo", "main", "sha-1"},
        {"empty revision", "repo", "", "sha-1"},
        {"HEAD is the same key as empty", "repo", "HEAD", "sha-1"},
        {"a tag is another key", "repo", "v2", "sha-2"},
        {"another repository", "other", "main", "sha-9"},
    };
    for (const App& app : apps) {
      SCOPED_TRACE(app.name);
      Resolution r = once.Resolve(app.repo, app.revision);
      ASSERT_TRUE(r.ok());
      EXPECT_EQ(r.snapshot->sha, app.want_sha);
    }
    // main moves during the reconcile: this reconcile keeps the commit it started with.
    fake.SetRevision("repo", "main", "sha-3");
    EXPECT_EQ(once.Resolve("repo", "main").snapshot->sha, "sha-1");
    EXPECT_EQ(once.size(), 4u);
  }
  EXPECT_EQ(fake.calls(), (std::vector<std::string>{"resolve repo main", "resolve repo ",
                                                    "resolve repo v2", "resolve other main"}));
  // The next reconcile sees the new commit.
  ResolveOnce next(fake);
  EXPECT_EQ(next.Resolve("repo", "main").snapshot->sha, "sha-3");
}

TEST(ResolveOnce, ListsTheCommitsItResolvedUnlessOneFailed) {
  FakeSource fake;
  fake.SetRevision("repo", "HEAD", "sha-1");
  fake.SetRevision("repo", "v2", "sha-2");
  ResolveOnce once(fake);
  EXPECT_EQ(once.ResolvedCommits(), ResolveOnce::Commits{});
  once.Resolve("repo", "");
  once.Resolve("repo", "v2");
  EXPECT_EQ(once.ResolvedCommits(),
            (ResolveOnce::Commits{{{"repo", "HEAD"}, "sha-1"}, {{"repo", "v2"}, "sha-2"}}));
  // A failed resolve means the reads were incomplete: nothing to compare a later gather with.
  once.Resolve("repo", "gone");
  EXPECT_EQ(once.ResolvedCommits(), std::nullopt);
}

TEST(ResolveOnce, ErrorsAreMemoisedSoEveryAppReportsTheSameOne) {
  FakeSource fake;
  ResolveOnce once(fake);
  Resolution a = once.Resolve("repo", "gone");
  Resolution b = once.Resolve("repo", "gone");
  ASSERT_FALSE(a.ok());
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(a.error->ToString(), "repo: unknown revision \"gone\"");
  EXPECT_EQ(b.error->ToString(), a.error->ToString());
  EXPECT_EQ(fake.calls().size(), 1u);
}

TEST(ResolveOnce, ConcurrentCallersShareOneResolution) {
  FakeSource fake;
  fake.SetRevision("repo", "main", "sha-1");
  ResolveOnce once(fake);
  std::vector<std::thread> threads;
  std::vector<std::string> shas(8);
  for (size_t i = 0; i < shas.size(); ++i) {
    threads.emplace_back([&, i] { shas[i] = once.Resolve("repo", "main").snapshot->sha; });
  }
  for (auto& t : threads) t.join();
  for (const std::string& sha : shas) EXPECT_EQ(sha, "sha-1");
  EXPECT_EQ(fake.calls(), std::vector<std::string>{"resolve repo main"});
}

// The apps of a set mostly render one path of one commit: it is read and parsed once, and each
// app gets the same manifests (and the same errors).
TEST(ResolveOnce, EachPathOfACommitIsReadOncePerReconcile) {
  FakeSource fake;
  fake.SetRevision("repo", "main", "sha-1");
  fake.SetRevision("repo", "v2", "sha-2");
  fake.SetFiles("repo", "sha-1", {{"web/d.yaml", "kind: A\n"}, {"db/d.yaml", "kind: B\n"}});
  fake.SetFiles("repo", "sha-2", {{"web/d.yaml", "kind: C\n"}});
  ResolveOnce once(fake);
  const Snapshot one = *once.Resolve("repo", "main").snapshot;
  const Snapshot two = *once.Resolve("repo", "v2").snapshot;
  std::vector<std::thread> threads;
  std::vector<std::shared_ptr<const ReadResult>> reads(8);
  for (size_t i = 0; i < reads.size(); ++i) {
    threads.emplace_back([&, i] { reads[i] = once.ReadPath(one, "web"); });
  }
  for (auto& t : threads) t.join();
  for (const auto& r : reads) {
    ASSERT_EQ(r->manifests.size(), 1u);
    EXPECT_EQ(r->manifests[0].object["kind"], "A");
  }
  EXPECT_EQ(once.ReadPath(one, "db")->manifests.at(0).object["kind"], "B");
  EXPECT_EQ(once.ReadPath(two, "web")->manifests.at(0).object["kind"], "C");
  const auto missing = once.ReadPath(one, "nope");
  EXPECT_EQ(once.ReadPath(one, "nope"), missing);
  ASSERT_EQ(missing->errors.size(), 1u);
  std::vector<std::string> read_calls;
  for (const std::string& call : fake.calls()) {
    if (call.rfind("read ", 0) == 0) read_calls.push_back(call);
  }
  EXPECT_EQ(read_calls, (std::vector<std::string>{"read repo@sha-1:web", "read repo@sha-1:db",
                                                  "read repo@sha-2:web", "read repo@sha-1:nope"}));
  // The next reconcile reads again (a plain directory's files may have changed meanwhile).
  ResolveOnce next(fake);
  next.ReadPath(one, "web");
  EXPECT_EQ(fake.calls().back(), "read repo@sha-1:web");
}

TEST(FakeSource, ReadsLikeTheRealSource) {
  FakeSource fake;
  fake.SetRevision("repo", "main", "sha-1");
  fake.SetFiles("repo", "sha-1",
                {{"apps/web/b.yaml", "kind: B\n"},
                 {"apps/web/a.yaml", "kind: A\n---\nkind: A2\n"},
                 {"apps/web/deeper/c.yaml", "kind: C\n"},
                 {"apps/web/readme.md", "text"}});
  Snapshot snap = *fake.Resolve("repo", "main").snapshot;
  ReadResult read = fake.Read(snap, "apps/web");
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read.manifests.size(), 3u);
  EXPECT_EQ(read.manifests[0].object["kind"], "A");
  EXPECT_EQ(read.manifests[1].object["kind"], "A2");
  EXPECT_EQ(read.manifests[2].object["kind"], "B");
  ReadResult missing = fake.Read(snap, "apps/nope");
  ASSERT_EQ(missing.errors.size(), 1u);
  EXPECT_EQ(missing.errors[0].ToString(), "repo@sha-1:apps/nope: path not found");
  ReadResult outside = fake.Read(snap, "../etc");
  ASSERT_EQ(outside.errors.size(), 1u);
  EXPECT_EQ(outside.errors[0].ToString(), "repo@sha-1:../etc: path leaves the repository");
}

}  // namespace
}  // namespace fleetwave::sources
