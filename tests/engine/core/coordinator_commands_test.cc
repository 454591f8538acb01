// Table test for the answers the coordinator gives an operator's command itself
// (engine/coordinator_commands.h), the rule actors/coordinator.cc used to hold.
#include "engine/coordinator_commands.h"

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace fleetwave::engine {
namespace {

struct Case {
  const char* name;
  bool stopping;
  bool set_runs;
  std::optional<CommandAnswer> want;
};

TEST(CoordinatorCommandsTest, RefusedWhileStoppingOrForASetThatDoesNotRun) {
  const std::vector<Case> cases = {
      {"a running set: its actor answers", false, true, std::nullopt},
      {"no such set", false, false,
       CommandAnswer{CommandOutcome::kNotFound, "sync refused: no applicationset web"}},
      {"stopping", true, true,
       CommandAnswer{CommandOutcome::kUnavailable, "sync refused: the daemon is stopping"}},
      {"stopping wins over an unknown set", true, false,
       CommandAnswer{CommandOutcome::kUnavailable, "sync refused: the daemon is stopping"}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(RefuseAtCoordinator(c.stopping, c.set_runs, "sync", "web"), c.want) << c.name;
  }
}

}  // namespace
}  // namespace fleetwave::engine
