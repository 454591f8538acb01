// The first difference between two RollingSync decisions, in words: how the incremental
// RolloutTracker is checked against Plan, its oracle, in the tests and at each daemon resync
// (a difference there is a bug to report: fleetwave_decision_divergence_total).
#pragma once

#include <optional>
#include <string>

#include "engine/rollingsync/rollout_plan.h"

namespace fleetwave::engine {

// nullopt when both decide the same: entries, conditions, status.rollout, the sync list and its
// operations, the step deadline, steps, drifted and healed apps and the passed-through status.
// Otherwise one line naming the first field (and app) that differs, with both values.
std::optional<std::string> FirstPlanDifference(const PlanResult& expected,
                                               const PlanResult& actual);

}  // namespace fleetwave::engine
