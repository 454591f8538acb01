// Runs the simulated controllers of every kind over one cluster per Tick: Deployments (with
// their ReplicaSets), StatefulSets, DaemonSets and CloneSets, with the simulated pods and the
// rollout-transition tracking that feeds GET /kubesim/events. One per simulator; per-cluster
// state (pods, trackers) is kept here, keyed by cluster index.
// Not thread-safe: io thread only.
#pragma once

#include <map>
#include <memory>
#include <optional>

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

  // Whether the last step over the cluster changed nothing (so, unless it is written, the
  // controllers have nothing to do before NextDue). A cluster never stepped is settled.
  bool Settled(int cluster_index) const;
  // When a settled cluster next has something to do with no write: the earliest time a pod
  // turns ready or available, or a progress deadline passes. nullopt: never.
  std::optional<TimePoint> NextDue(int cluster_index) const;
  // Work done, for GET /kubesim/stats: steps that ran the controllers, and the workload
  // objects those steps synced.
  std::uint64_t syncs() const { return syncs_; }
  std::uint64_t objects_synced() const { return objects_synced_; }

 private:
  struct PerCluster {
    PodModel pods;
    std::unique_ptr<RolloutTracker> tracker;
    // A cluster whose last step changed nothing, and that nobody wrote to since, sleeps until
    // the exact time something becomes due (`next_due`), so thousands of settled clusters
    // cost nothing until then.
    bool settled = false;
    std::uint64_t resource_version = 0;
    std::optional<TimePoint> next_due;
  };
  PerCluster& state(int cluster_index);

  ControllerOptions options_;
  EventLog* events_;
  std::map<int, PerCluster> clusters_;
  std::uint64_t syncs_ = 0;
  std::uint64_t objects_synced_ = 0;
};

}  // namespace fleetwave::kubesim
