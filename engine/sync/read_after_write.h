// Read-after-write gating: after fleetwave applies objects, an app's status is judged only
// from watch data that has caught up with those writes — each object's resourceVersion at
// least the one the apply returned and, for kinds whose controller reports it,
// status.observedGeneration at least the generation the apply returned. Until then the app
// is Progressing, `Waiting for <kind>/<name> to observe generation <g>`, so a step is never
// judged on stale data (the stale-status bugs Argo CD has had).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/health/health.h"
#include "engine/live_objects.h"
#include "engine/object_ref.h"

namespace fleetwave::engine {

// What one apply returned for one object.
struct AppliedObject {
  ObjectRef ref;
  std::string resource_version;
  int64_t generation = 0;
};

// resourceVersions are opaque to clients, but etcd (and kubesim) use integers: compared
// numerically when both are decimal integers; otherwise only equality counts as caught up.
bool ResourceVersionAtLeast(std::string_view observed, std::string_view applied);

// Kinds whose controllers write status.observedGeneration (Deployment, StatefulSet,
// DaemonSet, ReplicaSet, CloneSet and Kruise's StatefulSet/DaemonSet). For other kinds it is
// awaited only when the live object reports one.
bool KindReportsObservedGeneration(const ObjectRef& ref);

struct ReadAfterWriteGate {
  bool ready = true;                    // the app's status may be judged from `live`
  std::optional<HealthStatus> waiting;  // when not ready: Progressing with the message
};

// `applied` are the results of the app's last apply (in apply order); `live` the projections
// the watches hold now. The first object not caught up names the message.
ReadAfterWriteGate GateReadAfterWrite(const std::vector<AppliedObject>& applied,
                                      const LiveObjects& live);

}  // namespace fleetwave::engine
