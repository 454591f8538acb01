#include "tools/fleetwave/commands.h"

namespace fleetwave::cli {

int RunHealth(const Argv&, std::ostream&, std::ostream& err) {
  err << "fleetwave health: not implemented yet\n";
  return 2;
}

}  // namespace fleetwave::cli
