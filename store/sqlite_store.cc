#include "store/sqlite_store.h"

#include <sqlite3.h>

#include <filesystem>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "store/failpoint.h"
#include "store/group_commit.h"
#include "store/state_identity.h"
#include "store/state_lock.h"
#include "store/store_health.h"

namespace fleetwave::store {
namespace {

// Migration N takes schema N-1 to N. Append only: a released migration never changes, since
// databases in the field already ran it.
const std::vector<const char*> kMigrations = {
    // 0 -> 1: keys and values.
    "CREATE TABLE kv (key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;",
    // 1 -> 2: a revision per key and one store revision, for compare-and-set (etcd's model).
    // Keys carried over from version 1 get revision 1, and the store starts at 1 if any exist.
    "ALTER TABLE kv ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;"
    "CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;"
    "INSERT INTO meta (name, value) SELECT 'revision', CASE WHEN COUNT(*) = 0 THEN 0 ELSE 1 END "
    "FROM kv;",
    // 2 -> 3: the database's identity (state_identity.h), matched against <dir>/state-id.
    "CREATE TABLE info (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;",
};
static_assert(kSchemaVersion == 3, "add the migration to kMigrations");

// The schema version that stores the identity.
constexpr int kIdentityVersion = 3;

// SQLite's verdict that the file itself cannot be trusted: corrupt pages, not a database, or a
// table of the schema missing (dropped by hand). Such a failure is sticky (store_health.h).
bool Unreadable(sqlite3* db) {
  if (db == nullptr) return false;
  const int code = sqlite3_errcode(db) & 0xff;
  if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) return true;
  const std::string message = sqlite3_errmsg(db);
  return code == SQLITE_ERROR &&
         (message.rfind("no such table", 0) == 0 || message.rfind("no such column", 0) == 0);
}

struct StmtDeleter {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Stmt = std::unique_ptr<sqlite3_stmt, StmtDeleter>;

// The smallest string greater than every string starting with `prefix`, or "" if none
// (prefix all 0xff): the exclusive upper bound of a prefix scan in byte order.
std::string PrefixEnd(std::string prefix) {
  while (!prefix.empty() && static_cast<unsigned char>(prefix.back()) == 0xff) prefix.pop_back();
  if (!prefix.empty()) prefix.back() = static_cast<char>(prefix.back() + 1);
  return prefix;
}

class SqliteStore final : public Store {
 public:
  // `db` null: the database could not be used at open; `health` is stuck on why, and every
  // call returns that.
  SqliteStore(sqlite3* db, std::string path, std::vector<std::unique_ptr<StateLock>> locks,
              std::shared_ptr<StoreHealth> health, GroupCommitter::GroupTaken on_group_taken)
      : db_(db),
        path_(std::move(path)),
        locks_(std::move(locks)),
        health_(std::move(health)),
        committer_([this](const std::vector<GroupedBatch*>& group) { return CommitGroup(group); },
                   std::move(on_group_taken)) {}
  ~SqliteStore() override {
    if (db_ != nullptr) sqlite3_close_v2(db_);
  }

  GetResult Get(const std::string& key) override;
  ListResult List(const std::string& prefix) override;
  WriteResult Commit(const std::vector<Op>& ops) override;
  int64_t Revision() override;
  CommitCounters Counters() override { return committer_.Counters(); }

 private:
  // One transaction for the group (the committer's leader calls it); sets every result.
  bool CommitGroup(const std::vector<GroupedBatch*>& group);
  // The failure of the current call, reported to the health (sticky when the file itself
  // cannot be trusted).
  Status Error(const std::string& what) {
    Status status{Code::kIo, path_ + ": " + what + ": " + sqlite3_errmsg(db_)};
    health_->Report(status, Unreadable(db_));
    return status;
  }
  // The health's sticky failure, if any: the call must return it without touching the file.
  bool Blocked(Status* why) const { return health_->Blocked(why); }
  void Succeeded() { health_->Report(Status{}); }
  bool Prepare(const char* sql, Stmt& out) {
    sqlite3_stmt* s = nullptr;
    const int rc = sqlite3_prepare_v2(db_, sql, -1, &s, nullptr);
    out.reset(s);
    return rc == SQLITE_OK;
  }
  bool Exec(const char* sql) {
    return sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
  }
  // The store revision, or -1 on error. REQUIRES: mu_ held.
  int64_t ReadRevision();
  // The key's revision (0 if absent), or -1 on error. REQUIRES: mu_ held.
  int64_t KeyRevision(const std::string& key);

