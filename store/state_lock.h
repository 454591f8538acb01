// One fleetwave per state directory (product rule: a second one exits with
// `another fleetwave holds <dir>/lock (pid N)`). The lock is an flock(2) on <dir>/lock, which
// also holds the holder's pid for that message. The kernel releases it when the holder's
// process dies however it dies (kill -9 included), so a crash never leaves a stale lock.
//
// The database file is locked too (AcquireDatabase), resolved: a state directory holding a
// symlink to another's state.db would otherwise have its own <dir>/lock. flock(2) and SQLite's
// POSIX locks are independent on a local file system; the descriptor is closed only after
// SQLite closed the database (closing any descriptor of a file drops the process's POSIX locks
// on it).
//
// flock locks belong to an open file description: a second Acquire in the same process also
// fails, which is what tests rely on. Not copyable; release by destroying. Thread-safe (no
// mutable state after Acquire).
#pragma once

#include <memory>
#include <string>

#include "store/store.h"

namespace fleetwave::store {

// `path` with every symlink resolved (also a dangling one, and one whose target does not exist
// yet), absolute and normalised: the file SQLite will really open.
std::string ResolveDatabasePath(const std::string& path);

class StateLock {
 public:
  ~StateLock();
  StateLock(const StateLock&) = delete;
  StateLock& operator=(const StateLock&) = delete;

  const std::string& path() const { return path_; }

  struct Acquired {
    Status status;  // kLocked: "another fleetwave holds <dir>/lock (pid N)"; kIo otherwise
    std::unique_ptr<StateLock> lock;
  };
  // Takes the lock of directory `dir` without waiting; the directory must exist.
  static Acquired Acquire(const std::string& dir);
  // Takes an flock on the database file itself, `resolved` (ResolveDatabasePath of
  // `configured`), creating it empty if absent: no symlink or hard link lets two fleetwaves
  // share one database even from two state directories. kLocked: "another fleetwave (pid N)
  // holds the state database <resolved> (configured as <configured>)", the pid read from
  // /proc/locks ("unknown" when it cannot be found).
  static Acquired AcquireDatabase(const std::string& configured, const std::string& resolved);

 private:
  StateLock(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  std::string path_;
};

}  // namespace fleetwave::store
