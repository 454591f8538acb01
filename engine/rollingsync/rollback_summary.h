// [issue 29] A rollback as the views show it: the web view's summary (no per-app entries beyond
// a few named ones, so a 2,000-app rollback stays small) and the line `fleetwave get appset`
// prints. Read from the set's status.rollout.rollback (engine/rollingsync/rollback_state.h). Pure;
// tests/engine/fleetview/rollback_summary_test.cc.
#pragma once

#include <cstddef>
#include <string>

#include "engine/yaml_json.h"

namespace fleetwave::engine {

// How many failed and kept apps a summary names (the counts cover all of them).
inline constexpr size_t kRollbackNamedApps = 10;

// status.rollout.rollback of `appset` as {"reason", "by"?, "failedStep"?, "to"?, "startedAt",
// "finishedAt"?, "total", "counts": {"Waiting", "Syncing", "RolledBack", "Failed"} (zeros
// too), "failed": [{"application", "message"?}] (at most kRollbackNamedApps), "kept": [names]
// (at most kRollbackNamedApps), "keptTotal"}; null when the set has none (or it does not decode:
// the set's own decision reports that).
Json RollbackSummaryOf(const Json& appset);

// One line for a RollbackSummaryOf value, e.g. "Rollback after step 2 failed, started
// 2026-03-01T12:00:00Z, in progress: 1 rolled back, 1 syncing, 2 waiting, 0 failed of 4; kept
// at their revision: web-new"; "" for null.
std::string RollbackLine(const Json& summary);

}  // namespace fleetwave::engine
