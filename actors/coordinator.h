// The coordinator: the daemon's root actor. It holds the inputs in force (fleetwave.yaml, the
// clusters, the ApplicationSet files), spawns one cluster actor per kubeconfig context and one
// appset actor per ApplicationSet, supervises them (an actor that fails is restarted and
// re-reads its state from the store; the failure is logged), reloads on request (SIGHUP, a
// change in the ApplicationSet directory) keeping the last good version of whatever fails to
// load, enforces the global limit on concurrent sync attempts, routes operator commands, and
// stops everything on request.
//
// Messages (atoms.h):
//   (reload_atom)                         load the inputs again (on the blocking pool)
//   (reload_atom, uint64_t ticket)        the same; Publisher::reloaded reports the ticket done
//   (ping_atom) -> (ping_atom)            the systemd watchdog's heartbeat
//   (slot_atom) -> (slot_atom)            a sync slot; answered once one is free
//   (release_atom)                        the sender's attempt ended
//   (sync_atom, appset, app, revision, caller)  a manual sync, forwarded to the appset actor
//   (pause_atom | resume_atom, appset, caller)  operator actions on a set, forwarded
//   (skip_atom, appset, app, reason, caller)    an operator's skip of an app, forwarded
//   (refresh_atom, caller)                an operator's refresh: every appset actor reconciles
//   (webhook_atom, urls, ref, default_branch, caller)  a verified push: the sets following the
//                                         pushed repository at the pushed ref reconcile now
//   (delete_atom, appset, caller)         the API's DELETE: a set pending deletion goes now
//   (reconcile_atom)                      an appset actor stored or cancelled a deletion mark
//   (deleted_atom, appset)                the deletion actor completed a set's deletion
//   (needs_atom, clusters)                the clusters pending deletions still need
//   (stop_atom)                           stop every child, then itself
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
  std::function<caf::actor(caf::actor_system&, const clients::ClusterConfig&)> spawn_cluster;
  int max_concurrent_syncs = 50;
};

caf::actor SpawnCoordinator(caf::actor_system& system, CoordinatorConfig config);

}  // namespace fleetwave::actors
