// The deletion machinery that runs on controller ticks: the namespace controller (a
// Terminating namespace deletes its contents, then itself) and the garbage collector
// (owner references, foregroundDeletion and orphan finalizers). One step per tick, so
// clients observe the intermediate states. Not thread-safe: io thread only.
#pragma once

#include "tools/kubesim/cluster.h"

namespace fleetwave::kubesim {

// Advances pending deletions in `cluster` by one step. Cheap when nothing is pending.
void LifecycleTick(Cluster& cluster);

}  // namespace fleetwave::kubesim
