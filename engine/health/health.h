// Health of Kubernetes objects and of the Applications that own them, as Argo CD judges it:
// gitops-engine's built-in rules for Deployment, StatefulSet, DaemonSet, ReplicaSet, Pod,
// Service, PersistentVolumeClaim, Job and Ingress (same outcomes, same messages); CloneSet as
// Argo's Lua customization for it, with fleetwave's deadline rule; anything else Healthy once it
// exists. On top of that, a workload whose progress deadline is exceeded (progress_deadline.h) is
// Degraded whatever its kind. Pure functions of the object as the API server returns it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/progress/progress_deadline.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

// Declared from most to least healthy: Argo's order, in which the worst wins.
enum class HealthCode { kHealthy, kSuspended, kProgressing, kMissing, kDegraded, kUnknown };

std::string_view HealthCodeName(HealthCode code);
std::optional<HealthCode> ParseHealthCode(std::string_view name);
// Whether `candidate` is a worse health than `current`.
inline bool IsWorse(HealthCode current, HealthCode candidate) { return candidate > current; }

struct HealthStatus {
  HealthCode status = HealthCode::kHealthy;
  std::string message;

  bool operator==(const HealthStatus&) const = default;
};

// {"status": "...", "message": "..."} in that order, as `fleetwave health` prints it.
nlohmann::ordered_json HealthToJson(const HealthStatus& health);

// What fleetwave itself decided about a workload's progress deadline (the daemon's stored
// condition), overriding whatever the object's own status says.
struct DeadlineView {
  bool exceeded = false;
  std::string message;  // the timeout condition's message, shown as the health message
};
DeadlineView DeadlineViewOf(const ProgressResult& result);

// The health of one live object. Without `deadline`, a workload's deadline is read from its
// own Progressing condition (a timeout for its current revision, with a deadline in force),
// as the stateless `fleetwave health` must.
HealthStatus AssessHealth(const Json& object,
                          const std::optional<DeadlineView>& deadline = std::nullopt);

// One object of an Application, with its health (Missing when it does not exist live).
struct ResourceHealth {
  std::string kind;
  std::string name;
  HealthStatus health;
};

// An Application's health: the worst of its objects'; the message names the first object with
// that health. No objects: Healthy.
HealthStatus AggregateHealth(const std::vector<ResourceHealth>& resources);

// A labelled workload's health as the daemon reports it: `if_exceeded` (what its projection says
// it is once the deadline passed, Degraded for a Deployment or CloneSet) while its workload
// actor's decision says the progress deadline is exceeded, with that decision's message when the
// projection has none; otherwise `judged`, its health without a timeout. Pinned by
// health_test.cc WorkloadHealthUnderItsDeadline.
HealthStatus WorkloadHealthUnderDeadline(const HealthStatus& judged,
                                         const HealthStatus& if_exceeded, bool exceeded,
                                         const std::string& exceeded_message);

}  // namespace fleetwave::engine
