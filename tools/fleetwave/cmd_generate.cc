#include "tools/fleetwave/commands.h"

namespace fleetwave::cli {

int RunGenerate(const Argv&, std::ostream&, std::ostream& err) {
  err << "fleetwave generate: not implemented yet\n";
  return 2;
}

}  // namespace fleetwave::cli
