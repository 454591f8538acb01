// What the coordinator answers an operator's command itself, before any set's actor sees it
// (the rest is engine/operator_command.h, answered by the set's actor). Pinned by
// tests/engine/core/coordinator_commands_test.cc.
#pragma once

#include <optional>
#include <string>

#include "engine/operator_command.h"

namespace fleetwave::engine {

// A command `what` for set `appset` is refused while the daemon stops (unavailable: try again
// on the next instance) or when no set of that name runs (not found); nullopt: the set's actor
// answers it.
std::optional<CommandAnswer> RefuseAtCoordinator(bool stopping, bool set_runs,
                                                 const std::string& what,
                                                 const std::string& appset);

}  // namespace fleetwave::engine
