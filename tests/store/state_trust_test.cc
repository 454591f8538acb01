// State you can trust (issue 30), on real SQLite files: a database that cannot be read opens
// unhealthy and refuses every call (the daemon says why and acts on nothing); a database that
// vanished, was emptied or was replaced is refused, naming both files, unless the empty state
// is accepted; the lock is on the database file itself, so a symlink from another state
// directory cannot share it; a stored value of the wrong shape is an error naming its key.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "store/sqlite_store.h"
#include "store/state.h"
#include "store/state_identity.h"
#include "store/state_lock.h"
#include "tests/store/child_process.h"

namespace fleetwave::store {
namespace {

namespace fs = std::filesystem;
using testing::Child;
using testing::Reporter;
using testing::TempDir;

void RawSql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err != nullptr ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A store with a stored pause and enough apps to span many pages, closed (checkpointed: the
// WAL is folded into the main file).
void WriteStateWithAPause(const std::string& db) {
  OpenResult opened = OpenSqliteStore(db);
  ASSERT_TRUE(opened.ok()) << opened.status.message;
  State state(*opened.store);
  StateBatch batch;
  batch.PutRollout("guestbook", {{"paused", true}, {"step", 1}});
  for (int i = 0; i < 400; ++i) {
    batch.PutAppStatus("guestbook", "app-" + std::to_string(i),
                       {{"application", "app-" + std::to_string(i)},
                        {"status", "Healthy"},
                        {"message", std::string(200, 'x')}});
  }
  ASSERT_TRUE(state.Commit(batch).ok());
}

// Overwrites one whole page in the middle of the file with random bytes.
void CorruptTheMiddle(const std::string& db) {
  const auto size = fs::file_size(db);
  ASSERT_GT(size, 16u * 4096u);
  const auto offset = (size / 2 / 4096) * 4096;
  std::mt19937 random(30);
  std::string junk(4096, '\0');
  for (char& c : junk) c = static_cast<char>(random());
  std::fstream f(db, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
}

void RemoveDatabase(const std::string& db) {
  for (const char* suffix : {"", "-wal", "-shm"}) {
    std::error_code ec;
    fs::remove(db + suffix, ec);
  }
}

// Every call of an unusable store fails with the reason, naming the database.
void ExpectRefusesEveryCall(Store& store, const std::string& db, const std::string& reason) {
  GetResult got = store.Get(keys::Rollout("guestbook"));
  EXPECT_EQ(got.status.code, Code::kIo);
  EXPECT_TRUE(Contains(got.status.message, db)) << got.status.message;
  EXPECT_TRUE(Contains(got.status.message, reason)) << got.status.message;
  EXPECT_EQ(store.List("").status.code, Code::kIo);
  EXPECT_EQ(store.Put("k", "v").status.code, Code::kIo);
  EXPECT_EQ(store.Revision(), -1);
}

TEST(StoreTrust, BytesOverwrittenInTheMiddleOpenUnhealthyAndEveryCallFails) {
  TempDir dir;
  WriteStateWithAPause(dir.db());
  CorruptTheMiddle(dir.db());
  const auto before = fs::file_size(dir.db());

  OpenResult opened = OpenSqliteStore(dir.db());
  // Not an open failure: the daemon keeps its API up to say why.
  ASSERT_TRUE(opened.ok()) << opened.status.message;
  ASSERT_TRUE(opened.health);
  const Status problem = opened.health->Current();
  EXPECT_FALSE(problem.ok());
  EXPECT_TRUE(Contains(problem.message, dir.db() + ": quick_check found damage"))
      << problem.message;
  EXPECT_EQ(problem.message.find('\n'), std::string::npos) << "one line for logs and the API";
  ExpectRefusesEveryCall(*opened.store, dir.db(), "quick_check found damage");
  opened.store.reset();
  EXPECT_EQ(fs::file_size(dir.db()), before);  // nothing was written to it
}

TEST(StoreTrust, ADroppedTableOpensUnhealthyNamingTheTable) {
  TempDir dir;
  WriteStateWithAPause(dir.db());
  RawSql(dir.db(), "DROP TABLE kv;");

  OpenResult opened = OpenSqliteStore(dir.db());
  ASSERT_TRUE(opened.ok()) << opened.status.message;
  const Status problem = opened.health->Current();
  EXPECT_EQ(problem.message, dir.db() + ": cannot be read: no such table: kv");
  ExpectRefusesEveryCall(*opened.store, dir.db(), "no such table: kv");
}

TEST(StoreTrust, NotADatabaseOpensUnhealthy) {
  TempDir dir;
  WriteStateWithAPause(dir.db());
  {
    std::ofstream f(dir.db(), std::ios::binary | std::ios::trunc);
    f << std::string(8192, 'z');
  }
  OpenResult opened = OpenSqliteStore(dir.db());
  ASSERT_TRUE(opened.ok()) << opened.status.message;
  EXPECT_EQ(opened.health->Current().message,
            dir.db() + ": cannot be read: file is not a database");
}

TEST(StoreTrust, DamageFoundWhileRunningIsReportedOnceAndSticks) {
  TempDir dir;
  OpenResult opened = OpenSqliteStore(dir.db());
  ASSERT_TRUE(opened.ok()) << opened.status.message;
  std::vector<Status> changes;
  opened.health->Subscribe([&changes](const Status& s) { changes.push_back(s); });
  EXPECT_TRUE(changes.empty());  // healthy: nothing to tell
  ASSERT_TRUE(opened.store->Put("k", "v").ok());

  RawSql(dir.db(), "DROP TABLE kv;");  // by hand, behind the daemon's back
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(opened.store->Get("k").status.code, Code::kIo);
    EXPECT_FALSE(opened.store->Put("k", "w").ok());
  }
  ASSERT_EQ(changes.size(), 1u);  // once per change, not once per call
  EXPECT_EQ(changes[0].message, dir.db() + ": get k: no such table: kv");
  // Sticky: the calls after it are refused with the same reason.
  EXPECT_EQ(opened.store->Get("k").status.message, changes[0].message);
}

TEST(StoreTrust, ATransientFailureClearsOnTheNextSuccessAndBothChangesAreTold) {
  StoreHealth health;
  std::vector<Status> changes;
  health.Subscribe([&changes](const Status& s) { changes.push_back(s); });
  health.Report({Code::kIo, "/s/state.db: commit: database or disk is full"});
  health.Report({Code::kIo, "/s/state.db: commit: database or disk is full"});
  health.Report({Code::kNotFound, "k: not found"});  // an answer: the store works again
  Status why;
  EXPECT_FALSE(health.Blocked(&why));
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_FALSE(changes[0].ok());
  EXPECT_TRUE(changes[1].ok());
  // A late subscriber is told the current problem at once.
  health.Report({Code::kIo, "/s/state.db: get k: database disk image is malformed"}, true);
  std::vector<Status> late;
  health.Subscribe([&late](const Status& s) { late.push_back(s); });
  ASSERT_EQ(late.size(), 1u);
  EXPECT_EQ(late[0].message, "/s/state.db: get k: database disk image is malformed");
  health.Report({});  // a success does not clear a sticky failure
  EXPECT_TRUE(health.Blocked(&why));
}

TEST(StoreTrust, TheFirstStartCreatesTheMarkerAndTheSecondMatchesIt) {
  TempDir dir;
  std::string identity;
  {
    OpenResult opened = OpenSqliteStore(dir.db());
    ASSERT_TRUE(opened.ok()) << opened.status.message;
    ASSERT_EQ(opened.notes.size(), 1u);
    EXPECT_TRUE(Contains(opened.notes[0], "new state database")) << opened.notes[0];
    const Marker marker = ReadMarker(dir.path() + "/state-id");
    ASSERT_TRUE(marker.exists);
    identity = marker.identity;
    EXPECT_EQ(identity.size(), 32u);
  }
  OpenResult again = OpenSqliteStore(dir.db());
  ASSERT_TRUE(again.ok()) << again.status.message;
  EXPECT_TRUE(again.notes.empty());
  EXPECT_EQ(ReadMarker(dir.path() + "/state-id").identity, identity);
}

TEST(StoreTrust, AZeroByteDatabaseWithAMarkerIsRefusedAndLeftAlone) {
  TempDir dir;
  WriteStateWithAPause(dir.db());
  RemoveDatabase(dir.db());
  { std::ofstream truncate(dir.db(), std::ios::trunc); }

  OpenResult refused = OpenSqliteStore(dir.db());
  EXPECT_EQ(refused.status.code, Code::kIdentity);
  const std::string& m = refused.status.message;
  EXPECT_TRUE(Contains(m, dir.db() + " is empty (0 bytes), but " + dir.path() + "/state-id says"))
      << m;
  EXPECT_TRUE(Contains(m, "--accept-empty-state")) << m;
  EXPECT_EQ(fs::file_size(dir.db()), 0u);

  // Accepted: an empty store with a new identity, logged; the next start is ordinary.
  const std::string old_identity = ReadMarker(dir.path() + "/state-id").identity;
  {
    OpenResult accepted = OpenSqliteStore(dir.db(), OpenOptions{.accept_empty_state = true});
    ASSERT_TRUE(accepted.ok()) << accepted.status.message;
    ASSERT_EQ(accepted.notes.size(), 1u);
    EXPECT_TRUE(Contains(accepted.notes[0], "--accept-empty-state")) << accepted.notes[0];
    Loaded<AppSetRecords> set = State(*accepted.store).LoadAppSet("guestbook");
    ASSERT_TRUE(set.ok());
    EXPECT_FALSE(set.value.rollout.has_value());
  }
  EXPECT_NE(ReadMarker(dir.path() + "/state-id").identity, old_identity);
  EXPECT_TRUE(OpenSqliteStore(dir.db()).ok());
}

TEST(StoreTrust, AMissingDatabaseWithAMarkerIsRefusedAndNotCreated) {
  TempDir dir;
  WriteStateWithAPause(dir.db());
  RemoveDatabase(dir.db());

  OpenResult refused = OpenSqliteStore(dir.db());
  EXPECT_EQ(refused.status.code, Code::kIdentity);
  EXPECT_TRUE(Contains(refused.status.message,
                       dir.db() + " is missing, but " + dir.path() + "/state-id says"))
      << refused.status.message;
  EXPECT_FALSE(fs::exists(dir.db()));
}

TEST(StoreTrust, AnotherDatabaseIsRefusedAndALostMarkerIsRewritten) {
  TempDir a, b;
  WriteStateWithAPause(a.db());
  WriteStateWithAPause(b.db());
  RemoveDatabase(a.db());
  fs::copy_file(b.db(), a.db());
  OpenResult refused = OpenSqliteStore(a.db());
  EXPECT_EQ(refused.status.code, Code::kIdentity);
  EXPECT_TRUE(Contains(refused.status.message, a.db() + " has identity "))
      << refused.status.message;

  // b's marker lost: b's database still says which it is.
  const std::string identity = ReadMarker(b.path() + "/state-id").identity;
  fs::remove(b.path() + "/state-id");
  OpenResult rewritten = OpenSqliteStore(b.db());
  ASSERT_TRUE(rewritten.ok()) << rewritten.status.message;
  ASSERT_EQ(rewritten.notes.size(), 1u);
  EXPECT_TRUE(Contains(rewritten.notes[0], "was missing; rewritten")) << rewritten.notes[0];
  EXPECT_EQ(ReadMarker(b.path() + "/state-id").identity, identity);
}

TEST(StoreTrust, AnEmptyMarkerIsRefused) {
  TempDir dir;
  WriteStateWithAPause(dir.db());
  { std::ofstream truncate(dir.path() + "/state-id", std::ios::trunc); }
  OpenResult refused = OpenSqliteStore(dir.db());
  EXPECT_EQ(refused.status.code, Code::kIdentity);
  EXPECT_TRUE(Contains(refused.status.message, dir.path() + "/state-id holds no identity"))
      << refused.status.message;
}

TEST(StoreTrust, ASymlinkedDatabaseIsLockedOnTheFileItself) {
  TempDir a, b;
  const std::string db = a.db();
  Child holder("", [db](const Reporter& report, int release_fd) {
    OpenResult r = OpenSqliteStore(db);
    report.Line(r.ok() ? "locked" : "failed: " + r.status.message);
    report.WaitForRelease(release_fd);
  });
  ASSERT_EQ(holder.ReadLine(), "locked");
  // b is another state directory (its own <dir>/lock), its state.db a link to a's.
  fs::create_symlink(db, b.db());
  OpenResult second = OpenSqliteStore(b.db());
  EXPECT_EQ(second.status.code, Code::kLocked);
  EXPECT_EQ(second.status.message, "another fleetwave (pid " + std::to_string(holder.pid()) +
                                       ") holds the state database " + ResolveDatabasePath(db) +
                                       " (configured as " + b.db() + ")");
  // A hard link is the same file too.
  TempDir c;
  fs::create_hard_link(db, c.db());
  EXPECT_EQ(OpenSqliteStore(c.db()).status.code, Code::kLocked);
  EXPECT_EQ(holder.Wait(), 0);
}

TEST(StoreTrust, ResolvingFollowsDanglingAndRelativeLinks) {
  TempDir a, b;
  fs::create_symlink("../" + fs::path(a.path()).filename().string() + "/state.db", b.db());
  EXPECT_EQ(ResolveDatabasePath(b.db()), fs::canonical(a.path()).string() + "/state.db");
}

TEST(StoreTrust, AStoredValueOfTheWrongShapeIsAnErrorNamingItsKey) {
  TempDir dir;
  OpenResult opened = OpenSqliteStore(dir.db());
  ASSERT_TRUE(opened.ok()) << opened.status.message;
  State state(*opened.store);
  ASSERT_TRUE(opened.store->Put(keys::Rollout("guestbook"), "\"paused\"").ok());
  Loaded<AppSetRecords> set = state.LoadAppSet("guestbook");
  EXPECT_EQ(set.status.code, Code::kCorrupt);
  EXPECT_EQ(set.status.message,
            "appsets/guestbook/rollout: stored value must be an object, not a string");

  ASSERT_TRUE(opened.store->Put(keys::Rollout("guestbook"), "{}").ok());
  ASSERT_TRUE(opened.store->Put(keys::AppliedHash("guestbook", "a"), "5").ok());
  set = state.LoadAppSet("guestbook");
  EXPECT_EQ(set.status.message,
            "appsets/guestbook/applied/a: stored value must be a string, not a number");

  ASSERT_TRUE(opened.store->Put(keys::SetDeletion("old"), "[]").ok());
  EXPECT_EQ(state.LoadDeletions().status.message,
            "deletions/old/set: stored value must be an object, not an array");
}

}  // namespace
}  // namespace fleetwave::store
