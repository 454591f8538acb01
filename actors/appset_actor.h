// The appset actor: owns one ApplicationSet. On every relevant event (a cluster's live data, a
// reload, a timer, an operator's command) it reconciles: gathers generated apps and their
// renders on the blocking pool, asks engine::ReconcileAppSet what to do, commits the decision to
// the store, and only then sends apply commands to cluster actors, one sync slot from the
// coordinator per attempt. Level-triggered: every reconcile starts from observed and stored
// state; events only wake it, and a burst of them while a reconcile runs costs one more.
//
// Messages (atoms.h):
//   (live_atom, ClusterUpdatePtr)                 from cluster actors
//   (spec_atom, AppSetSpecPtr)                    from the coordinator on reload
//   (sync_atom, app, revision ("" = pinned), caller) -> engine::CommandAnswer  a manual sync
//   (pause_atom | resume_atom, caller) -> engine::CommandAnswer                 (API)
//   (skip_atom, app, reason, caller) -> engine::CommandAnswer
//       answered once the command's record is committed (kAccepted: it will be carried out,
//       and the operation shows in the API until it ends) or with why it cannot be now
//   (reconcile_atom)                              wake up
//   -> deleter (reconcile_atom)                   a deletion mark was stored or cancelled
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/fwd.hpp>

#include "actors/services.h"
#include "engine/appset.h"
#include "engine/generate.h"
#include "engine/input_limits.h"

namespace fleetwave::actors {

// What the coordinator hands an appset actor, on spawn and on every reload.
struct AppSetSpec {
  engine::ApplicationSet appset;
  std::vector<engine::ClusterInfo> clusters;
  bool progressive_syncs = true;
  // How often the set is reconciled without an event, so new commits are seen (git.pollInterval).
  std::chrono::seconds poll_interval{60};
  // Deletion (appset_deletion.h): false once no file defines the set any more (this is then
  // its last good spec), which marks it PendingDeletion; `inputs_trusted` is false while the
  // ApplicationSet directory is empty or unreadable or the kubeconfig failed to load, when
  // nothing is marked; marks are due `deletion_grace` after they are made.
  bool defined = true;
  bool inputs_trusted = true;
  std::chrono::seconds deletion_grace{600};
  // fleetwave.yaml's `limits:`: what generating and rendering this set may cost.
  engine::InputLimits limits;
};
using AppSetSpecPtr = std::shared_ptr<const AppSetSpec>;
using ClusterMapPtr = std::shared_ptr<const std::map<std::string, caf::actor>>;

struct AppSetActorConfig {
  AppSetSpecPtr spec;
  // Cluster actors by context name. The map is the coordinator's registry at spawn time; a
  // reload that changes it re-sends the spec with the new map.
  ClusterMapPtr clusters;
  const Services* services = nullptr;
  // The deletion actor (deletion_actor.h), told when this actor stored or cancelled a mark.
  caf::actor deleter;
};

caf::actor SpawnAppSetActor(caf::actor_system& system, const caf::actor& coordinator,
                            AppSetActorConfig config);

}  // namespace fleetwave::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fleetwave::actors::AppSetSpecPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fleetwave::actors::ClusterMapPtr)
