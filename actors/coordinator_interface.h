// The coordinator's protocol as typed actor interfaces, one per kind of peer, so each peer holds
// a handle that can send only what it may and the compiler checks every send and reply.
// The coordinator implements all of them (coordinator.h).
#pragma once

#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "actors/atoms.h"
#include "engine/operator_command.h"

namespace fleetwave::actors {

// What an appset actor asks of its parent.
using SetParent = caf::typed_actor<
    // One global sync slot for one attempt, answered once one is free (engine::SyncSlots
    // shares them fairly among the sets asking); held until the sender's release.
    caf::replies_to<slot_atom>::with<slot_atom>, caf::reacts_to<release_atom>,
    // The set stored or cancelled a deletion mark: the deletion actor reads the marks again.
    caf::reacts_to<reconcile_atom>>;

// What the deletion actor reports to its parent.
using DeletionParent = caf::typed_actor<
    // A set's deletion completed: its actor can go.
    caf::reacts_to<deleted_atom, std::string>,
    // The clusters pending deletions still need (a context that left the kubeconfig is kept
    // while one does).
    caf::reacts_to<needs_atom, std::vector<std::string>>>;

// The operator's commands from the API and the CLI, each with its caller.
using OperatorCommands = caf::typed_actor<
    // (appset, app, revision ("" = pinned), caller): a manual sync, forwarded to the set.
    caf::replies_to<sync_atom, std::string, std::string, std::string,
                    std::string>::with<engine::CommandAnswer>,
    // (appset, caller)
    caf::replies_to<pause_atom, std::string, std::string>::with<engine::CommandAnswer>,
    caf::replies_to<resume_atom, std::string, std::string>::with<engine::CommandAnswer>,
    caf::replies_to<abort_atom, std::string, std::string>::with<engine::CommandAnswer>,
    // (appset, target revision ("" = each app's last healthy revisions), caller)
    caf::replies_to<rollback_atom, std::string, std::string,
                    std::string>::with<engine::CommandAnswer>,
    // (appset, app, reason, caller)
    caf::replies_to<skip_atom, std::string, std::string, std::string,
                    std::string>::with<engine::CommandAnswer>,
    // (caller): every set reconciles now.
    caf::replies_to<refresh_atom, std::string>::with<engine::CommandAnswer>,
    // (repo URLs, ref, default branch, caller): a verified push webhook (engine/webhook.h);
    // the sets following the pushed repository at the pushed ref reconcile now.
    caf::replies_to<webhook_atom, std::vector<std::string>, std::string, std::string,
                    std::string>::with<engine::CommandAnswer>,
    // (appset, caller): the API's DELETE; a set pending deletion goes now.
    caf::replies_to<delete_atom, std::string, std::string>::with<engine::CommandAnswer>>;

// The systemd watchdog's heartbeat through the actor system (service_heartbeat.h).
using HeartbeatTarget = caf::typed_actor<caf::replies_to<ping_atom>::with<ping_atom>>;

// What the daemon's process sends: the operator's commands, the reload triggers (SIGHUP, the
// directory watch), the heartbeat and the stop.
using CoordinatorCommands = OperatorCommands::extend<
    // Load the inputs again (on the blocking pool); with a ticket, Publisher::reloaded reports
    // that ticket done.
    caf::reacts_to<reload_atom>, caf::reacts_to<reload_atom, uint64_t>,
    // Stop every child, then itself.
    caf::reacts_to<stop_atom>>::extend_with<HeartbeatTarget>;

using CoordinatorActor = CoordinatorCommands::extend_with<SetParent, DeletionParent>;

}  // namespace fleetwave::actors
