// The cluster actor's protocol as a typed actor interface, so the compiler checks every message
// an appset or deletion actor sends to a cluster and every reply it expects (payloads:
// protocol.h). The cluster actor's own timers and callbacks are not part of it (see
// cluster_actor.cc): a sender cannot reach them through this handle.
#pragma once

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <map>
#include <memory>
#include <string>

#include "actors/atoms.h"
#include "actors/protocol.h"

namespace fleetwave::actors {

// Who receives a cluster's updates: (live_atom, ClusterUpdatePtr), at most one per tick, the
// complete entry list of each label that changed.
using LiveSink = caf::typed_actor<caf::reacts_to<live_atom, ClusterUpdatePtr>>;

using ClusterActor = caf::typed_actor<
    // Start watching a kind (idempotent; an unknown kind is logged once and retried on the
    // next request).
    caf::reacts_to<watch_kind_atom, std::string, std::string>,
    // Subscribe a sink to an app label: answered at once with a (live_atom, update) for it.
    caf::reacts_to<subscribe_atom, std::string, LiveSink>,
    caf::reacts_to<unsubscribe_atom, std::string, LiveSink>,
    // One sync attempt's objects (each applied kind is watched too).
    caf::replies_to<apply_atom, ApplyCommandPtr>::with<ApplyReplyPtr>,
    caf::replies_to<delete_atom, DeleteCommandPtr>::with<DeleteReplyPtr>,
    // Whether this instance leads (leader election, cluster_pool.h): a standby's actor keeps
    // its watches and caches but runs no deadline actor and stores nothing.
    caf::reacts_to<decide_atom, bool>>;

// The cluster actors by kubeconfig context, as the coordinator hands them to the sets.
using ClusterMap = std::map<std::string, ClusterActor>;
using ClusterMapPtr = std::shared_ptr<const ClusterMap>;

}  // namespace fleetwave::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fleetwave::actors::ClusterMapPtr)
