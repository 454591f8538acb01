#include "sources/stall_timer.h"

#include <dlfcn.h>
#include <libssh2.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <csignal>
#include <mutex>

namespace fleetwave::sources {
namespace {

// A realtime signal nothing else in the daemon uses.
int StallSignal() { return SIGRTMIN + 7; }

thread_local volatile sig_atomic_t stalled = 0;
// The bound of the StallTimer alive on this thread (0: none), for ssh sessions (below).
thread_local long ssh_timeout_ms = 0;

void OnStall(int) { stalled = 1; }

void InstallHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_handler = OnStall;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: the blocked call returns EINTR
    sigaction(StallSignal(), &action, nullptr);
  });
}

}  // namespace

StallTimer::StallTimer(std::chrono::milliseconds limit) : limit_(limit) {
  InstallHandler();
  ssh_timeout_ms = static_cast<long>(limit_.count());
  stalled = 0;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, StallSignal());
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  sigevent event{};
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = StallSignal();
  event._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));
  armed_ = limit_.count() > 0 && timer_create(CLOCK_MONOTONIC, &event, &timer_) == 0;
  Arm();
}

StallTimer::~StallTimer() {
  if (armed_) timer_delete(timer_);
  ssh_timeout_ms = 0;
}

void StallTimer::Arm() {
  if (!armed_) return;
  itimerspec spec{};
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(limit_);
  spec.it_value.tv_sec = seconds.count();
  spec.it_value.tv_nsec =
      std::chrono::duration_cast<std::chrono::nanoseconds>(limit_ - seconds).count();
  spec.it_interval = spec.it_value;
  timer_settime(timer_, 0, &spec, nullptr);
}

void StallTimer::Progress() {
  if (!stalled) Arm();
}

bool StallTimer::fired() const { return stalled != 0; }

}  // namespace fleetwave::sources

// libssh2 retries a wait that a signal interrupted, so the timer cannot end a stalled ssh
// connection; libssh2's own session timeout can, and libgit2 1.5 never sets one. This
// definition takes the place of libssh2's for libgit2 (the executable's symbol comes first in
// the dynamic lookup), creates the session with the real function and gives it the bound of the
// StallTimer alive on the creating thread: every blocking libssh2 wait then fails with
// LIBSSH2_ERROR_TIMEOUT after that long without data.
extern "C" LIBSSH2_SESSION* libssh2_session_init_ex(LIBSSH2_ALLOC_FUNC((*my_alloc)),
                                                    LIBSSH2_FREE_FUNC((*my_free)),
                                                    LIBSSH2_REALLOC_FUNC((*my_realloc)),
                                                    void* abstract) {
  using Init = LIBSSH2_SESSION* (*)(LIBSSH2_ALLOC_FUNC((*)), LIBSSH2_FREE_FUNC((*)),
                                    LIBSSH2_REALLOC_FUNC((*)), void*);
  static const Init real = reinterpret_cast<Init>(dlsym(RTLD_NEXT, "libssh2_session_init_ex"));
  if (real == nullptr) return nullptr;
  LIBSSH2_SESSION* session = real(my_alloc, my_free, my_realloc, abstract);
  if (session != nullptr && fleetwave::sources::ssh_timeout_ms > 0) {
    libssh2_session_set_timeout(session, fleetwave::sources::ssh_timeout_ms);
  }
  return session;
}

// libgit2 1.5 retries libssh2_session_handshake for as long as it answers
// LIBSSH2_ERROR_TIMEOUT, so the session timeout above would not end a server that never sends
// its banner. A handshake that timed out is told to libgit2 as the socket's own timeout, which
// it does not retry.
extern "C" int libssh2_session_handshake(LIBSSH2_SESSION* session, libssh2_socket_t sock) {
  using Handshake = int (*)(LIBSSH2_SESSION*, libssh2_socket_t);
  static const Handshake real =
      reinterpret_cast<Handshake>(dlsym(RTLD_NEXT, "libssh2_session_handshake"));
  if (real == nullptr) return LIBSSH2_ERROR_SOCKET_NONE;
  const int rc = real(session, sock);
  if (rc == LIBSSH2_ERROR_TIMEOUT && fleetwave::sources::ssh_timeout_ms > 0) {
    fleetwave::sources::stalled = 1;
    return LIBSSH2_ERROR_SOCKET_TIMEOUT;
  }
  return rc;
}
