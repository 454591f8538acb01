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

void ControllerManager::Tick(Cluster& cluster) {
  // An idle cluster costs four map lookups per tick: thousands of them must stay cheap.
  static const ResourceId kinds[] = {kDeployments, FindResourceByKind("apps", "StatefulSet")->id,
                                     FindResourceByKind("apps", "DaemonSet")->id, kCloneSets};
  bool any = false;
  for (ResourceId k : kinds) any = any || cluster.store().Count(k, "") > 0;
  auto found = clusters_.find(cluster.index());
  if (!any && (found == clusters_.end() || found->second.pods.owner_count() == 0)) {
    if (found != clusters_.end() && found->second.tracker) {
      // Workloads vanished since the last tick: report them deleted once.
      found->second.tracker->BeginSweep();
      found->second.tracker->Sweep(cluster.clock().Now());
    }
    return;
  }
  PerCluster& s = state(cluster.index());
  TimePoint now = cluster.clock().Now();
  if (s.settled && s.resource_version == cluster.resource_version() && now < s.wake) return;
  std::uint64_t before = cluster.resource_version();
  std::set<std::string> live;
  ControllerContext ctx{cluster, now, options_, s.pods, *s.tracker, live};
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
  s.wake = s.pods.NextReadyAfter(now, now + std::chrono::seconds(1));
}

}  // namespace fleetwave::kubesim
