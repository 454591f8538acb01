// The simulated Deployment controller: for every Deployment in a cluster, one step of what
// kube-controller-manager's deployment and replicaset controllers do together — ReplicaSets
// per pod template (created and scaled through Cluster::Commit, so watchers see them),
// rolling updates bounded by maxSurge/maxUnavailable (or Recreate), minReadySeconds, pause,
// and the status and conditions (`Available`, `Progressing` with Kubernetes' reasons and
// progressDeadlineSeconds semantics) that `kubectl rollout status` reads. Level-triggered:
// each call recomputes from the stored objects and the simulated pods.
// Not thread-safe: io thread only.
#pragma once

#include "tools/kubesim/controllers/controller_context.h"

namespace fleetwave::kubesim {

// Steps every Deployment of `ctx.cluster` once.
void SyncDeployments(ControllerContext& ctx);

}  // namespace fleetwave::kubesim
