#include "engine/health/app_health.h"

namespace fleetwave::engine {

HealthStatus AssessAppHealth(const AppHealthInput& input) {
  if (!input.reachable) return {HealthCode::kUnknown, "cluster is unreachable"};
  if (!input.gate.ready && input.gate.waiting) return *input.gate.waiting;
  std::vector<ResourceHealth> resources;
  resources.reserve(input.desired.size());
  for (const auto& ref : input.desired) {
    auto it = input.live.find(ref);
    resources.push_back(
        {ref.kind, ref.name,
         it == input.live.end() ? HealthStatus{HealthCode::kMissing, ""} : it->second});
  }
  return AggregateHealth(resources);
}

}  // namespace fleetwave::engine
