// A bound on how long a libgit2 connection may hear nothing. libgit2 1.5 has no network
// timeouts (its sockets block until the kernel gives up: minutes for a connect, forever for a
// server that accepts and never answers), so a hung remote would hold a blocking-pool thread
// for good. StallTimer arms a per-thread POSIX timer that, once `limit` passes without
// Progress(), sends this thread a signal whose handler does nothing but is installed without
// SA_RESTART: the blocked connect/recv/poll returns EINTR and libgit2 (and libssh2) fail the
// operation. The timer repeats every `limit` after that until the StallTimer goes, so a call
// that retries is interrupted again. libssh2 retries interrupted waits itself, so for ssh the
// bound is libssh2's session timeout instead: stall_timer.cc interposes
// libssh2_session_init_ex (and _handshake, which libgit2 retries on a timeout) to give every
// session created under a StallTimer that timeout. Internal to sources/ (git_mirror.cc).
//
// Thread-safety: one StallTimer per thread at a time, created and destroyed on that thread.
#pragma once

#include <time.h>

#include <chrono>

namespace fleetwave::sources {

class StallTimer {
 public:
  explicit StallTimer(std::chrono::milliseconds limit);
  ~StallTimer();
  StallTimer(const StallTimer&) = delete;
  StallTimer& operator=(const StallTimer&) = delete;

  // Data arrived: the bound starts again.
  void Progress();
  // True once the bound passed (the operation that failed then failed for that reason).
  bool fired() const;

 private:
  void Arm();
  std::chrono::milliseconds limit_;
  timer_t timer_{};
  bool armed_ = false;
};

}  // namespace fleetwave::sources
