// Which steps of a RollingSync rollout are open (tests/engine/rollingsync/rollout_plan_test.cc):
// walk the steps in order; every app of the current step may sync; the walk continues past a step
// only when it is complete. Completion looks at the live health as well as the sticky status entry
// [fleetwave], so a Healthy app whose cluster died or whose pods crash holds later steps.
// [fleetwave, issue 29] A step with maxFailures completes with up to that many failed apps (the
// rest complete), and fails with one more; a step with minSuccessTime completes only once it has
// soaked (rollout_safety.h); a step with analysis completes only once its analysis passed, and
// fails when it failed (engine/rollingsync/analysis.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/appset/appset.h"
#include "engine/rollingsync/analysis.h"

namespace fleetwave::engine {

// What gating needs to know about one app of a step.
struct AppGateFacts {
  bool exists = false;          // the Application exists (a desired app not yet created does not)
  bool entry_healthy = false;   // its status entry is Healthy
  bool live_health_ok = false;  // LiveHealthAllowsCompletion(live health)
  bool skipped = false;         // an operator skipped it: counts as complete
  bool failed = false;          // exists, not skipped, and FailureOf says failed (max_failures.h)
  const std::string* name = nullptr;  // for the failed step's message
};

// What gating needs to know about one step beyond its apps.
struct StepGate {
  std::optional<IntOrString> max_failures;  // the step's, as decoded
  bool soaked = true;                       // StepSoaked (rollout_safety.h)
  // The step's analysis verdict (StepAnalysisState, rollout_safety.h): kPassed without one.
  AnalysisVerdict::State analysis = AnalysisVerdict::State::kPassed;
};

// Live health that does not hold a step: anything but Degraded, Missing and Unknown.
bool LiveHealthAllowsCompletion(const std::string& health);

// An app completes its step iff it exists and is skipped or (Healthy entry and live health ok).
bool AppCompletesStep(const AppGateFacts& app);

struct Eligibility {
  Eligibility() = default;
  explicit Eligibility(int first) : first_incomplete_step(first) {}

  int first_incomplete_step = -1;  // 0-based; -1 when every step is complete
  // The first incomplete step has more failed apps than its maxFailures allows: it failed, and
  // nothing of it is promoted or synced. `failed_apps` names them, in name order.
  bool failed = false;
  std::vector<std::string> failed_apps;
  // The first incomplete step is complete but for its soak (minSuccessTime).
  bool soaking = false;
  // [issue 29] The first incomplete step's apps are complete (within its budget) and its
  // analysis runs: measurements are wanted, while it soaks and after. `awaiting_analysis`: its
  // soak is done (or it has none) and only the analysis holds it. `analysis_failed`: its
  // analysis failed, which fails the step (`failed` is set too; `failed_apps` stays empty).
  bool analysis_running = false;
  bool awaiting_analysis = false;
  bool analysis_failed = false;

  // Steps up to and including the first incomplete one are open. Unmatched apps (-1) never are.
  bool StepOpen(int step) const {
    return step >= 0 && (first_incomplete_step < 0 || step <= first_incomplete_step);
  }
  // 1-based current step for conditions and status.rollout; 0 when complete.
  int CurrentStep() const { return first_incomplete_step + 1; }
};

// What holds one step, from its counts: the step's live apps (`live`, maxFailures' total), its
// failed ones and those that hold it otherwise (incomplete and not failed).
// Checked in this order: too many failed apps, incomplete apps, a failed analysis, the soak,
// an analysis still running.
enum class StepHold { kNone, kIncomplete, kFailed, kAnalysisFailed, kSoaking, kAnalysing };
StepHold HoldOfStep(const StepGate& gate, long long live, long long failed,
                    long long incomplete_not_failed);

// The Eligibility of a rollout whose first holding step is `step` (0-based, -1: none) for `why`,
// under that step's `gate`: its flags but failed_apps, which the caller fills for kFailed.
// Plan's ComputeEligibility and the tracker's Decide both build it here.
Eligibility EligibilityOfHold(int step, StepHold why, const StepGate& gate);

// `steps[s]` holds the facts of every app of step s, `gates[s]` its gate (absent: none). An
// empty step is complete.
Eligibility ComputeEligibility(const std::vector<std::vector<AppGateFacts>>& steps,
                               const std::vector<StepGate>& gates = {});

}  // namespace fleetwave::engine
