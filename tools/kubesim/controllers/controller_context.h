// What one controller step over one cluster works with: the cluster, the simulated `now`,
// the simulated pods, the options shared by all controllers, and the tracker that records
// rollout transitions. Built by ControllerManager for each tick; holds references only.
// Not thread-safe: io thread only.
#pragma once

#include <chrono>
#include <optional>
#include <set>
#include <string>

#include "tools/kubesim/cluster.h"
#include "tools/kubesim/controllers/event_log.h"
#include "tools/kubesim/controllers/pod_model.h"

namespace fleetwave::kubesim {

struct ControllerOptions {
  Duration ready_delay = std::chrono::milliseconds(200);  // --ready-ms
  int nodes = 3;                                          // --nodes (DaemonSet)
  bool kruise_progress_conditions = false;                // --kruise-progress-conditions
};

struct ControllerContext {
  Cluster& cluster;
  TimePoint now;
  const ControllerOptions& options;
  PodModel& pods;
  RolloutTracker& tracker;
  // Uids of every pod owner still alive; pods of other owners are forgotten after the tick.
  std::set<std::string>& live_owners;
  // The earliest later time at which a controller's answer changes with time alone (a
  // progress deadline); the pods' own times are added by the manager. nullopt: none.
  std::optional<TimePoint>& next_due;
};

// Records that something in the cluster becomes due at `t` (ignored unless after now).
inline void WakeAt(ControllerContext& ctx, TimePoint t) {
  if (t > ctx.now && (!ctx.next_due || t < *ctx.next_due)) ctx.next_due = t;
}

}  // namespace fleetwave::kubesim
