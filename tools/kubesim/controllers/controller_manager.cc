#include "tools/kubesim/controllers/controller_manager.h"

#include <iostream>

#include "tools/kubesim/controllers/deployment_controller.h"
#include "tools/kubesim/controllers/workload_controllers.h"

namespace fleetwave::kubesim {

ControllerManager::PerCluster& ControllerManager::state(int cluster_index) {
  auto& s = clusters_[cluster_index];
  if (!s.tracker)
    s.tracker = std::make_unique<RolloutTracker>(events_, "sim-" + std::to_string(cluster_index));
  return s;
}

bool ControllerManager::Settled(int cluster_index) const {
  auto it = clusters_.find(cluster_index);
  return it == clusters_.end() || it->second.settled;
}

std::optional<TimePoint> ControllerManager::NextDue(int cluster_index) const {
  auto it = clusters_.find(cluster_index);
  if (it == clusters_.end()) return std::nullopt;
  return it->second.next_due;
}

void ControllerManager::Tick(Cluster& cluster) {
  // A cluster without workloads costs four map lookups.
  static const ResourceId kinds[] = {kDeployments, FindResourceByKind("apps", "StatefulSet")->id,
                                     FindResourceByKind("apps", "DaemonSet")->id, kCloneSets};
  std::size_t workloads = 0;
  for (ResourceId k : kinds) workloads += cluster.store().Count(k, "");
  auto found = clusters_.find(cluster.index());
  if (workloads == 0 && (found == clusters_.end() || found->second.pods.owner_count() == 0)) {
    if (found != clusters_.end() && found->second.tracker) {
      // Workloads vanished since the last tick: report them deleted once.
      found->second.tracker->BeginSweep();
      found->second.tracker->Sweep(cluster.clock().Now());
      found->second.settled = true;
      found->second.next_due.reset();
    }
    return;
  }
  PerCluster& s = state(cluster.index());
  TimePoint now = cluster.clock().Now();
  if (s.settled && s.resource_version == cluster.resource_version() &&
      (!s.next_due || now < *s.next_due))
    return;
  ++syncs_;
  objects_synced_ += workloads;
  std::uint64_t before = cluster.resource_version();
  std::set<std::string> live;
  std::optional<TimePoint> due;
  ControllerContext ctx{cluster, now, options_, s.pods, *s.tracker, live, due};
  s.tracker->BeginSweep();
  // Each controller is isolated: a bug in one kind must not stop the others.
  auto run = [&](const char* what, void (*sync)(ControllerContext&)) {
    try {
      sync(ctx);
    } catch (const std::exception& e) {
      std::cerr << "kubesim: internal error in the " << what << " controller of " << cluster.name()
                << ": " << e.what() << "\n";
    }
  };
  run("deployment", SyncDeployments);
  run("statefulset", SyncStatefulSets);
  run("daemonset", SyncDaemonSets);
  run("cloneset", SyncCloneSets);
  s.tracker->Sweep(ctx.now);
  s.pods.Retain(live);
  s.resource_version = cluster.resource_version();
  s.settled = s.resource_version == before;
  // Exact: the controllers' own deadlines and the pods' ready/available times.
  if (auto pods = s.pods.NextChangeAfter(now)) WakeAt(ctx, *pods);
  s.next_due = due;
}

}  // namespace fleetwave::kubesim
