#include "store/sqlite_store.h"

#include <sqlite3.h>

#include <filesystem>
#include <mutex>
#include <utility>
#include <vector>

#include "store/failpoint.h"
#include "store/state_lock.h"

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
};
static_assert(kSchemaVersion == 2, "add the migration to kMigrations");

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
  SqliteStore(sqlite3* db, std::string path, std::unique_ptr<StateLock> lock)
      : db_(db), path_(std::move(path)), lock_(std::move(lock)) {}
  ~SqliteStore() override { sqlite3_close_v2(db_); }

  GetResult Get(const std::string& key) override;
  ListResult List(const std::string& prefix) override;
  WriteResult Commit(const std::vector<Op>& ops) override;
  int64_t Revision() override;

 private:
  Status Error(const std::string& what) const {
    return {Code::kIo, path_ + ": " + what + ": " + sqlite3_errmsg(db_)};
  }
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
  std::unique_ptr<StateLock> lock_;  // released after the database is closed
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
  Stmt s;
  if (!Prepare("SELECT value, revision FROM kv WHERE key = ?1", s)) {
    out.status = Error("get " + key);
    return out;
  }
  BindText(s.get(), 1, key);
  const int rc = sqlite3_step(s.get());
  if (rc == SQLITE_DONE) {
    out.status = {Code::kNotFound, key + ": not found"};
  } else if (rc == SQLITE_ROW) {
    out.entry = {key, ColumnBytes(s.get(), 0), sqlite3_column_int64(s.get(), 1)};
  } else {
    out.status = Error("get " + key);
  }
  return out;
}

ListResult SqliteStore::List(const std::string& prefix) {
  std::lock_guard<std::mutex> lock(mu_);
  ListResult out;
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
  }
  Exec("COMMIT");
  return out;
}

int64_t SqliteStore::Revision() {
  std::lock_guard<std::mutex> lock(mu_);
  return ReadRevision();
}

WriteResult SqliteStore::Commit(const std::vector<Op>& ops) {
  std::lock_guard<std::mutex> lock(mu_);
  WriteResult out;
  for (const Op& op : ops) {
    if (op.key.empty()) {
      out.status = {Code::kInvalid, "empty key"};
      return out;
    }
  }
  if (ops.empty()) {
    out.revision = ReadRevision();
    if (out.revision < 0) out.status = Error("read revision");
    return out;
  }
  // IMMEDIATE: take the write lock now, so the comparisons below and the writes see one
  // state (nothing else writes in between).
  if (!Exec("BEGIN IMMEDIATE")) {
    out.status = Error("begin");
    return out;
  }
  auto fail = [&](Status status) {
    Exec("ROLLBACK");
    out.status = std::move(status);
    out.revision = 0;
    return out;
  };
  // Every comparison is against the state before the batch (etcd's Txn semantics).
  for (const Op& op : ops) {
    if (!op.expected_revision) continue;
    const int64_t current = KeyRevision(op.key);
    if (current < 0) return fail(Error("read " + op.key));
    if (current != *op.expected_revision) {
      out.conflict_key = op.key;
      return fail({Code::kConflict, op.key + ": revision is " + std::to_string(current) +
                                        ", expected " + std::to_string(*op.expected_revision)});
    }
  }
  const int64_t revision = ReadRevision();
  if (revision < 0) return fail(Error("read revision"));
  const int64_t next = revision + 1;
  Stmt put, del, bump;
  if (!Prepare("INSERT INTO kv (key, value, revision) VALUES (?1, ?2, ?3) "
               "ON CONFLICT (key) DO UPDATE SET value = excluded.value, "
               "revision = excluded.revision",
               put) ||
      !Prepare("DELETE FROM kv WHERE key = ?1", del) ||
      !Prepare("UPDATE meta SET value = ?1 WHERE name = 'revision'", bump)) {
    return fail(Error("prepare"));
  }
  for (const Op& op : ops) {
    sqlite3_stmt* s = op.kind == Op::Kind::kPut ? put.get() : del.get();
    sqlite3_reset(s);
    BindText(s, 1, op.key);
    if (op.kind == Op::Kind::kPut) {
      BindBlob(s, 2, op.value);
      sqlite3_bind_int64(s, 3, next);
    }
    if (sqlite3_step(s) != SQLITE_DONE) return fail(Error("write " + op.key));
  }
  sqlite3_bind_int64(bump.get(), 1, next);
  if (sqlite3_step(bump.get()) != SQLITE_DONE) return fail(Error("bump revision"));
  put.reset();
  del.reset();
  bump.reset();

  Failpoint(kFailBeforeCommit);
  if (!Exec("COMMIT")) return fail(Error("commit"));
  // Durable from here (WAL + synchronous=FULL fsyncs the log on commit); the caller has not
  // been told yet.
  Failpoint(kFailAfterCommit);
  out.revision = next;
  return out;
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

}  // namespace

OpenResult OpenSqliteStore(const std::string& db_path) {
  OpenResult out;
  std::string dir = std::filesystem::path(db_path).parent_path().string();
  if (dir.empty()) dir = ".";
  StateLock::Acquired acquired = StateLock::Acquire(dir);
  if (!acquired.status.ok()) {
    out.status = acquired.status;
    return out;
  }

  sqlite3* db = nullptr;
  const int rc =
      sqlite3_open_v2(db_path.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  auto fail = [&](Code code, const std::string& message) {
    out.status = {code, message};
    sqlite3_close_v2(db);
    return std::move(out);
  };
  if (rc != SQLITE_OK) {
    return fail(Code::kIo, db_path + ": cannot open: " +
                               (db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
  }
  std::string value;
  // Read the version before changing anything: a newer database is left exactly as it is.
  if (!QueryOne(db, "PRAGMA user_version", value)) {
    return fail(Code::kIo, db_path + ": cannot read schema version: " + sqlite3_errmsg(db));
  }
  const int version = std::stoi(value);
  if (version > kSchemaVersion) {
    return fail(Code::kSchema, db_path + ": schema version " + std::to_string(version) +
                                   " is newer than this fleetwave supports (" +
                                   std::to_string(kSchemaVersion) + ")");
  }
  // WAL + FULL: a commit returns only after the log is fsync'd. busy_timeout only matters
  // for tools reading the file by hand; the state lock keeps other fleetwaves out.
  if (!QueryOne(db, "PRAGMA journal_mode = WAL", value) || value != "wal") {
    return fail(Code::kIo, db_path + ": cannot enable WAL (journal_mode is " + value + ")");
  }
  if (sqlite3_exec(db, "PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;", nullptr, nullptr,
                   nullptr) != SQLITE_OK) {
    return fail(Code::kIo, db_path + ": " + sqlite3_errmsg(db));
  }
  Status migrated = Migrate(db, db_path, version);
  if (!migrated.ok()) return fail(migrated.code, migrated.message);
  out.store = std::make_unique<SqliteStore>(db, db_path, std::move(acquired.lock));
  return out;
}

OpenResult OpenStore(const std::string& state_url) {
  static const std::string kSqlite = "sqlite://";
  if (state_url.compare(0, kSqlite.size(), kSqlite) == 0 && state_url.size() > kSqlite.size()) {
    return OpenSqliteStore(state_url.substr(kSqlite.size()));
  }
  OpenResult out;
  out.status = {Code::kInvalid, "state: unsupported URL \"" + state_url +
                                    "\" (supported: sqlite:///path/state.db)"};
  return out;
}

}  // namespace fleetwave::store