  std::mutex mu_;
  sqlite3* db_;
  const std::string path_;
  std::vector<std::unique_ptr<StateLock>> locks_;  // released after the database is closed
  std::shared_ptr<StoreHealth> health_;
  GroupCommitter committer_;  // last: its leader calls into everything above
};

void BindText(sqlite3_stmt* s, int i, const std::string& v) {
  sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}
void BindBlob(sqlite3_stmt* s, int i, const std::string& v) {
  sqlite3_bind_blob(s, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}
std::string ColumnBytes(sqlite3_stmt* s, int i) {
  const void* p = sqlite3_column_blob(s, i);
  const int n = sqlite3_column_bytes(s, i);
  return p == nullptr ? std::string() : std::string(static_cast<const char*>(p), n);
}

int64_t SqliteStore::ReadRevision() {
  Stmt s;
  if (!Prepare("SELECT value FROM meta WHERE name = 'revision'", s)) return -1;
  if (sqlite3_step(s.get()) != SQLITE_ROW) return -1;
  return sqlite3_column_int64(s.get(), 0);
}

int64_t SqliteStore::KeyRevision(const std::string& key) {
  Stmt s;
  if (!Prepare("SELECT revision FROM kv WHERE key = ?1", s)) return -1;
  BindText(s.get(), 1, key);
  const int rc = sqlite3_step(s.get());
  if (rc == SQLITE_DONE) return 0;
  if (rc != SQLITE_ROW) return -1;
  return sqlite3_column_int64(s.get(), 0);
}

GetResult SqliteStore::Get(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  GetResult out;
  if (Blocked(&out.status)) return out;
  Stmt s;
  if (!Prepare("SELECT value, revision FROM kv WHERE key = ?1", s)) {
    out.status = Error("get " + key);
    return out;
  }
  BindText(s.get(), 1, key);
  const int rc = sqlite3_step(s.get());
  if (rc == SQLITE_DONE) {
    Succeeded();
    out.status = {Code::kNotFound, key + ": not found"};
  } else if (rc == SQLITE_ROW) {
    Succeeded();
    out.entry = {key, ColumnBytes(s.get(), 0), sqlite3_column_int64(s.get(), 1)};
  } else {
    out.status = Error("get " + key);
  }
  return out;
}

ListResult SqliteStore::List(const std::string& prefix) {
  std::lock_guard<std::mutex> lock(mu_);
  ListResult out;
  if (Blocked(&out.status)) return out;
  const std::string end = PrefixEnd(prefix);
  Stmt s;
  // One read transaction: the entries and the revision are one consistent view.
  if (!Exec("BEGIN") ||
      !Prepare(end.empty() ? "SELECT key, value, revision FROM kv WHERE key >= ?1 ORDER BY key"
                           : "SELECT key, value, revision FROM kv WHERE key >= ?1 AND key < ?2 "
                             "ORDER BY key",
               s)) {
    out.status = Error("list " + prefix);
    Exec("ROLLBACK");
    return out;
  }
  BindText(s.get(), 1, prefix);
  if (!end.empty()) BindText(s.get(), 2, end);
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    out.entries.push_back(
        {ColumnBytes(s.get(), 0), ColumnBytes(s.get(), 1), sqlite3_column_int64(s.get(), 2)});
  }
  s.reset();
  out.revision = ReadRevision();
  if (rc != SQLITE_DONE || out.revision < 0) {
    out.status = Error("list " + prefix);
    out.entries.clear();
  } else {
    Succeeded();
  }
  Exec("COMMIT");
  return out;
}

int64_t SqliteStore::Revision() {
  std::lock_guard<std::mutex> lock(mu_);
  Status blocked;
  if (Blocked(&blocked)) return -1;
  const int64_t revision = ReadRevision();
  if (revision < 0) {
    Error("read revision");
  } else {
    Succeeded();
  }
  return revision;
}

WriteResult SqliteStore::Commit(const std::vector<Op>& ops) {
  WriteResult out;
  for (const Op& op : ops) {
    if (op.key.empty()) {
      out.status = {Code::kInvalid, "empty key"};
      return out;
    }
  }
  if (!ops.empty()) return committer_.Commit(ops);
  std::lock_guard<std::mutex> lock(mu_);
  if (Blocked(&out.status)) return out;
  out.revision = ReadRevision();
  if (out.revision < 0) {
    out.status = Error("read revision");
  } else {
    Succeeded();
  }
  return out;
}

bool SqliteStore::CommitGroup(const std::vector<GroupedBatch*>& group) {
  std::lock_guard<std::mutex> lock(mu_);
  // A failure fails the whole group: none of it is acknowledged, conflicts included (they
  // were judged against batches that are not committed now).
  auto fail = [&](const Status& status) {
    for (GroupedBatch* b : group) b->result = Failed(status);
    return false;
  };
  auto rollback = [&](const Status& status) {
    Exec("ROLLBACK");
    return fail(status);
  };
  Status blocked;
  if (Blocked(&blocked)) return fail(blocked);
  // IMMEDIATE: take the write lock now, so the comparisons below and the writes see one
  // state (nothing else writes in between).
  if (!Exec("BEGIN IMMEDIATE")) return fail(Error("begin"));
  int64_t revision = ReadRevision();
  if (revision < 0) return rollback(Error("read revision"));
  Stmt put, del, bump;
  if (!Prepare("INSERT INTO kv (key, value, revision) VALUES (?1, ?2, ?3) "
               "ON CONFLICT (key) DO UPDATE SET value = excluded.value, "
               "revision = excluded.revision",
               put) ||
      !Prepare("DELETE FROM kv WHERE key = ?1", del) ||
      !Prepare("UPDATE meta SET value = ?1 WHERE name = 'revision'", bump)) {
    return rollback(Error("prepare"));
  }
  bool any = false;
  for (GroupedBatch* b : group) {
    // Every comparison is against the state before the batch (etcd's Txn semantics): the
    // store as committed plus the group's batches before this one, read inside this
    // transaction. A batch writes only once all its comparisons hold, so a conflicting batch
    // leaves nothing behind and needs no savepoint.
    bool conflict = false;
    for (const Op& op : *b->ops) {
      if (!op.expected_revision) continue;
      const int64_t current = KeyRevision(op.key);
      if (current < 0) return rollback(Error("read " + op.key));
      if (current != *op.expected_revision) {
        b->result = RevisionConflict(op.key, current, *op.expected_revision);
        conflict = true;
        break;
      }
    }
    if (conflict) continue;
    const int64_t next = revision + 1;
    for (const Op& op : *b->ops) {
      sqlite3_stmt* s = op.kind == Op::Kind::kPut ? put.get() : del.get();
      sqlite3_reset(s);
      BindText(s, 1, op.key);
      if (op.kind == Op::Kind::kPut) {
        BindBlob(s, 2, op.value);
        sqlite3_bind_int64(s, 3, next);
      }
      if (sqlite3_step(s) != SQLITE_DONE) return rollback(Error("write " + op.key));
    }
    revision = next;
    b->result.revision = next;
    any = true;
  }
  if (!any) {
    // Every batch conflicted: nothing to make durable, no fsync.
    Exec("ROLLBACK");
    Succeeded();
    return false;
  }
  sqlite3_bind_int64(bump.get(), 1, revision);
  if (sqlite3_step(bump.get()) != SQLITE_DONE) return rollback(Error("bump revision"));
  put.reset();
  del.reset();
  bump.reset();

  Failpoint(kFailBeforeCommit);
  if (!Exec("COMMIT")) return rollback(Error("commit"));
  // Durable from here (WAL + synchronous=FULL fsyncs the log on commit, once for the whole
  // group); no caller has been told yet.
  Failpoint(kFailAfterCommit);
  Succeeded();
  return true;
}

// Applies every migration the database lacks, one transaction each.
Status Migrate(sqlite3* db, const std::string& path, int from) {
  for (int version = from + 1; version <= kSchemaVersion; ++version) {
    const std::string sql = std::string("BEGIN IMMEDIATE;") + kMigrations[version - 1] +
                            "PRAGMA user_version = " + std::to_string(version) + ";";
    char* err = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      const std::string message = err != nullptr ? err : sqlite3_errmsg(db);
      sqlite3_free(err);
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      return {Code::kSchema, path + ": migration to schema version " + std::to_string(version) +
                                 " failed: " + message};
    }
    Failpoint(kFailBeforeMigrate);
    if (sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
      const std::string message = sqlite3_errmsg(db);
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      return {Code::kSchema, path + ": migration to schema version " + std::to_string(version) +
                                 " failed: " + message};
    }
    Failpoint(kFailAfterMigrate);
  }
  return {};
}

// Runs one statement that returns one value (PRAGMAs).
bool QueryOne(sqlite3* db, const char* sql, std::string& out) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &raw, nullptr) != SQLITE_OK) return false;
  Stmt s(raw);
  if (sqlite3_step(s.get()) != SQLITE_ROW) return false;
  const unsigned char* text = sqlite3_column_text(s.get(), 0);
  out = text == nullptr ? "" : reinterpret_cast<const char*>(text);
  return true;
}

