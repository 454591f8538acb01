// ApplicationSet conditions written by the rollout (tests/engine/rollingsync/rollout_steps_test.cc
// pins their priority): which RolloutProgressing / InvalidRolloutConfig / ResourcesUpToDate /
// ErrorOccurred condition holds, and how a new set of conditions replaces the previous one without
// moving lastTransitionTime when nothing about a condition changed.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/issue.h"
#include "engine/time.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

struct AppSetCondition {
  std::string type;
  std::string status;  // "True" | "False"
  std::string reason;
  std::string message;
  std::optional<Time> last_transition_time;
};

// Decodes status.conditions; entries without a type are issues and dropped.
std::vector<AppSetCondition> DecodeAppSetConditions(const Json& list, Issues& issues);
Json EncodeAppSetCondition(const AppSetCondition& condition);

// What the rollout says about its progress this reconcile.
struct RolloutProgress {
  int current_step = 0;  // 1-based first incomplete step; 0 when every step is complete
  bool paused = false;
  bool deadline_exceeded = false;
  // [issue 29] A step failed (status.rollout.failedStep): RolloutFailed with this message.
  int failed_step = 0;
  std::string failed_message;
  // [issue 29] An operator aborted it (status.rollout.aborted): RolloutAborted with this message.
  bool aborted = false;
  std::string aborted_message;
  // [issue 29] A rollback (status.rollout.rollback): its progress, after a failed step's message
  // (RolloutFailed), or alone as RolloutRolledBack for an operator's.
  bool rolled_back = false;
  std::string rollback_message;
};

// RolloutProgressing, by priority RolloutFailed (with a rollback's progress) >
// RolloutRolledBack (an operator's rollback) > Complete > RolloutAborted > Paused >
// ProgressDeadlineExceeded > Modified. A halted rollout reports RolloutFailed whatever else
// holds: it will not move on. An aborted one whose running syncs completed every step is
// complete: there is nothing left to hold.
// A paused or timed-out rollout whose steps are all complete reports Complete: nothing is
// held back any more.
AppSetCondition RolloutProgressingCondition(const RolloutProgress& progress);

// InvalidRolloutConfig: True with the highest-priority issue message, else False.
AppSetCondition InvalidRolloutConfigCondition(const std::optional<std::string>& issue);

AppSetCondition ResourcesUpToDateCondition();
AppSetCondition NoStepsCondition();  // ErrorOccurred: "No steps defined for rollout"

// The conditions after a reconcile: `previous` minus every type in `remove`, with each of
// `set` added or replaced. A replaced condition whose status, reason and message are unchanged
// keeps its lastTransitionTime; any other new one gets `now`. Sorted by type.
std::vector<AppSetCondition> MergeConditions(const std::vector<AppSetCondition>& previous,
                                             const std::vector<AppSetCondition>& set,
                                             const std::set<std::string>& remove, Time now);

}  // namespace fleetwave::engine
