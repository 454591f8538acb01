// An Application's live health on one cluster, from the inputs the cluster actor has: whether
// the cluster is reachable, the read-after-write gate of the app's last apply, and the health
// of each desired object that exists live (engine::AssessHealth over its health projection).
// The order of the rules is the point: an unreachable cluster is Unknown whatever the cache
// says; stale watch data is Progressing (never judged); only then the worst object wins.
#pragma once

#include <map>
#include <vector>

#include "engine/appset/render.h"
#include "engine/health/health.h"
#include "engine/object_ref.h"
#include "engine/sync/read_after_write.h"

namespace fleetwave::engine {

struct AppHealthInput {
  bool reachable = true;
  ReadAfterWriteGate gate;                 // GateReadAfterWrite of the last apply (ready when none)
  std::vector<ObjectRef> desired;          // the rendered objects, in render order
  std::map<ObjectRef, HealthStatus> live;  // health of each desired object that exists live
};

// Unknown `cluster is unreachable` when unreachable; the gate's Progressing message while the
// watches have not caught up; else AggregateHealth over the desired objects, a desired object
// absent live counting as Missing.
HealthStatus AssessAppHealth(const AppHealthInput& input);

}  // namespace fleetwave::engine
