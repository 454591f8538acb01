// Health rules for the controllers that roll pods: Argo CD's for Deployment, StatefulSet,
// DaemonSet and ReplicaSet (kubectl's rollout-status logic underneath), fleetwave's table
// for CloneSet (health_kinds.h). Messages match gitops-engine's word for word, misspellings
// included ("less then"), because users grep for them.
#include <string>

#include "engine/health/health_kinds.h"
#include "engine/progress/workload.h"

namespace fleetwave::engine::health_rules {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

const Json* ConditionOfType(const Json& object, std::string_view type) {
  const Json* conds = FieldAt(object, {"status", "conditions"});
  if (conds == nullptr || !conds->is_array()) return nullptr;
  for (const Json& c : *conds) {
    if (StringAt(c, {"type"}) == type) return &c;
  }
  return nullptr;
}

}  // namespace

int64_t IntOr0(const Json& object, std::initializer_list<std::string_view> path) {
  return IntAt(object, path).value_or(0);
}

HealthStatus Deployment(const Json& d) {
  const Json* paused = FieldAt(d, {"spec", "paused"});
  if (paused != nullptr && paused->is_boolean() && paused->get<bool>()) {
    return {HealthCode::kSuspended, "Deployment is paused"};
  }
  if (IntOr0(d, {"metadata", "generation"}) > IntOr0(d, {"status", "observedGeneration"})) {
    return {HealthCode::kProgressing,
            "Waiting for rollout to finish: observed deployment generation less then desired "
            "generation"};
  }
  const Json* progressing = ConditionOfType(d, "Progressing");
  if (progressing != nullptr && StringAt(*progressing, {"reason"}) == "ProgressDeadlineExceeded") {
    return {HealthCode::kDegraded, "Deployment " + Quoted(StringAt(d, {"metadata", "name"})) +
                                       " exceeded its progress deadline"};
  }
  const int64_t updated = IntOr0(d, {"status", "updatedReplicas"});
  const int64_t replicas = IntOr0(d, {"status", "replicas"});
  const int64_t available = IntOr0(d, {"status", "availableReplicas"});
  if (const auto want = IntAt(d, {"spec", "replicas"}); want && updated < *want) {
    return {HealthCode::kProgressing, "Waiting for rollout to finish: " + Str(updated) +
                                          " out of " + Str(*want) +
                                          " new replicas have been updated..."};
  }
  if (replicas > updated) {
    return {HealthCode::kProgressing, "Waiting for rollout to finish: " + Str(replicas - updated) +
                                          " old replicas are pending termination..."};
  }
  if (available < updated) {
    return {HealthCode::kProgressing, "Waiting for rollout to finish: " + Str(available) + " of " +
                                          Str(updated) + " updated replicas are available..."};
  }
  return {HealthCode::kHealthy, ""};
}

HealthStatus StatefulSet(const Json& s) {
  const int64_t observed = IntOr0(s, {"status", "observedGeneration"});
  if (observed == 0 || IntOr0(s, {"metadata", "generation"}) > observed) {
    return {HealthCode::kProgressing, "Waiting for statefulset spec update to be observed..."};
  }
  const auto want = IntAt(s, {"spec", "replicas"});
  const int64_t ready = IntOr0(s, {"status", "readyReplicas"});
  const int64_t updated = IntOr0(s, {"status", "updatedReplicas"});
  if (want && ready < *want) {
    return {HealthCode::kProgressing, "Waiting for " + Str(*want - ready) + " pods to be ready..."};
  }
  const std::string type = StringAt(s, {"spec", "updateStrategy", "type"});
  const Json* rolling = FieldAt(s, {"spec", "updateStrategy", "rollingUpdate"});
  if (type == "RollingUpdate" && rolling != nullptr && !rolling->is_null()) {
    const auto partition = IntAt(*rolling, {"partition"});
    if (want && partition && updated < *want - *partition) {
      return {HealthCode::kProgressing,
              "Waiting for partitioned roll out to finish: " + Str(updated) + " out of " +
                  Str(*want - *partition) + " new pods have been updated..."};
    }
    return {HealthCode::kHealthy,
            "partitioned roll out complete: " + Str(updated) + " new pods have been updated..."};
  }
  if (type == "OnDelete") {
    return {HealthCode::kHealthy,
            "statefulset has " + Str(ready) + " ready pods (" + Str(updated) + " updated)"};
  }
  const std::string current = StringAt(s, {"status", "currentRevision"});
  const std::string update = StringAt(s, {"status", "updateRevision"});
  if (update != current) {
    return {HealthCode::kProgressing, "waiting for statefulset rolling update to complete " +
                                          Str(updated) + " pods at revision " + update + "..."};
  }
  return {HealthCode::kHealthy, "statefulset rolling update complete " +
                                    Str(IntOr0(s, {"status", "currentReplicas"})) +
                                    " pods at revision " + current + "..."};
}

