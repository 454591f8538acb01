// One fleetwave per state directory (product rule: a second one exits with
// `another fleetwave holds <dir>/lock (pid N)`). The lock is an flock(2) on <dir>/lock, which
// also holds the holder's pid for that message. The kernel releases it when the holder's
// process dies however it dies (kill -9 included), so a crash never leaves a stale lock.
//
// flock locks belong to an open file description: a second Acquire in the same process also
// fails, which is what tests rely on. Not copyable; release by destroying. Thread-safe (no
// mutable state after Acquire).
#pragma once

#include <memory>
#include <string>

#include "store/store.h"

namespace fleetwave::store {

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

 private:
  StateLock(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  std::string path_;
};

}  // namespace fleetwave::store
