// The embedded `Store`: one SQLite database file in the state directory, in WAL mode with
// synchronous=FULL, so a commit is on disk (fsync'd) when Commit returns.
//
// Opening (OpenSqliteStore):
//   1. takes <dir>/lock (state_lock.h) - a second fleetwave fails here;
//   2. refuses a database whose schema is newer than this binary
//      (`<path>: schema version N is newer than this fleetwave supports (M)`), touching nothing;
//   3. runs the missing migrations in order, each in its own transaction, so a crash during a
//      migration leaves the previous version intact and the next open redoes it.
// Schema versions (PRAGMA user_version):
//   1  kv(key, value)                       - values without revisions
//   2  kv(key, value, revision), meta       - store revision and compare-and-set (current)
//
// Losing the database is safe by design: a missing file opens as an empty store at revision
// 0 (a consistent state: "nothing pinned, nothing started"), and the daemon rebuilds from the
// clusters (apps whose live objects carry the pinned hash fast-forward; nothing is deleted
// for lack of a record). Deleting only the -wal file loses the commits not yet checkpointed
// but leaves an older consistent state (the main file as of the last checkpoint).
// ALostDatabaseOpensAsAnEmptyConsistentStore (tests/store/sqlite_store_test.cc) pins the first.
//
// Thread-safety: one connection behind a mutex; every call may come from any thread and
// blocks on disk. Destroying the store closes the database and releases the lock.
#pragma once

#include <memory>
#include <string>

#include "store/store.h"

namespace fleetwave::store {

// The newest schema this binary knows.
inline constexpr int kSchemaVersion = 2;

struct OpenResult {
  Status status;
  std::unique_ptr<Store> store;
  bool ok() const { return status.ok(); }
};

// Opens (creating if absent) the database at `db_path`; its directory must exist and is the
// state directory that gets locked.
OpenResult OpenSqliteStore(const std::string& db_path);

// Opens the store a `state:` URL names. Supported: "sqlite:///abs/path/state.db" and
// "sqlite://relative/state.db". Anything else is kInvalid (an etcd:// backend goes here).
OpenResult OpenStore(const std::string& state_url);

}  // namespace fleetwave::store