HealthStatus DaemonSet(const Json& d) {
  if (IntOr0(d, {"metadata", "generation"}) > IntOr0(d, {"status", "observedGeneration"})) {
    return {HealthCode::kProgressing,
            "Waiting for rollout to finish: observed daemon set generation less then desired "
            "generation"};
  }
  const int64_t updated = IntOr0(d, {"status", "updatedNumberScheduled"});
  const int64_t desired = IntOr0(d, {"status", "desiredNumberScheduled"});
  const int64_t available = IntOr0(d, {"status", "numberAvailable"});
  if (StringAt(d, {"spec", "updateStrategy", "type"}) == "OnDelete") {
    return {HealthCode::kHealthy, "daemon set " + Str(updated) + " out of " + Str(desired) +
                                      " new pods have been updated"};
  }
  const std::string name = Quoted(StringAt(d, {"metadata", "name"}));
  if (updated < desired) {
    return {HealthCode::kProgressing, "Waiting for daemon set " + name +
                                          " rollout to finish: " + Str(updated) + " out of " +
                                          Str(desired) + " new pods have been updated..."};
  }
  if (available < desired) {
    return {HealthCode::kProgressing, "Waiting for daemon set " + name +
                                          " rollout to finish: " + Str(available) + " of " +
                                          Str(desired) + " updated pods are available..."};
  }
  return {HealthCode::kHealthy, ""};
}

HealthStatus ReplicaSet(const Json& r) {
  if (IntOr0(r, {"metadata", "generation"}) > IntOr0(r, {"status", "observedGeneration"})) {
    return {HealthCode::kProgressing,
            "Waiting for rollout to finish: observed replica set generation less then desired "
            "generation"};
  }
  const Json* failure = ConditionOfType(r, "ReplicaFailure");
  if (failure != nullptr && StringAt(*failure, {"status"}) == "True") {
    return {HealthCode::kDegraded, StringAt(*failure, {"message"})};
  }
  const int64_t available = IntOr0(r, {"status", "availableReplicas"});
  if (const auto want = IntAt(r, {"spec", "replicas"}); want && available < *want) {
    return {HealthCode::kProgressing, "Waiting for rollout to finish: " + Str(available) +
                                          " out of " + Str(*want) +
                                          " new replicas are available..."};
  }
  return {HealthCode::kHealthy, ""};
}

HealthStatus CloneSet(const Json& object, const Workload& w, const DeadlineView& deadline) {
  if (!w.StatusIsCurrent()) {
    return {HealthCode::kProgressing,
            "Waiting for rollout to finish: observed CloneSet generation less than desired "
            "generation"};
  }
  if (deadline.exceeded) return {HealthCode::kDegraded, deadline.message};
  if (w.paused) return {HealthCode::kSuspended, "CloneSet is paused"};
  const int64_t expected = ExpectedUpdatedReplicas(w);
  if (expected < w.replicas && expected <= w.updated_available_replicas) {
    // A partition is a deliberate stop; whether the step it belongs to is done is the owner's
    // call, made with fleetwave.io/complete-on-partition.
    const std::string note =
        StringAt(object, {"metadata", "annotations", "fleetwave.io/complete-on-partition"});
    const std::string message =
        "CloneSet has been paused due to partition ready: " + Str(w.updated_available_replicas) +
        " of " + Str(w.replicas) + " pods updated and available";
    return {note == "true" ? HealthCode::kHealthy : HealthCode::kSuspended, message};
  }
  if (w.updated_available_replicas == w.status_replicas && w.status_replicas == w.replicas &&
      w.current_revision == w.update_revision) {
    return {HealthCode::kHealthy, "CloneSet is available: " + Str(w.replicas) +
                                      " pods updated and available at revision " +
                                      w.update_revision};
  }
  return {HealthCode::kProgressing,
          "Waiting for rollout to finish: " + Str(w.updated_available_replicas) + " of " +
              Str(w.replicas) + " updated pods are available..."};
}

}  // namespace fleetwave::engine::health_rules
