// The per-kind health rules behind AssessHealth (engine/health/health.h). Internal to the engine;
// each takes the object as the API server returns it. Absent numeric fields read as 0, as
// they do in the typed Go structs the Argo CD rules were written against.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "engine/health/health.h"

namespace fleetwave::engine::health_rules {

// Argo CD's built-in rules (gitops-engine pkg/health).
HealthStatus Deployment(const Json& object);
HealthStatus StatefulSet(const Json& object);
HealthStatus DaemonSet(const Json& object);
HealthStatus ReplicaSet(const Json& object);
HealthStatus Pod(const Json& object);
HealthStatus Service(const Json& object);
HealthStatus PersistentVolumeClaim(const Json& object);
HealthStatus Job(const Json& object);
HealthStatus Ingress(const Json& object);

// CloneSet: stale status Progressing, deadline exceeded Degraded, paused Suspended, partition
// reached Suspended (or Healthy with complete-on-partition), fully updated Healthy.
HealthStatus CloneSet(const Json& object, const Workload& workload, const DeadlineView& deadline);

// An integer field, 0 when absent (Go's zero value).
int64_t IntOr0(const Json& object, std::initializer_list<std::string_view> path);

}  // namespace fleetwave::engine::health_rules
