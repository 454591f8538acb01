// Crash points for crash tests. `Failpoint("name")` ends the process at once with
// `_exit(kFailpointExitCode)` when the environment variable FLEETWAVE_FAILPOINT equals "name",
// and does nothing otherwise. `_exit` skips destructors and stdio flushing, so what survives is
// exactly what a `kill -9` at that point would leave: what was committed to disk.
//
// Place one on each side of every commit/act boundary ("<layer>.<what>.before|after"), so a
// test can kill the process between "the record is durable" and "the action is taken". The
// store's own points are listed below; actors add theirs (e.g. before an apply is sent).
//
// Thread-safe: reads the environment on every call (never cached, so a forked child that sets
// the variable is obeyed) and nobody calls setenv while the daemon runs.
#pragma once

namespace fleetwave::store {

// The exit status of a process stopped by a failpoint (distinct from crashes and signals).
inline constexpr int kFailpointExitCode = 86;

// The store's failpoints (sqlite_store.cc; etcd_store.cc has the commit pair around its txn):
inline constexpr const char* kFailBeforeCommit =
    "store.commit.before";  // the group's txn written, not committed
inline constexpr const char* kFailAfterCommit =
    "store.commit.after";  // the group committed, none of it acknowledged
inline constexpr const char* kFailBeforeMigrate =
    "store.migrate.before";  // migration written, not committed
inline constexpr const char* kFailAfterMigrate = "store.migrate.after";  // migration committed

// Ends the process when FLEETWAVE_FAILPOINT names this point. Writes "failpoint <name>" to
// stderr first, so a test log shows where the process died.
void Failpoint(const char* name);

}  // namespace fleetwave::store
