#include "tools/fleetwave/thread_priority.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace fleetwave::cli {

bool LowerThisThreadsPriority(int steps) {
  // PRIO_PROCESS with a thread id addresses one thread on Linux (setpriority(2), NOTES).
  const auto tid = static_cast<id_t>(syscall(SYS_gettid));
  errno = 0;
  const int now = getpriority(PRIO_PROCESS, tid);
  if (now == -1 && errno != 0) return false;
  return setpriority(PRIO_PROCESS, tid, std::min(19, now + steps)) == 0;
}

void BackgroundThreadsHook::thread_started() { LowerThisThreadsPriority(kBackgroundNiceSteps); }

}  // namespace fleetwave::cli
