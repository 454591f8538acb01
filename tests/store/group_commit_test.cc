// Group commit (store/group_commit.h) on every backend: concurrent batches share one
// transaction, each keeps its own revision and its own compare-and-set verdict, and (SQLite)
// a failed transaction fails every batch of its group and acknowledges none. Groups are shaped
// with the stores' on_group_taken hook and bounded waits on the queue, never with sleeps.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <latch>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "store/memory_store.h"
#include "store/sqlite_store.h"
#include "tests/store/child_process.h"

namespace fleetwave::store {
namespace {

using testing::TempDir;

// Spins (yielding) until `condition` holds, for at most 10 s: the bounded wait that stands in
// for a sleep.
bool WaitUntil(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

// Makes the first group hold its leader until the test lets it go, so the batches started
// meanwhile queue up and form the second group.
class GroupShaper {
 public:
  void OnGroupTaken(std::size_t) {
    if (groups_.fetch_add(1) != 0) return;
    first_taken_.count_down();
    release_.wait();
  }
  GroupCommitter::GroupTaken Hook() {
    return [this](std::size_t n) { OnGroupTaken(n); };
  }
  void WaitFirstTaken() { first_taken_.wait(); }
  void Release() { release_.count_down(); }

 private:
  std::atomic<int> groups_{0};
  std::latch first_taken_{1};
  std::latch release_{1};
};

class GroupCommit : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<Store> Make(GroupCommitter::GroupTaken hook) {
    if (GetParam() == "memory") return std::make_unique<MemoryStore>(std::move(hook));
    OpenOptions options;
    options.on_group_taken = std::move(hook);
    OpenResult r = OpenSqliteStore(dir_.db(), options);
    EXPECT_TRUE(r.ok()) << r.status.message;
    return std::move(r.store);
  }
  TempDir dir_;
};

TEST_P(GroupCommit, ConcurrentBatchesShareOneTransaction) {
  constexpr int kFollowers = 7;
  GroupShaper shaper;
  auto store = Make(shaper.Hook());
  ASSERT_TRUE(store);
  std::vector<WriteResult> results(kFollowers + 1);
  std::vector<std::thread> threads;
  threads.emplace_back([&] { results[0] = store->Put("k/0", "v0"); });
  shaper.WaitFirstTaken();
  for (int i = 1; i <= kFollowers; ++i) {
    threads.emplace_back(
        [&, i] { results[i] = store->Put("k/" + std::to_string(i), "v" + std::to_string(i)); });
  }
  ASSERT_TRUE(WaitUntil([&] { return store->Counters().queued == kFollowers; }));
  shaper.Release();
  for (std::thread& t : threads) t.join();

  std::set<int64_t> revisions;
  for (int i = 0; i <= kFollowers; ++i) {
    SCOPED_TRACE(i);
    ASSERT_TRUE(results[i].ok()) << results[i].status.message;
    revisions.insert(results[i].revision);
    GetResult got = store->Get("k/" + std::to_string(i));
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(got.entry.value, "v" + std::to_string(i));
    EXPECT_EQ(got.entry.revision, results[i].revision);
  }
  EXPECT_EQ(revisions.size(), kFollowers + 1u) << "every batch keeps its own revision";
  EXPECT_EQ(*revisions.rbegin(), kFollowers + 1);
  EXPECT_EQ(store->Revision(), kFollowers + 1);
  const CommitCounters c = store->Counters();
  EXPECT_EQ(c.batches, kFollowers + 1);
  EXPECT_EQ(c.transactions, 2) << "the first batch alone, then the seven that queued behind it";
  EXPECT_EQ(c.queued, 0);
}

TEST_P(GroupCommit, AFailedComparisonFailsOnlyItsOwnBatch) {
  GroupShaper shaper;
  auto store = Make(shaper.Hook());
  ASSERT_TRUE(store);
  std::vector<std::vector<Op>> batches = {
      {Op::Put("first", "alone")},                       // the first group, rev 1
      {Op::Put("a", "1")},                               // rev 2
      {Op::Put("a", "stale", 7), Op::Put("side", "s")},  // conflict: side is not written either
      {Op::Put("new", "n", 0)},                          // rev 3
      {Op::Put("new", "m", 0)},                          // conflict: sees the batch before it
      {Op::Put("a", "2", 2), Op::Delete("first", 1)},    // rev 4: compares with rev 2 of the group
  };
  std::vector<WriteResult> results(batches.size());
  std::vector<std::thread> threads;
  threads.emplace_back([&] { results[0] = store->Commit(batches[0]); });
  shaper.WaitFirstTaken();
  // Started one at a time, so the group holds them in this order.
  for (std::size_t i = 1; i < batches.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = store->Commit(batches[i]); });
    ASSERT_TRUE(WaitUntil([&] { return store->Counters().queued == static_cast<int64_t>(i); }));
  }
  shaper.Release();
  for (std::thread& t : threads) t.join();

