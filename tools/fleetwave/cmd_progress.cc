#include "tools/fleetwave/commands.h"

namespace fleetwave::cli {

int RunProgress(const Argv&, std::ostream&, std::ostream& err) {
  err << "fleetwave progress: not implemented yet\n";
  return 2;
}

}  // namespace fleetwave::cli
