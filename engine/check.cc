#include "engine/check.h"

#include <cstdio>
#include <cstdlib>

namespace fleetwave::engine {

// The one place engine/ writes anything: the process is about to end on a bug, and the line
// on stderr (the journal, under systemd) is all that is left to find it by.
void CheckFailed(const char* condition, const char* message, const char* file, int line) {
  std::fprintf(stderr, "fleetwave: invariant broken at %s:%d: %s (%s)\n", file, line, message,
               condition);
  std::fflush(stderr);
  std::abort();
}

}  // namespace fleetwave::engine
