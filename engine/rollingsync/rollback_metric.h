// [issue 29] What fleetwave_rollbacks_total counts, in the terms the appset actor holds when a
// decision is committed: the stored status.rollout the decision began from and the one it
// committed. The rule itself (a rollback the decision started, once per rollback) is
// RollbackStarted (engine/rollingsync/rollback_state.h); this only reads the two JSON values for
// it.
#pragma once

#include <optional>
#include <string>

#include "engine/yaml_json.h"

namespace fleetwave::engine {

// The reason (kRollbackStepFailed, kRollbackOperator) of the rollback a committed decision
// started, or "" when it started none. `stored` is status.rollout before the decision (nullopt:
// none stored yet), `committed` the status.rollout it wrote (nullopt: it left it unchanged, so
// it started nothing). A rollback that does not decode counts as absent: the decision that wrote
// it is what the metric follows, and a restart that finds one stored never counts it again.
std::string RollbackStartedByDecision(const std::optional<Json>& stored,
                                      const std::optional<Json>& committed);

}  // namespace fleetwave::engine
