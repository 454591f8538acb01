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
// Messages (atoms.h):
//   (reconcile_atom)                               the stored deletions changed: read again
//   (clusters_atom, ClusterMapPtr, bool trusted)   from the coordinator on every change
//   (delete_atom, appset, caller)                  the API: a pending set is due now
//   (live_atom, ClusterUpdatePtr)                  from cluster actors
//   -> coordinator (deleted_atom, appset)          a set's deletion completed
//   -> coordinator (needs_atom, std::vector<std::string> clusters)  clusters still needed
#pragma once

#include <caf/fwd.hpp>

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

caf::actor SpawnDeletionActor(caf::actor_system& system, const caf::actor& coordinator,
                              DeletionActorConfig config);

}  // namespace fleetwave::actors
