// For each store failpoint, a child process dies exactly there (exit status
// kFailpointExitCode); reopening the state directory shows a consistent store in which every
// acknowledged write survives and the batch in flight is either wholly there or wholly absent.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "store/failpoint.h"
#include "store/sqlite_store.h"
#include "tests/store/child_process.h"

namespace fleetwave::store {
namespace {

using testing::Child;
using testing::Reporter;
using testing::TempDir;

std::map<std::string, std::string> Contents(Store& store) {
  std::map<std::string, std::string> out;
  for (const Entry& e : store.List("").entries) out[e.key] = e.value;
  return out;
}

// Consistency of a reopened store: every key's revision is at most the store revision, and
// the next commit gets the next revision.
void ExpectConsistent(Store& store) {
  const int64_t revision = store.Revision();
  for (const Entry& e : store.List("").entries) {
    EXPECT_GE(e.revision, 1) << e.key;
    EXPECT_LE(e.revision, revision) << e.key;
  }
  WriteResult next = store.Put("consistency-probe", "x");
  EXPECT_EQ(next.revision, revision + 1);
}

TEST(FailpointCrash, CommitBoundaries) {
  struct Case {
    std::string name;
    std::string failpoint;
    bool in_flight_committed;  // is the batch the child died in durable?
  };
  const std::vector<Case> cases = {
      {"dies with the batch written but not committed", kFailBeforeCommit, false},
      {"dies after the commit, before acknowledging it", kFailAfterCommit, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    const std::string db = dir.db();
    const std::string failpoint = c.failpoint;
    // Three acknowledged writes (reported after Put returned), then the failpoint is armed and
    // one more batch - a pin and its operation, committed together - is attempted.
    Child child("", [db, failpoint](const Reporter& report, int) {
      OpenResult r = OpenSqliteStore(db);
      if (!r.ok()) return report.Line("open failed: " + r.status.message);
      for (const std::string key : {"pin/a", "pin/b", "operation/a"}) {
        if (r.store->Put(key, "v1").ok()) report.Line(key);
      }
      ::setenv("FLEETWAVE_FAILPOINT", failpoint.c_str(), 1);
      WriteResult w = r.store->Commit({Op::Put("pin/a", "v2"), Op::Put("operation/b", "v2")});
      report.Line(w.ok() ? "in-flight acknowledged" : "in-flight failed");
    });
    const std::vector<std::string> acked = child.ReadAll();
    EXPECT_EQ(child.Wait(), kFailpointExitCode);
    EXPECT_EQ(acked, (std::vector<std::string>{"pin/a", "pin/b", "operation/a"}));

    OpenResult reopened = OpenSqliteStore(db);
    ASSERT_TRUE(reopened.ok()) << reopened.status.message;
    std::map<std::string, std::string> want = {
        {"pin/a", "v1"}, {"pin/b", "v1"}, {"operation/a", "v1"}};
    if (c.in_flight_committed) {
      want["pin/a"] = "v2";
      want["operation/b"] = "v2";
    }
    EXPECT_EQ(Contents(*reopened.store), want);
    EXPECT_EQ(reopened.store->Revision(), c.in_flight_committed ? 4 : 3);
    ExpectConsistent(*reopened.store);
  }
}

// Bounded wait (10 s) on a condition, yielding: no sleeps.
bool WaitUntil(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

// A group of three concurrent batches dies at each commit boundary after a first, lone batch
// was acknowledged: the acknowledged batch survives, and the group is wholly there (each batch
// with its own revision) or wholly absent - never part of it.
TEST(FailpointCrash, GroupCommitBoundaries) {
  struct Case {
    std::string name;
    std::string failpoint;
    bool group_committed;
  };
  const std::vector<Case> cases = {
      {"dies with the group written but not committed", kFailBeforeCommit, false},
      {"dies after the group committed, before acknowledging any of it", kFailAfterCommit, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    const std::string db = dir.db();
    const std::string failpoint = c.failpoint;
    Child child("", [db, failpoint](const Reporter& report, int) {
      std::atomic<int> groups{0};
      std::atomic<bool> first_reported{false};
      Store* store = nullptr;
      OpenOptions options;
      // The first group (the lone batch) waits until the three others queue behind it; the
      // second arms the failpoint once the first batch's acknowledgement is reported.
      options.on_group_taken = [&](std::size_t) {
        if (groups.fetch_add(1) == 0) {
          if (!WaitUntil([&] { return store->Counters().queued == 3; })) report.Line("no group");
          return;
        }
        if (!WaitUntil([&] { return first_reported.load(); })) report.Line("no report");
        ::setenv("FLEETWAVE_FAILPOINT", failpoint.c_str(), 1);
      };
      OpenResult r = OpenSqliteStore(db, options);
      if (!r.ok()) return report.Line("open failed: " + r.status.message);
      store = r.store.get();
      std::vector<std::thread> threads;
      threads.emplace_back([&] {
        if (store->Put("acked/a", "v").ok()) report.Line("acked/a");
        first_reported = true;
      });
      if (!WaitUntil([&] { return groups.load() == 1; })) report.Line("no first group");
      for (const std::string key : {"group/b", "group/c", "group/d"}) {
        threads.emplace_back([&, key] {
          if (store->Put(key, "v").ok()) report.Line(key);
        });
      }
      for (std::thread& t : threads) t.join();
    });
    const std::vector<std::string> acked = child.ReadAll();
    EXPECT_EQ(child.Wait(), kFailpointExitCode);
    EXPECT_EQ(acked, std::vector<std::string>{"acked/a"});

    OpenResult reopened = OpenSqliteStore(db);
    ASSERT_TRUE(reopened.ok()) << reopened.status.message;
    std::map<std::string, std::string> want = {{"acked/a", "v"}};
    if (c.group_committed) {
      for (const char* key : {"group/b", "group/c", "group/d"}) want[key] = "v";
    }
    EXPECT_EQ(Contents(*reopened.store), want);
    EXPECT_EQ(reopened.store->Revision(), c.group_committed ? 4 : 1);
    if (c.group_committed) {
      std::set<int64_t> revisions;
      for (const Entry& e : reopened.store->List("group/").entries) revisions.insert(e.revision);
      EXPECT_EQ(revisions, (std::set<int64_t>{2, 3, 4})) << "each batch its own revision";
    }
    ExpectConsistent(*reopened.store);
  }
}

TEST(FailpointCrash, MigrationBoundaries) {
  struct Case {
    std::string name;
    std::string failpoint;
  };
  const std::vector<Case> cases = {
      {"dies inside the migration transaction", kFailBeforeMigrate},
      {"dies after the migration committed", kFailAfterMigrate},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    const std::string db = dir.db();
    // A version 1 database with data, so the migration has something to preserve.
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(raw,
                           "CREATE TABLE kv (key TEXT PRIMARY KEY, value BLOB NOT NULL) "
                           "WITHOUT ROWID; INSERT INTO kv VALUES ('pin/a', 'v1');"
                           "PRAGMA user_version = 1;",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(raw);

    Child child(c.failpoint, [db](const Reporter& report, int) {
      OpenResult r = OpenSqliteStore(db);
      report.Line(r.ok() ? "opened" : "open failed: " + r.status.message);
    });
    EXPECT_EQ(child.ReadAll(), std::vector<std::string>{});
    EXPECT_EQ(child.Wait(), kFailpointExitCode);

    OpenResult reopened = OpenSqliteStore(db);
    ASSERT_TRUE(reopened.ok()) << reopened.status.message;
    ListResult all = reopened.store->List("");
    ASSERT_EQ(all.entries.size(), 1u);
    EXPECT_EQ(all.entries[0].key, "pin/a");
    EXPECT_EQ(all.entries[0].value, "v1");
    EXPECT_EQ(reopened.store->Revision(), 1);
    ExpectConsistent(*reopened.store);
  }
}

TEST(FailpointCrash, AFreshDatabaseInterruptedInItsFirstMigrationOpensEmpty) {
  TempDir dir;
  const std::string db = dir.db();
  Child child(kFailBeforeMigrate, [db](const Reporter&, int) { OpenSqliteStore(db); });
  EXPECT_EQ(child.Wait(), kFailpointExitCode);
  OpenResult reopened = OpenSqliteStore(db);
  ASSERT_TRUE(reopened.ok()) << reopened.status.message;
  EXPECT_EQ(reopened.store->Revision(), 0);
  ExpectConsistent(*reopened.store);
}

TEST(Failpoint, DoesNothingUnlessNamed) {
  ::unsetenv("FLEETWAVE_FAILPOINT");
  Failpoint(kFailBeforeCommit);  // still alive
  Child other("some.other.point", [](const Reporter& report, int) {
    Failpoint(kFailBeforeCommit);
    report.Line("alive");
  });
  EXPECT_EQ(other.ReadLine(), "alive");
  EXPECT_EQ(other.Wait(), 0);
}

}  // namespace
}  // namespace fleetwave::store
