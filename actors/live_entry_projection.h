// The cluster actor's informer projection: what one watched object is reduced to on the client's
// loop thread (the app label, engine::ProjectLiveObject and engine::AssessHealth of the whole
// object). The informer hands it to the actor as is (clients::Projection::typed): the live
// object is made once, immutable, and shared from there on — no JSON encoding in between.
#pragma once

#include <optional>
#include <string>

#include "actors/protocol.h"
#include "cluster-clients/result.h"

namespace fleetwave::actors {

using clients::Json;

struct ProjectedEntry {
  std::string label;  // the fleetwave.io/app label value ("" when absent)
  LiveEntry entry;    // entry.object is never null
  // Workloads: their health should the daemon judge the progress deadline exceeded (a
  // Degraded one carries an empty message; the cluster actor puts the condition's in).
  std::optional<engine::HealthStatus> health_if_exceeded;
};

// The informer's typed projector: a workload's `entry.health` is judged as if its deadline
// were not exceeded, and `health_if_exceeded` as if it were.
ProjectedEntry ProjectEntry(const Json& object);

}  // namespace fleetwave::actors
