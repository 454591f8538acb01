// The appset actor: owns one ApplicationSet. On every relevant event (a cluster's live data, a
// reload, a timer, an operator's command) it reconciles: gathers generated apps and their
// renders on the blocking pool, asks engine::ReconcileAppSet what to do, commits the decision to
// the store, and only then sends apply commands to cluster actors, one sync slot from the
// coordinator per attempt. Level-triggered: every reconcile starts from observed and stored
// state; events only wake it, and a burst of them while a reconcile runs costs one more.
//
// Its protocol is the typed interface AppSetActor below; it asks its parent (SetParent) for
// sync slots and tells it when a deletion mark was stored or cancelled.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "actors/cluster_interface.h"
#include "actors/coordinator_interface.h"
#include "actors/services.h"
#include "engine/appset/appset.h"
#include "engine/appset/generate.h"
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
  // fleetwave.yaml's `analysis.prometheus`: the Prometheus a step's analysis queries when the
  // step names none (issue 29).
  std::string analysis_prometheus;
};
using AppSetSpecPtr = std::shared_ptr<const AppSetSpec>;

}  // namespace fleetwave::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fleetwave::actors::AppSetSpecPtr)

namespace fleetwave::actors {

struct AppSetActorConfig {
  AppSetSpecPtr spec;
  // Cluster actors by context name. The map is the coordinator's registry at spawn time; a
  // reload that changes it re-sends the spec with the new map.
  ClusterMapPtr clusters;
  const Services* services = nullptr;
};

// What the coordinator and the cluster actors may send a set (its own timers and pool results
// are not reachable through this handle).
using AppSetActor = LiveSink::extend<
    // A reload: the set's spec and the cluster actors now in force (null: unchanged).
    caf::reacts_to<spec_atom, AppSetSpecPtr, ClusterMapPtr>,
    // Wake up and reconcile now (a refresh, a webhook, the deletion actor).
    caf::reacts_to<reconcile_atom>,
    // The operator's commands, each with its caller. Answered once the command's record is
    // committed (kAccepted: it will be carried out, and the operation shows in the API until it
    // ends) or with why it cannot be now. sync: (app, revision ("" = pinned), caller).
    caf::replies_to<sync_atom, std::string, std::string, std::string>::with<engine::CommandAnswer>,
    caf::replies_to<pause_atom, std::string>::with<engine::CommandAnswer>,
    caf::replies_to<resume_atom, std::string>::with<engine::CommandAnswer>,
    caf::replies_to<abort_atom, std::string>::with<engine::CommandAnswer>,
    // rollback: (target revision ("" = each app's last healthy revisions), caller).
    caf::replies_to<rollback_atom, std::string, std::string>::with<engine::CommandAnswer>,
    // skip: (app, reason, caller).
    caf::replies_to<skip_atom, std::string, std::string, std::string>::with<engine::CommandAnswer>>;

// `parent` grants sync slots and hears when a deletion mark was stored or cancelled.
AppSetActor SpawnAppSetActor(caf::actor_system& system, const SetParent& parent,
                             AppSetActorConfig config);

}  // namespace fleetwave::actors
