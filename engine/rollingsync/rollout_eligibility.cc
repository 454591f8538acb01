#include "engine/rollingsync/rollout_eligibility.h"

#include <algorithm>

#include "engine/rollingsync/max_failures.h"

namespace fleetwave::engine {

bool LiveHealthAllowsCompletion(const std::string& health) {
  return health != "Degraded" && health != "Missing" && health != "Unknown";
}

bool AppCompletesStep(const AppGateFacts& app) {
  return app.exists && (app.skipped || (app.entry_healthy && app.live_health_ok));
}

StepHold HoldOfStep(const StepGate& gate, long long live, long long failed,
                    long long incomplete_not_failed) {
  const auto budget = MaxFailuresLimit(gate.max_failures, live);
  if (budget && failed > *budget) return StepHold::kFailed;
  // Without a budget a failed app holds the step as any incomplete one does (Argo CD's rule).
  if (incomplete_not_failed > 0 || (!budget && failed > 0)) return StepHold::kIncomplete;
  using Analysis = AnalysisVerdict::State;
  if (gate.analysis == Analysis::kFailed) return StepHold::kAnalysisFailed;
  if (!gate.soaked) return StepHold::kSoaking;
  if (gate.analysis == Analysis::kRunning) return StepHold::kAnalysing;
  return StepHold::kNone;
}

Eligibility EligibilityOfHold(int step, StepHold why, const StepGate& gate) {
  Eligibility out(step);
  if (step < 0) return out;
  out.soaking = why == StepHold::kSoaking;
  out.analysis_failed = why == StepHold::kAnalysisFailed;
  out.failed = why == StepHold::kFailed || out.analysis_failed;
  out.awaiting_analysis = why == StepHold::kAnalysing;
  out.analysis_running =
      (out.soaking && gate.analysis == AnalysisVerdict::State::kRunning) || out.awaiting_analysis;
  return out;
}

Eligibility ComputeEligibility(const std::vector<std::vector<AppGateFacts>>& steps,
                               const std::vector<StepGate>& gates) {
  Eligibility out;
  for (size_t s = 0; s < steps.size(); ++s) {
    long long live = 0, failed = 0, incomplete = 0;
    for (const auto& app : steps[s]) {
      if (app.exists) ++live;
      if (AppCompletesStep(app)) continue;
      if (app.failed) {
        ++failed;
      } else {
        ++incomplete;
      }
    }
    const StepGate gate = s < gates.size() ? gates[s] : StepGate{};
    const StepHold hold = HoldOfStep(gate, live, failed, incomplete);
    if (hold == StepHold::kNone) continue;
    out = EligibilityOfHold(static_cast<int>(s), hold, gate);
    if (hold == StepHold::kFailed) {
      for (const auto& app : steps[s]) {
        if (app.failed && !AppCompletesStep(app) && app.name) out.failed_apps.push_back(*app.name);
      }
      std::sort(out.failed_apps.begin(), out.failed_apps.end());
    }
    return out;
  }
  return out;
}

}  // namespace fleetwave::engine
