#include "engine/rollout_eligibility.h"

namespace fleetwave::engine {

bool LiveHealthAllowsCompletion(const std::string& health) {
  return health != "Degraded" && health != "Missing" && health != "Unknown";
}

bool AppCompletesStep(const AppGateFacts& app) {
  return app.exists && (app.skipped || (app.entry_healthy && app.live_health_ok));
}

Eligibility ComputeEligibility(const std::vector<std::vector<AppGateFacts>>& steps) {
  Eligibility out;
  for (size_t s = 0; s < steps.size(); ++s) {
    for (const auto& app : steps[s]) {
      if (!AppCompletesStep(app)) {
        out.first_incomplete_step = static_cast<int>(s);
        return out;
      }
    }
  }
  return out;
}

}  // namespace fleetwave::engine
