// The Store semantics every backend must share (SQLite, memory, etcd), run against each
// implementation: reads and writes, the store revision, byte-ordered prefix listing, and
// compare-and-set failing a whole batch. The etcd case runs on a real etcd this process starts
// (tests/store/etcd_process.h), one fresh prefix per test.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "store/etcd_store.h"
#include "store/memory_store.h"
#include "store/sqlite_store.h"
#include "tests/store/child_process.h"
#include "tests/store/etcd_process.h"

namespace fleetwave::store {
namespace {

using testing::EtcdCluster;
using testing::TempDir;

// One etcd for the whole process (started at the first etcd case, killed at exit).
EtcdCluster& SharedEtcd() {
  static EtcdCluster etcd(1);
  return etcd;
}

std::vector<std::string> Keys(const ListResult& list) {
  std::vector<std::string> out;
  for (const Entry& e : list.entries) out.push_back(e.key);
  return out;
}

class StoreContract : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<Store> Make() {
    if (GetParam() == "memory") return std::make_unique<MemoryStore>();
    if (GetParam() == "etcd") {
      static int prefixes = 0;
      EtcdCluster& etcd = SharedEtcd();
      EXPECT_TRUE(etcd.ok()) << etcd.error();
      if (!etcd.ok()) return nullptr;
      OpenResult r = OpenEtcdStore(etcd.Url("/contract-" + std::to_string(++prefixes)));
      EXPECT_TRUE(r.ok()) << r.status.message;
      return std::move(r.store);
    }
    OpenResult r = OpenSqliteStore(dir_.db());
    EXPECT_TRUE(r.ok()) << r.status.message;
    return std::move(r.store);
  }
  TempDir dir_;
};

TEST_P(StoreContract, PutGetDeleteAndTheStoreRevision) {
  auto store = Make();
  ASSERT_TRUE(store);
  EXPECT_EQ(store->Revision(), 0);
  EXPECT_EQ(store->Get("a").status.code, Code::kNotFound);

  WriteResult w1 = store->Put("a", "one");
  ASSERT_TRUE(w1.ok()) << w1.status.message;
  EXPECT_EQ(w1.revision, 1);
  WriteResult w2 = store->Commit({Op::Put("b", std::string("bin\0ary", 7)), Op::Put("a", "uno")});
  EXPECT_EQ(w2.revision, 2);

  GetResult a = store->Get("a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.entry.value, "uno");
  EXPECT_EQ(a.entry.revision, 2);
  EXPECT_EQ(store->Get("b").entry.value, std::string("bin\0ary", 7)) << "values are bytes";

  EXPECT_EQ(store->Delete("a").revision, 3);
  EXPECT_EQ(store->Get("a").status.code, Code::kNotFound);
  EXPECT_EQ(store->Revision(), 3);
  EXPECT_EQ(store->Commit({}).revision, 3) << "an empty batch changes nothing";
  EXPECT_EQ(store->Put("", "x").status.code, Code::kInvalid);
}

TEST_P(StoreContract, ListByPrefixIsExactAndOrdered) {
  auto store = Make();
  ASSERT_TRUE(store);
  const std::string high = "a/\xff\xff";
  for (const std::string key : {"a/2", "a/1", "a0", "ab", "a", "b/1", high.c_str()}) {
    ASSERT_TRUE(store->Put(key, "v").ok());
  }
  struct Case {
    std::string name, prefix;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"children of a/", "a/", {"a/1", "a/2", high}},
      {"bare a matches every key starting with a", "a", {"a", "a/1", "a/2", high, "a0", "ab"}},
      {"prefix ending in 0xff", "a/\xff", {high}},
      {"no match", "c", {}},
      {"everything", "", {"a", "a/1", "a/2", high, "a0", "ab", "b/1"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ListResult list = store->List(c.prefix);
    ASSERT_TRUE(list.ok());
    EXPECT_EQ(Keys(list), c.want);
    EXPECT_EQ(list.revision, 7);
  }
}

TEST_P(StoreContract, CompareAndSetFailsTheWholeBatch) {
  auto store = Make();
  ASSERT_TRUE(store);
  ASSERT_EQ(store->Put("pin", "r1").revision, 1);
  ASSERT_EQ(store->Put("other", "x").revision, 2);
  struct Case {
    std::string name;
    std::vector<Op> batch;
    Code want;
    std::string conflict_key;
  };
  // Each case runs against the state the previous ones left.
  const std::vector<Case> cases = {
      {"create only if absent, but present", {Op::Put("pin", "r2", 0)}, Code::kConflict, "pin"},
      {"stale revision; the unconditional put beside it is not applied either",
       {Op::Put("side", "s"), Op::Put("pin", "r2", 2)},
       Code::kConflict,
       "pin"},
      {"current revision", {Op::Put("pin", "r2", 1)}, Code::kOk, ""},
      {"the old revision is stale now", {Op::Put("pin", "r3", 1)}, Code::kConflict, "pin"},
      {"create if absent", {Op::Put("new", "n", 0)}, Code::kOk, ""},
      {"delete at a wrong revision", {Op::Delete("other", 99)}, Code::kConflict, "other"},
      {"delete at its revision", {Op::Delete("other", 2)}, Code::kOk, ""},
      {"compare with a key that no longer exists",
       {Op::Put("other", "y", 2)},
       Code::kConflict,
       "other"},
      {"comparisons see the state before the batch",
       {Op::Put("pin", "r4", 3), Op::Put("pin", "r5", 3)},
       Code::kOk,
       ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const int64_t before = store->Revision();
    WriteResult w = store->Commit(c.batch);
    EXPECT_EQ(CodeName(w.status.code), std::string(CodeName(c.want))) << w.status.message;
    EXPECT_EQ(w.conflict_key, c.conflict_key);
    EXPECT_EQ(store->Revision(), c.want == Code::kOk ? before + 1 : before);
  }
  EXPECT_EQ(store->Get("side").status.code, Code::kNotFound);
  EXPECT_EQ(store->Get("pin").entry.value, "r5");
  EXPECT_EQ(store->Put("pin", "x", 1).status.message, "pin: revision is 6, expected 1");
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreContract, ::testing::Values("sqlite", "memory", "etcd"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(MemoryStore, RecordsEachCommittedBatch) {
  MemoryStore store;
  ASSERT_TRUE(store.Put("a", "1").ok());
  ASSERT_FALSE(store.Put("a", "2", 0).ok());
  ASSERT_TRUE(store.Commit({Op::Put("b", "1"), Op::Delete("a")}).ok());
  const auto commits = store.commits();
  ASSERT_EQ(commits.size(), 2u) << "a failed batch is not a commit";
  EXPECT_EQ(commits[1].size(), 2u);
  EXPECT_EQ(commits[1][1].kind, Op::Kind::kDelete);
}

}  // namespace
}  // namespace fleetwave::store