  struct Want {
    Code code;
    int64_t revision;
    std::string conflict_key, message;
  };
  const std::vector<Want> want = {
      {Code::kOk, 1, "", ""},
      {Code::kOk, 2, "", ""},
      {Code::kConflict, 0, "a", "a: revision is 2, expected 7"},
      {Code::kOk, 3, "", ""},
      {Code::kConflict, 0, "new", "new: revision is 3, expected 0"},
      {Code::kOk, 4, "", ""},
  };
  for (std::size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(CodeName(results[i].status.code), std::string(CodeName(want[i].code)));
    EXPECT_EQ(results[i].revision, want[i].revision);
    EXPECT_EQ(results[i].conflict_key, want[i].conflict_key);
    EXPECT_EQ(results[i].status.message, want[i].message);
  }
  EXPECT_EQ(store->Get("a").entry.value, "2");
  EXPECT_EQ(store->Get("a").entry.revision, 4);
  EXPECT_EQ(store->Get("new").entry.value, "n");
  EXPECT_EQ(store->Get("side").status.code, Code::kNotFound);
  EXPECT_EQ(store->Get("first").status.code, Code::kNotFound);
  EXPECT_EQ(store->Revision(), 4);
  EXPECT_EQ(store->Counters().batches, 4);
  EXPECT_EQ(store->Counters().transactions, 2);

  // A group in which every batch conflicts makes nothing durable: no transaction.
  EXPECT_EQ(store->Put("a", "x", 99).status.code, Code::kConflict);
  EXPECT_EQ(store->Counters().transactions, 2);
  EXPECT_EQ(store->Revision(), 4);
}

// Unshaped: real contention, every batch exactly once with its own revision (run under TSan).
TEST_P(GroupCommit, ManyConcurrentCommittersEachGetTheirOwnRevision) {
  constexpr int kThreads = 16, kEach = 20;
  auto store = Make({});
  ASSERT_TRUE(store);
  std::latch start(kThreads);
  std::vector<std::vector<int64_t>> revisions(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int i = 0; i < kEach; ++i) {
        const std::string key = "t" + std::to_string(t) + "/" + std::to_string(i);
        // Half of them compare-and-set on a key of their own, which must always hold.
        WriteResult w = i % 2 == 0 ? store->Put(key, "v") : store->Put(key, "v", 0);
        revisions[t].push_back(w.ok() ? w.revision : -1);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::set<int64_t> all;
  for (const auto& list : revisions) {
    for (std::size_t i = 1; i < list.size(); ++i) EXPECT_LT(list[i - 1], list[i]);
    all.insert(list.begin(), list.end());
  }
  EXPECT_EQ(all.size(), static_cast<std::size_t>(kThreads * kEach));
  EXPECT_EQ(*all.begin(), 1);
  EXPECT_EQ(*all.rbegin(), kThreads * kEach);
  EXPECT_EQ(store->List("t").entries.size(), static_cast<std::size_t>(kThreads * kEach));
  const CommitCounters c = store->Counters();
  EXPECT_EQ(c.batches, kThreads * kEach);
  EXPECT_GE(c.transactions, 1);
  EXPECT_LE(c.transactions, c.batches);
}

INSTANTIATE_TEST_SUITE_P(Backends, GroupCommit, ::testing::Values("sqlite", "memory"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

// A write that SQLite refuses inside the group's transaction (a trigger stands in for a full
// disk): every batch of the group fails with that error, none is written, and the store works
// again afterwards.
TEST(SqliteGroupCommit, AFailedTransactionFailsEveryBatchOfTheGroup) {
  TempDir dir;
  { ASSERT_TRUE(OpenSqliteStore(dir.db()).ok()); }
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(dir.db().c_str(), &raw), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(raw,
                           "CREATE TRIGGER refuse BEFORE INSERT ON kv WHEN NEW.key = 'boom' "
                           "BEGIN SELECT RAISE(ABORT, 'injected failure'); END;",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(raw);
  }
  GroupShaper shaper;
  OpenOptions options;
  options.on_group_taken = shaper.Hook();
  OpenResult r = OpenSqliteStore(dir.db(), options);
  ASSERT_TRUE(r.ok()) << r.status.message;
  Store& store = *r.store;
  std::vector<std::vector<Op>> batches = {
      {Op::Put("first", "alone")},  // the first group, committed
      {Op::Put("a", "1")},          // would commit, but shares the failing transaction
      {Op::Put("first", "x", 99)},  // would conflict; fails with the group's error instead
      {Op::Put("boom", "1")},       // refused by SQLite
      {Op::Put("c", "1", 0)},       // after the failure
  };
  std::vector<WriteResult> results(batches.size());
  std::vector<std::thread> threads;
  threads.emplace_back([&] { results[0] = store.Commit(batches[0]); });
  shaper.WaitFirstTaken();
  for (std::size_t i = 1; i < batches.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = store.Commit(batches[i]); });
    ASSERT_TRUE(WaitUntil([&] { return store.Counters().queued == static_cast<int64_t>(i); }));
  }
  shaper.Release();
  for (std::thread& t : threads) t.join();

  ASSERT_TRUE(results[0].ok()) << results[0].status.message;
  for (std::size_t i = 1; i < batches.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(results[i].status.code, Code::kIo);
    EXPECT_EQ(results[i].status.message, dir.db() + ": write boom: injected failure");
    EXPECT_EQ(results[i].revision, 0);
    EXPECT_EQ(results[i].conflict_key, "");
  }
  EXPECT_EQ(store.Revision(), 1);
  EXPECT_EQ(store.List("").entries.size(), 1u);
  EXPECT_EQ(store.Counters().batches, 1);
  EXPECT_EQ(store.Counters().transactions, 1);
  EXPECT_TRUE(r.health->Current().ok()) << "a refused write is not a sticky failure";
  EXPECT_EQ(store.Put("a", "1").revision, 2);
}

}  // namespace
}  // namespace fleetwave::store
