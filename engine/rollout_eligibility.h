// Which steps of a RollingSync rollout are open (tests/engine/rollingsync/rollout_plan_test.cc):
// walk the steps in order; every app of the current step may sync; the walk continues past a step
// only when it is complete. Completion looks at the live health as well as the sticky status entry
// [fleetwave], so a Healthy app whose cluster died or whose pods crash holds later steps.
#pragma once

#include <string>
#include <vector>

namespace fleetwave::engine {

// What gating needs to know about one app of a step.
struct AppGateFacts {
  bool exists = false;          // the Application exists (a desired app not yet created does not)
  bool entry_healthy = false;   // its status entry is Healthy
  bool live_health_ok = false;  // LiveHealthAllowsCompletion(live health)
  bool skipped = false;         // an operator skipped it: counts as complete
};

// Live health that does not hold a step: anything but Degraded, Missing and Unknown.
bool LiveHealthAllowsCompletion(const std::string& health);

// An app completes its step iff it exists and is skipped or (Healthy entry and live health ok).
bool AppCompletesStep(const AppGateFacts& app);

struct Eligibility {
  int first_incomplete_step = -1;  // 0-based; -1 when every step is complete

  // Steps up to and including the first incomplete one are open. Unmatched apps (-1) never are.
  bool StepOpen(int step) const {
    return step >= 0 && (first_incomplete_step < 0 || step <= first_incomplete_step);
  }
  // 1-based current step for conditions and status.rollout; 0 when complete.
  int CurrentStep() const { return first_incomplete_step + 1; }
};

// `steps[s]` holds the facts of every app of step s. An empty step is complete.
Eligibility ComputeEligibility(const std::vector<std::vector<AppGateFacts>>& steps);

}  // namespace fleetwave::engine
