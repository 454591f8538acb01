// Runs the simulated controllers of every kind over one cluster per Tick: Deployments (with
// their ReplicaSets), StatefulSets, DaemonSets and CloneSets, with the simulated pods and the
// rollout-transition tracking that feeds GET /kubesim/events. One per simulator; per-cluster
// state (pods, trackers) is kept here, keyed by cluster index.
// Not thread-safe: io thread only.
#pragma once

#include <map>
#include <memory>

#include "tools/kubesim/controllers/controller_context.h"
#include "tools/kubesim/controllers/event_log.h"

namespace fleetwave::kubesim {

class ControllerManager {
 public:
  ControllerManager(ControllerOptions options, EventLog* events)
      : options_(options), events_(events) {}
  // One step of every controller over `cluster` at the cluster's clock's now.
  void Tick(Cluster& cluster);
  const ControllerOptions& options() const { return options_; }
  PodModel& pods(int cluster_index) { return state(cluster_index).pods; }

 private:
  struct PerCluster {
    PodModel pods;
    std::unique_ptr<RolloutTracker> tracker;
    // A cluster whose last step changed nothing, and that nobody wrote to since, sleeps until
    // a pod turns ready or a second has passed (time-based transitions — minReadySeconds,
    // progress deadlines — have second precision), so thousands of settled clusters cost
    // almost nothing per tick.
    bool settled = false;
    std::uint64_t resource_version = 0;
    TimePoint wake{};
  };
  PerCluster& state(int cluster_index);

  ControllerOptions options_;
  EventLog* events_;
  std::map<int, PerCluster> clusters_;
};

}  // namespace fleetwave::kubesim
