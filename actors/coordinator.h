// The coordinator: the daemon's root actor. It holds the inputs in force (fleetwave.yaml, the
// clusters, the ApplicationSet files), spawns one cluster actor per kubeconfig context and one
// appset actor per ApplicationSet, supervises them (an actor that fails is restarted and
// re-reads its state from the store; the failure is logged), reloads on request (SIGHUP, a
// change in the ApplicationSet directory) keeping the last good version of whatever fails to
// load, enforces the global limit on concurrent sync attempts, routes operator commands, and
// stops everything on request.
//
// Its protocol is the typed interfaces of coordinator_interface.h: CoordinatorCommands for the
// front ends, SetParent for the appset actors, DeletionParent for the deletion actor.
//
// Deletion (product §3.5): a set no file defines any more keeps its actor (with its last good
// spec) to mark it PendingDeletion; the deletion actor (deletion_actor.h) deletes after the
// grace period. Nothing is marked while the directory is empty or unreadable or the
// configuration (kubeconfig) failed to load. A context that left the kubeconfig keeps its
// cluster actor while a pending deletion needs it.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <caf/fwd.hpp>

#include "actors/cluster_interface.h"
#include "actors/coordinator_interface.h"
#include "actors/daemon_inputs.h"
#include "actors/services.h"
#include "cluster-clients/kubeconfig.h"

namespace fleetwave::actors {

struct CoordinatorConfig {
  const Services* services = nullptr;
  // Reads every input from disk (blocking; runs on the pool).
  std::function<DaemonInputs()> load;
  DaemonInputs initial;  // loaded before the actor system started
  // Spawns the actor of one cluster (tests substitute their own).
  std::function<ClusterActor(caf::actor_system&, const clients::ClusterConfig&)> spawn_cluster;
  // The cluster actors outlive this coordinator (leader election: spawn_cluster takes them from
  // the daemon's ClusterPool, cluster_pool.h): its stop leaves them running for the next term.
  bool clusters_outlive_term = false;
  int max_concurrent_syncs = 50;
};

CoordinatorActor SpawnCoordinator(caf::actor_system& system, CoordinatorConfig config);

}  // namespace fleetwave::actors
