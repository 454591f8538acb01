#include "tools/fleetwave/commands.h"

namespace fleetwave::cli {

int RunValidate(const Argv&, std::ostream&, std::ostream& err) {
  err << "fleetwave validate: not implemented yet\n";
  return 2;
}

}  // namespace fleetwave::cli
