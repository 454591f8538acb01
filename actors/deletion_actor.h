// The deletion actor: one per daemon, the owner of every stored deletion (deletions/<set>/set
// and deletions/<set>/app/<app>). Appset actors only *mark* what disappeared (PendingDeletion,
// with the snapshot deleting needs) and cancel marks when it reappears; this actor waits out
// the grace period with one CAF timer at the earliest due time (never polling), then runs the
// Deleting phase round by round through engine::PlanDeletionRound: it stores the phase and
// progress first (write-ahead, compare-and-set on the record's revision, so a concurrent
// cancel wins) and only then sends DeleteCommands to the cluster actors; the next round comes
// when a cluster's watch reports the objects gone. A completed set deletion removes every
// record of the set and tells the coordinator. Nothing starts while the inputs are not trusted
// (an empty or unreadable ApplicationSet directory, a kubeconfig that failed to load).
//
// Its protocol is the typed interface DeletionActor below; it reports to its parent
// (DeletionParent, coordinator_interface.h) each set whose deletion completed and the clusters
// pending deletions still need.
#pragma once

#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "actors/appset_actor.h"
#include "actors/services.h"

namespace fleetwave::actors {

struct DeletionActorConfig {
  const Services* services = nullptr;
  // Unused until the first (clusters_atom, ...): the coordinator sends it right after spawning.
  ClusterMapPtr clusters;
  bool inputs_trusted = true;
  // How long a failed delete waits before it is sent again.
  std::chrono::seconds retry{5};
};

// What the coordinator and the cluster actors may send the deletion actor.
using DeletionActor = LiveSink::extend<
    // The stored deletions changed: read them again.
    caf::reacts_to<reconcile_atom>,
    // The cluster actors now in force and whether the inputs are trusted, on every change.
    caf::reacts_to<clusters_atom, ClusterMapPtr, bool>,
    // The API: a pending set is due now (appset, caller).
    caf::replies_to<delete_atom, std::string, std::string>::with<engine::CommandAnswer>>;

DeletionActor SpawnDeletionActor(caf::actor_system& system, const DeletionParent& parent,
                                 DeletionActorConfig config);

}  // namespace fleetwave::actors
