#include "tools/fleetwave/commands.h"

namespace fleetwave::cli {

int RunPlan(const Argv&, std::ostream&, std::ostream& err) {
  err << "fleetwave plan: not implemented yet\n";
  return 2;
}

}  // namespace fleetwave::cli
