// What only the SQLite store has: WAL mode, schema versions (migration from version 1, a newer
// schema refused), the state-directory lock, and a lost database opening as an empty store.
// The Store semantics both implementations share are in store_contract_test.cc.
#include "store/sqlite_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <vector>

#include "store/state.h"
#include "tests/store/child_process.h"

namespace fleetwave::store {
namespace {

using testing::Child;
using testing::Reporter;
using testing::TempDir;

// Runs SQL on a database file directly, as an older fleetwave or an operator would.
void RawSql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err != nullptr ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

std::string RawPragma(const std::string& path, const std::string& pragma) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  std::string out;
  if (sqlite3_prepare_v2(db, ("PRAGMA " + pragma).c_str(), -1, &s, nullptr) == SQLITE_OK &&
      sqlite3_step(s) == SQLITE_ROW) {
    out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return out;
}

class SqliteStoreTest : public ::testing::Test {
 protected:
  std::unique_ptr<Store> Open() {
    OpenResult r = OpenSqliteStore(dir_.db());
    EXPECT_TRUE(r.ok()) << r.status.message;
    return std::move(r.store);
  }
  TempDir dir_;
};

TEST_F(SqliteStoreTest, DatabaseIsInWalModeAtTheCurrentSchema) {
  { ASSERT_TRUE(Open()); }
  EXPECT_EQ(RawPragma(dir_.db(), "journal_mode"), "wal");
  EXPECT_EQ(RawPragma(dir_.db(), "user_version"), std::to_string(kSchemaVersion));
}

TEST_F(SqliteStoreTest, MigratesAVersionOneDatabaseKeepingItsData) {
  // Schema version 1 as that release created it: keys and values, no revisions.
  RawSql(dir_.db(),
         "CREATE TABLE kv (key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;"
         "INSERT INTO kv VALUES ('appsets/guestbook/pin/a', '{\"revision\":\"abc\"}');"
         "INSERT INTO kv VALUES ('inputs/fleetwave.yaml', 'state: x');"
         "PRAGMA user_version = 1;");
  auto store = Open();
  ASSERT_TRUE(store);
  EXPECT_EQ(store->Revision(), 1);
  ListResult all = store->List("");
  ASSERT_EQ(all.entries.size(), 2u);
  EXPECT_EQ(all.entries[0].key, "appsets/guestbook/pin/a");
  EXPECT_EQ(all.entries[0].value, "{\"revision\":\"abc\"}");
  EXPECT_EQ(all.entries[0].revision, 1);
  EXPECT_EQ(all.entries[1].value, "state: x");
  // Compare-and-set works on migrated keys.
  EXPECT_EQ(store->Put("appsets/guestbook/pin/a", "{}", 1).revision, 2);
  store.reset();
  EXPECT_EQ(RawPragma(dir_.db(), "user_version"), std::to_string(kSchemaVersion));
}

TEST_F(SqliteStoreTest, ANewerSchemaIsRefusedAndLeftUntouched) {
  { ASSERT_TRUE(Open()); }
  RawSql(dir_.db(), "PRAGMA user_version = 7;");
  OpenResult r = OpenSqliteStore(dir_.db());
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status.code, Code::kSchema);
  EXPECT_EQ(r.status.message, dir_.db() +
                                  ": schema version 7 is newer than this fleetwave supports (" +
                                  std::to_string(kSchemaVersion) + ")");
  EXPECT_EQ(RawPragma(dir_.db(), "user_version"), "7");
}

TEST_F(SqliteStoreTest, ASecondProcessOnTheStateDirectoryIsRefusedWithTheHoldersPid) {
  const std::string db = dir_.db();
  Child holder("", [db](const Reporter& report, int release_fd) {
    OpenResult r = OpenSqliteStore(db);
    report.Line(r.ok() ? "locked" : "failed: " + r.status.message);
    report.WaitForRelease(release_fd);  // holds the store open until the test is done
  });
  ASSERT_EQ(holder.ReadLine(), "locked");

  OpenResult second = OpenSqliteStore(db);
  EXPECT_FALSE(second.ok());
  EXPECT_EQ(second.status.code, Code::kLocked);
  EXPECT_EQ(second.status.message, "another fleetwave holds " + dir_.path() + "/lock (pid " +
                                       std::to_string(holder.pid()) + ")");

  EXPECT_EQ(holder.Wait(), 0);
  // The holder is gone: the lock went with it.
  EXPECT_TRUE(OpenSqliteStore(db).ok());
}

TEST_F(SqliteStoreTest, ASecondOpenInTheSameProcessIsRefusedToo) {
  auto first = Open();
  ASSERT_TRUE(first);
  OpenResult second = OpenSqliteStore(dir_.db());
  EXPECT_EQ(second.status.message, "another fleetwave holds " + dir_.path() + "/lock (pid " +
                                       std::to_string(::getpid()) + ")");
}

// Accepted by the operator (state_trust_test.cc: refused without it).
TEST_F(SqliteStoreTest, ALostDatabaseAcceptedOpensAsAnEmptyConsistentStore) {
  {
    auto store = Open();
    ASSERT_TRUE(store);
    State state(*store);
    StateBatch batch;
    batch.PutPin("guestbook", "a", {{"revision", "abc"}})
        .PutOperation("guestbook", "a", {{"phase", "Running"}})
        .PutDeletion("old-set", "", {{"phase", "Pending"}});
    ASSERT_TRUE(state.Commit(batch).ok());
  }
  for (const char* suffix : {"", "-wal", "-shm"}) {
    std::error_code ec;
    std::filesystem::remove(dir_.db() + suffix, ec);
  }
  OpenResult reopened = OpenSqliteStore(dir_.db(), OpenOptions{.accept_empty_state = true});
  ASSERT_TRUE(reopened.ok()) << reopened.status.message;
  std::unique_ptr<Store> store = std::move(reopened.store);
  EXPECT_EQ(store->Revision(), 0);
  EXPECT_TRUE(store->List("").entries.empty());
  // The typed view of an empty store: nothing pinned, nothing running, nothing to delete.
  State state(*store);
  Loaded<AppSetRecords> set = state.LoadAppSet("guestbook");
  ASSERT_TRUE(set.ok());
  EXPECT_TRUE(set.value.pins.empty());
  EXPECT_TRUE(set.value.operations.empty());
  EXPECT_FALSE(set.value.rollout.has_value());
  Loaded<std::vector<PendingDeletion>> deletions = state.LoadDeletions();
  ASSERT_TRUE(deletions.ok());
  EXPECT_TRUE(deletions.value.empty());
  // And it works as a store from there.
  EXPECT_EQ(store->Put("k", "v").revision, 1);
}

TEST(OpenStore, ReadsTheStateUrl) {
  TempDir dir;
  OpenResult ok = OpenStore("sqlite://" + dir.db());
  EXPECT_TRUE(ok.ok()) << ok.status.message;
  OpenResult other = OpenStore("redis://127.0.0.1:6379");
  EXPECT_EQ(other.status.code, Code::kInvalid);
  EXPECT_EQ(other.status.message,
            "state: unsupported URL \"redis://127.0.0.1:6379\" (supported: "
            "sqlite:///path/state.db, etcd://HOST:PORT[,HOST:PORT...]/PREFIX, etcds://...)");
  OpenResult etcd = OpenStore("etcd://127.0.0.1:2379");
  EXPECT_EQ(etcd.status.code, Code::kInvalid);
  EXPECT_EQ(etcd.status.message,
            "state: \"etcd://127.0.0.1:2379\": no /PREFIX after the endpoints (expected "
            "etcd://HOST:PORT[,HOST:PORT...]/PREFIX, or etcds:// for TLS)");
  OpenResult missing_dir = OpenSqliteStore(dir.path() + "/nope/state.db");
  EXPECT_EQ(missing_dir.status.code, Code::kIo);
  EXPECT_EQ(missing_dir.status.message,
            "cannot open " + dir.path() + "/nope/lock: No such file or directory");
}

}  // namespace
}  // namespace fleetwave::store