// The database's identity (kIdentityVersion and later), nullopt when none is stored. False
// when it cannot be read.
bool ReadIdentity(sqlite3* db, std::optional<std::string>& out) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT value FROM info WHERE name = 'identity'", -1, &raw, nullptr) !=
      SQLITE_OK) {
    return false;
  }
  Stmt s(raw);
  const int rc = sqlite3_step(s.get());
  if (rc == SQLITE_DONE) {
    out.reset();
    return true;
  }
  if (rc != SQLITE_ROW) return false;
  const unsigned char* text = sqlite3_column_text(s.get(), 0);
  out = text == nullptr ? "" : reinterpret_cast<const char*>(text);
  return true;
}

bool WriteIdentity(sqlite3* db, const std::string& identity) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db,
                         "INSERT INTO info (name, value) VALUES ('identity', ?1) "
                         "ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                         -1, &raw, nullptr) != SQLITE_OK) {
    return false;
  }
  Stmt s(raw);
  BindText(s.get(), 1, identity);
  return sqlite3_step(s.get()) == SQLITE_DONE;
}

// How the database file looks before SQLite touches it.
std::string DatabaseState(const std::string& path, bool* missing_or_empty) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  *missing_or_empty = true;
  if (!std::filesystem::exists(status)) return "is missing";
  if (std::filesystem::is_regular_file(status) && std::filesystem::file_size(path, ec) == 0) {
    return "is empty (0 bytes)";
  }
  *missing_or_empty = false;
  return "has no identity";
}

}  // namespace

