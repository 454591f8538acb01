// The atoms of the daemon's message protocol (protocol.h says who sends what) and the payload
// types declared to CAF. CAF 0.17 atoms are at most 10 characters.
#pragma once

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <functional>
#include <memory>

#include "actors/protocol.h"
#include "engine/operator_command.h"

namespace fleetwave::actors {

// cluster actor
using apply_atom = caf::atom_constant<caf::atom("apply")>;
using delete_atom = caf::atom_constant<caf::atom("delete")>;
using subscribe_atom = caf::atom_constant<caf::atom("subscribe")>;
using unsubscribe_atom = caf::atom_constant<caf::atom("unsub")>;
using watch_kind_atom = caf::atom_constant<caf::atom("watchkind")>;
using live_atom = caf::atom_constant<caf::atom("live")>;
// cluster actor to itself: ask the API server whether it answers again (only while down)
using probe_atom = caf::atom_constant<caf::atom("probe")>;
// any actor: run a closure handed in from another thread (ActorExecutor) in the actor's context
using run_atom = caf::atom_constant<caf::atom("run")>;
// The closure a run_atom message carries (actor_executor.h).
using RunClosure = std::shared_ptr<std::function<void()>>;
// appset actor / coordinator
using reconcile_atom = caf::atom_constant<caf::atom("reconcile")>;
using gathered_atom = caf::atom_constant<caf::atom("gathered")>;
using persisted_atom = caf::atom_constant<caf::atom("persisted")>;
using spec_atom = caf::atom_constant<caf::atom("spec")>;
using sync_atom = caf::atom_constant<caf::atom("sync")>;
using pause_atom = caf::atom_constant<caf::atom("pause")>;
using resume_atom = caf::atom_constant<caf::atom("resume")>;
// (issue 29) halt a rollout now and hold its revision until a new commit or a resume
using abort_atom = caf::atom_constant<caf::atom("abort")>;
// (issue 29) return the apps a rollout synced to earlier revisions and hold its revision
using rollback_atom = caf::atom_constant<caf::atom("rollback")>;
using skip_atom = caf::atom_constant<caf::atom("skip")>;
using slot_atom = caf::atom_constant<caf::atom("slot")>;
using release_atom = caf::atom_constant<caf::atom("release")>;
using reload_atom = caf::atom_constant<caf::atom("reload")>;
using stop_atom = caf::atom_constant<caf::atom("stop")>;
// coordinator: (refresh_atom, caller), the API's POST /api/v1/refresh: every set reconciles now
using refresh_atom = caf::atom_constant<caf::atom("refresh")>;
// coordinator: (webhook_atom, repo_urls, ref, default_branch, caller), a verified push webhook
// (engine/webhook.h): the sets that follow the pushed repository and ref reconcile now
using webhook_atom = caf::atom_constant<caf::atom("webhook")>;
using tick_atom = caf::atom_constant<caf::atom("tick")>;
// deletion actor (deletion_actor.h): the coordinator's cluster map and input trust; a set's
// deletion completed; the clusters pending deletions still need
using clusters_atom = caf::atom_constant<caf::atom("clusters")>;
using deleted_atom = caf::atom_constant<caf::atom("deleted")>;
using needs_atom = caf::atom_constant<caf::atom("needs")>;
// coordinator: (ping_atom) -> (ping_atom), the systemd watchdog's heartbeat through the actor
// system (tools/fleetwave/service_heartbeat.h)
using ping_atom = caf::atom_constant<caf::atom("ping")>;
// cluster actor: (decide_atom, bool), whether this instance leads (issue 28, cluster_pool.h):
// only then does it run progress-deadline actors and store what it decides
using decide_atom = caf::atom_constant<caf::atom("decide")>;

}  // namespace fleetwave::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fleetwave::actors::ApplyCommandPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fleetwave::actors::ApplyReplyPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fleetwave::actors::DeleteCommandPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fleetwave::actors::DeleteReplyPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fleetwave::actors::ClusterUpdatePtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fleetwave::actors::RunClosure)
// The answer to an operator's command (sync, pause, resume, skip, delete, refresh).
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fleetwave::engine::CommandAnswer)
