#include "store/failpoint.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace fleetwave::store {

void Failpoint(const char* name) {
  const char* wanted = std::getenv("FLEETWAVE_FAILPOINT");
  if (wanted == nullptr || std::strcmp(wanted, name) != 0) return;
  const std::string line = std::string("failpoint ") + name + "\n";
  // write(2), not stdio: nothing buffered may be left half-flushed by _exit.
  [[maybe_unused]] ssize_t n = ::write(STDERR_FILENO, line.data(), line.size());
  ::_exit(kFailpointExitCode);
}

}  // namespace fleetwave::store
