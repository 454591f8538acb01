#include "engine/appset/command_rules.h"

namespace fleetwave::engine {

std::string RolloutCommandWhat(RolloutCommand command, const std::string& caller) {
  return RolloutCommandName(command) + " by " + caller;
}

bool RolloutCommandWaitsForLoad(const RolloutCommandFacts& facts) {
  return !facts.mirror_loaded && !facts.deleting;
}

std::optional<CommandAnswer> RefuseRolloutCommand(const RolloutCommandFacts& facts,
                                                  const std::string& what, const std::string& app) {
  const bool generated = !app.empty() && (!facts.has_generation || facts.app_in_generation);
  const SetCommandContext context{facts.appset, facts.mirror_loaded, facts.deleting};
  return RefuseSetCommand(context, what, app, generated);
}

CommandAnswer CommandNotStored(const CommandAnswer& accepted, const std::string& error) {
  return {CommandOutcome::kUnavailable,
          accepted.message + " could not be stored: " + error + "; nothing was done"};
}

std::string CommandNotStoredLog(const std::string& error) {
  return "cannot commit the operator's command: " + error;
}

}  // namespace fleetwave::engine
