#include "engine/coordinator_commands.h"

namespace fleetwave::engine {

std::optional<CommandAnswer> RefuseAtCoordinator(bool stopping, bool set_runs,
                                                 const std::string& what,
                                                 const std::string& appset) {
  if (stopping) {
    return CommandAnswer{CommandOutcome::kUnavailable, what + " refused: the daemon is stopping"};
  }
  if (!set_runs) {
    return CommandAnswer{CommandOutcome::kNotFound, what + " refused: no applicationset " + appset};
  }
  return std::nullopt;
}

}  // namespace fleetwave::engine
