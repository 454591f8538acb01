// The projection of a watched workload the cluster actor's informer keeps (CloneSet, StatefulSet,
// DaemonSet, Deployment, with or without fleetwave's app label): the object cut down, on the
// client's loop thread, to exactly the fields engine::ReadWorkload reads — in the object's own
// shape, so the actor decodes it with ReadWorkload itself and nothing can drift between the two.
// Thousands of workloads per cluster then cost a few hundred bytes each in the informer's cache,
// not whole objects (pod templates, managedFields). Pure functions.
#pragma once

#include <optional>

#include "engine/object_ref.h"
#include "engine/progress/workload.h"

namespace fleetwave::engine {

// The informer projector: apiVersion, kind, metadata (name, namespace, generation and the two
// annotations the deadline logic reads), the spec fields of the deadline and the rollout
// strategy, the status counters and revisions, and only the Progressing condition.
Json ProjectWorkload(const Json& object);

// The workload a projection describes, and its identity; nullopt when it is not a workload
// kind (a projection of something else never reaches a workload actor).
struct ProjectedWorkload {
  ObjectRef ref;
  Workload workload;
};
std::optional<ProjectedWorkload> WorkloadFromProjection(const Json& fields);

}  // namespace fleetwave::engine