OpenResult OpenSqliteStore(const std::string& db_path, const OpenOptions& options) {
  OpenResult out;
  out.database = db_path;
  std::vector<std::unique_ptr<StateLock>> locks;
  std::string dir = std::filesystem::path(db_path).parent_path().string();
  if (dir.empty()) dir = ".";
  StateLock::Acquired acquired = StateLock::Acquire(dir);
  if (!acquired.status.ok()) {
    out.status = acquired.status;
    return out;
  }
  locks.push_back(std::move(acquired.lock));

  // What the state directory remembers, before anything is created: a marker with a missing
  // or empty database is refused here, leaving both as they are.
  const std::string marker_path = MarkerPath(db_path);
  const Marker marker = ReadMarker(marker_path);
  if (!marker.status.ok()) {
    out.status = marker.status;
    return out;
  }
  const std::string resolved = ResolveDatabasePath(db_path);
  bool missing_or_empty = false;
  std::string db_state = DatabaseState(resolved, &missing_or_empty);
  if (missing_or_empty) {
    IdentityDecision d = DecideIdentity(db_path, marker_path, marker, std::nullopt, db_state,
                                        options.accept_empty_state);
    if (d.action == IdentityDecision::Action::kRefuse) {
      out.status = d.status;
      return out;
    }
  }
  // The database file itself, resolved: a symlink from another state directory meets this.
  acquired = StateLock::AcquireDatabase(db_path, resolved);
  if (!acquired.status.ok()) {
    out.status = acquired.status;
    return out;
  }
  locks.push_back(std::move(acquired.lock));

  auto health = std::make_shared<StoreHealth>();
  sqlite3* db = nullptr;
  const int rc =
      sqlite3_open_v2(resolved.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  auto fail = [&](Code code, const std::string& message) {
    out.status = {code, message};
    sqlite3_close_v2(db);
    return std::move(out);
  };
  // The file cannot be trusted (corrupt, not a database, a table missing): the store opens
  // stuck on that failure, so the daemon serves its API and says why, and acts on nothing.
  auto unusable = [&](const std::string& what, std::string message) {
    // quick_check reports one finding per line: one line for logs and the API.
    for (size_t nl; (nl = message.find('\n')) != std::string::npos;) message.replace(nl, 1, "; ");
    health->Report({Code::kIo, db_path + ": " + what + ": " + message}, /*sticky=*/true);
    sqlite3_close_v2(db);
    out.health = health;
    out.store = std::make_unique<SqliteStore>(nullptr, db_path, std::move(locks), health,
                                              options.on_group_taken);
    return std::move(out);
  };
  if (rc != SQLITE_OK) {
    return fail(Code::kIo, db_path + ": cannot open: " +
                               (db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
  }
  std::string value;
  // Read the version before changing anything: a newer database is left exactly as it is.
  if (!QueryOne(db, "PRAGMA user_version", value)) {
    if (Unreadable(db)) return unusable("cannot be read", sqlite3_errmsg(db));
    return fail(Code::kIo, db_path + ": cannot read schema version: " + sqlite3_errmsg(db));
  }
  const int version = std::stoi(value);
  if (version > kSchemaVersion) {
    return fail(Code::kSchema, db_path + ": schema version " + std::to_string(version) +
                                   " is newer than this fleetwave supports (" +
                                   std::to_string(kSchemaVersion) + ")");
  }
  // A marker, and a database from before identities (or a fresh one): not the marker's.
  if (version < kIdentityVersion && marker.exists) {
    IdentityDecision d = DecideIdentity(db_path, marker_path, marker, std::nullopt,
                                        version == 0 ? "has no schema" : "has no identity",
                                        options.accept_empty_state);
    if (d.action == IdentityDecision::Action::kRefuse) return fail(d.status.code, d.status.message);
  }
  if (version > 0) {
    // Pages the b-trees cannot walk (bytes overwritten in the middle of the file).
    if (!QueryOne(db, "PRAGMA quick_check", value)) {
      if (Unreadable(db)) return unusable("cannot be read", sqlite3_errmsg(db));
      return fail(Code::kIo, db_path + ": quick_check failed: " + sqlite3_errmsg(db));
    }
    if (value != "ok") return unusable("quick_check found damage", value);
  }
  // WAL + FULL: a commit returns only after the log is fsync'd. busy_timeout only matters
  // for tools reading the file by hand; the state lock keeps other fleetwaves out.
  if (!QueryOne(db, "PRAGMA journal_mode = WAL", value) || value != "wal") {
    if (Unreadable(db)) return unusable("cannot be read", sqlite3_errmsg(db));
    return fail(Code::kIo, db_path + ": cannot enable WAL (journal_mode is " + value + ")");
  }
  if (sqlite3_exec(db, "PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;", nullptr, nullptr,
                   nullptr) != SQLITE_OK) {
    return fail(Code::kIo, db_path + ": " + sqlite3_errmsg(db));
  }
  Status migrated = Migrate(db, db_path, version);
  if (!migrated.ok()) {
    if (Unreadable(db)) return unusable("cannot be migrated", sqlite3_errmsg(db));
    return fail(migrated.code, migrated.message);
  }
  // Every table of the schema is there (a dropped one passes quick_check).
  if (!QueryOne(db, "SELECT value FROM meta WHERE name = 'revision'", value) ||
      !QueryOne(db, "SELECT COUNT(*) FROM kv", value)) {
    if (Unreadable(db)) return unusable("cannot be read", sqlite3_errmsg(db));
    return fail(Code::kIo, db_path + ": cannot be read: " + sqlite3_errmsg(db));
  }
  std::optional<std::string> identity;
  if (!ReadIdentity(db, identity)) {
    if (Unreadable(db)) return unusable("cannot be read", sqlite3_errmsg(db));
    return fail(Code::kIo, db_path + ": cannot read its identity: " + sqlite3_errmsg(db));
  }
  IdentityDecision d =
      DecideIdentity(db_path, marker_path, marker, identity,
                     identity ? "has identity " + *identity : std::string("has no identity"),
                     options.accept_empty_state);
  switch (d.action) {
    case IdentityDecision::Action::kRefuse:
      return fail(d.status.code, d.status.message);
    case IdentityDecision::Action::kKeep:
      break;
    case IdentityDecision::Action::kWriteMarker:
      if (Status w = WriteMarker(marker_path, *identity); !w.ok()) return fail(w.code, w.message);
      out.notes.push_back(d.note);
      break;
    case IdentityDecision::Action::kCreate: {
      // The database first: a crash before the marker is written leaves a database with an
      // identity and no marker, which the next open completes.
      const std::string fresh = NewIdentity();
      if (!WriteIdentity(db, fresh)) {
        return fail(Code::kIo, db_path + ": cannot store its identity: " + sqlite3_errmsg(db));
      }
      if (Status w = WriteMarker(marker_path, fresh); !w.ok()) return fail(w.code, w.message);
      out.notes.push_back(d.note.empty() ? db_path + ": new state database (identity " + fresh +
                                               ", recorded in " + marker_path + ")"
                                         : d.note + " (identity " + fresh + ")");
      break;
    }
  }
  out.health = health;
  out.store =
      std::make_unique<SqliteStore>(db, db_path, std::move(locks), health, options.on_group_taken);
  return out;
}

}  // namespace fleetwave::store
