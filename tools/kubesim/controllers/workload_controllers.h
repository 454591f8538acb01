// The simulated StatefulSet, DaemonSet and CloneSet controllers. Each steps every object of
// its kind in a cluster once per call: simulated pods by revision (ordered for StatefulSets,
// one per simulated node for DaemonSets), the kind's update strategy (partition, OnDelete,
// maxUnavailable, paused), and the status fields the real controllers write (Kruise's full
// CloneSet status included). Level-triggered, like the Deployment controller.
// Not thread-safe: io thread only.
#pragma once

#include "tools/kubesim/controllers/controller_context.h"

namespace fleetwave::kubesim {

void SyncStatefulSets(ControllerContext& ctx);
void SyncDaemonSets(ControllerContext& ctx);
void SyncCloneSets(ControllerContext& ctx);

// Kruise's CalculatePartitionReplicas: a percentage rounds up, a partition below 100% still
// updates one pod when replicas > 1, and the result never exceeds replicas.
long long CloneSetPartition(const Json& partition, long long replicas);

}  // namespace fleetwave::kubesim
