// The embedded `Store`: one SQLite database file in the state directory, in WAL mode with
// synchronous=FULL, so a commit is on disk (fsync'd) when Commit returns.
//
// Opening (OpenSqliteStore):
//   1. takes <dir>/lock (state_lock.h) - a second fleetwave fails here;
//   2. refuses a missing or empty database when <dir>/state-id says the directory had one
//      (state_identity.h), touching neither file, unless the empty state is accepted;
//   3. takes an flock on the database file itself, symlinks resolved - a second fleetwave
//      reaching the same file through a symlink or hard link from another directory fails here;
//   4. refuses a database whose schema is newer than this binary
//      (`<path>: schema version N is newer than this fleetwave supports (M)`), touching nothing;
//   5. runs PRAGMA quick_check, the missing migrations in order (each in its own transaction,
//      so a crash during a migration leaves the previous version intact and the next open
//      redoes it), checks every table is there, and matches the database's identity with the
//      marker (a new identity for a new database, written to both).
// A database that cannot be trusted (corrupt pages, not a database, a missing table, a failed
// quick_check) is not an open failure: the store opens with `health` stuck on the reason and
// refuses every call with it, so the daemon keeps its API up, says why (`/readyz`, `errors`)
// and acts on nothing. The same happens when SQLite reports such a failure later.
// Schema versions (PRAGMA user_version):
//   1  kv(key, value)                       - values without revisions
//   2  kv(key, value, revision), meta       - store revision and compare-and-set
//   3  info(name, value)                    - the database's identity (current)
//
// Losing the database is reported, never silent: with the marker in place a missing or emptied
// database (or another one) is refused with both files named; `accept_empty_state`
// (`fleetwave run --accept-empty-state`) opens it as an empty store at revision 0 with a new
// identity, a consistent state ("nothing pinned, nothing started") the daemon rebuilds from the
// clusters. Deleting only the -wal file loses the commits not yet checkpointed but leaves an
// older consistent state (the main file as of the last checkpoint).
//
// Commits are grouped (group_commit.h): concurrent batches share one transaction and one
// fsync, each with its own revision; a failed comparison fails only its own batch, and a
// failed transaction every batch in it. The store failpoints sit on both sides of the group's
// COMMIT.
//
// Thread-safety: one connection behind a mutex; every call may come from any thread and
// blocks on disk. Destroying the store closes the database and releases the lock.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "store/etcd_url.h"
#include "store/store.h"
#include "store/store_health.h"

namespace fleetwave::store {

// The newest schema this binary knows.
inline constexpr int kSchemaVersion = 3;

struct OpenOptions {
  // Start with the database as it is (missing, empty or another one) although the state
  // directory's marker names a different one; a new identity is written to both.
  bool accept_empty_state = false;
  // Tests only: shapes commit groups (group_commit.h, GroupCommitter::GroupTaken).
  std::function<void(std::size_t group_size)> on_group_taken = {};
  // etcds:// only: fleetwave.yaml's `etcd: {caFile, certFile, keyFile}`.
  EtcdTlsFiles etcd_tls = {};
  // etcd:// only: the cluster's transaction limits (etcd_url.h).
  EtcdLimits etcd_limits = {};
};

struct OpenResult {
  Status status;
  std::unique_ptr<Store> store;
  // Whether the store can be used (ok results only): unhealthy from the start when the file
  // cannot be trusted, and after any failure SQLite reports later.
  std::shared_ptr<StoreHealth> health;
  std::string database;  // the database's path as configured, for messages
  // What the open did that the operator should read in the log (a new identity, a marker
  // rewritten, an empty state accepted).
  std::vector<std::string> notes;
  bool ok() const { return status.ok(); }
};

// Opens (creating if absent) the database at `db_path`; its directory must exist and is the
// state directory that gets locked and holds the marker.
OpenResult OpenSqliteStore(const std::string& db_path, const OpenOptions& options = {});

// Opens the store a `state:` URL names. Supported: "sqlite:///abs/path/state.db",
// "sqlite://relative/state.db" and etcd://HOST:PORT[,...]/PREFIX or etcds:// (etcd_store.h).
// Anything else is kInvalid. Defined in open_store.cc.
OpenResult OpenStore(const std::string& state_url, const OpenOptions& options = {});

}  // namespace fleetwave::store
