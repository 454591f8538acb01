// The payloads the daemon's actors exchange, as plain values without CAF (so the engine types
// they carry need no CAF inspectors and tests can build them directly). Messages carry them as
// `std::shared_ptr<const T>`: one allocation, no copy per hop. caf_types.h declares them to CAF.
//
// The messages that carry them are typed actor interfaces, so the compiler checks every send
// and reply: a set's or deletion actor's requests to a cluster and the updates it gets back in
// cluster_interface.h, a workload actor's in workload_actor.h.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/appset/render.h"
#include "engine/error.h"
#include "engine/health/health.h"
#include "engine/live_objects.h"
#include "engine/object_ref.h"
#include "engine/sync/apply_plan.h"
#include "engine/sync/operation_record.h"
#include "engine/sync/read_after_write.h"

namespace fleetwave::actors {

// One sync attempt's requests for one app on one cluster. The cluster actor applies the objects
// in the given order (Namespaces and CRDs first: render order) with server-side apply
// (fieldManager=fleetwave, force as the action says), then deletes `prune` (background).
struct ApplyCommand {
  std::string appset;
  std::string app;
  std::string operation_id;
  std::vector<engine::RenderedObject> objects;
  std::vector<engine::ApplyAction> actions;  // parallel to `objects`
  std::vector<engine::ObjectRef> prune;
};

struct ApplyReply {
  std::string operation_id;
  std::vector<engine::ObjectResult> results;   // one per object and per prune, in order
  std::vector<engine::AppliedObject> applied;  // resourceVersion/generation the server returned
  // The attempt could not run at all (cluster unreachable, credentials refused): why, and of
  // what kind (an unreachable cluster is kTransient, refused credentials kPermanent).
  std::optional<engine::Error> error;
};

struct DeleteCommand {
  std::string appset;
  std::string app;
  std::vector<engine::ObjectRef> objects;  // background propagation
  std::vector<engine::ObjectRef> unmark;   // preserveResourcesOnDeletion: strip tracking marks
};

struct DeleteReply {
  std::vector<engine::ObjectResult> results;
  std::optional<engine::Error> error;  // as ApplyReply::error
};

// One live object as the cluster actor caches it: the projection sync decisions read and its
// health, computed once when the watch delivered it. The projection is one immutable copy per
// watch event, shared (never copied) by the cluster's cache, its updates, and every set's
// decision state; never null.
struct LiveEntry {
  engine::LiveObjectPtr object;
  engine::HealthStatus health;
};

// What changed on one cluster for the app labels an appset subscribed to. `apps` holds the
// complete current entry list of every label that changed since the last update (an empty list:
// the app has no live objects), so the receiver replaces, never merges.
struct ClusterUpdate {
  std::string cluster;
  bool reachable = false;  // the last request or watch succeeded (down after N failures)
  bool synced = false;     // every watch listed at least once since the actor started
  std::map<std::string, std::vector<LiveEntry>> apps;  // app label value -> entries
};

using ApplyCommandPtr = std::shared_ptr<const ApplyCommand>;
using ApplyReplyPtr = std::shared_ptr<const ApplyReply>;
using DeleteCommandPtr = std::shared_ptr<const DeleteCommand>;
using DeleteReplyPtr = std::shared_ptr<const DeleteReply>;
using ClusterUpdatePtr = std::shared_ptr<const ClusterUpdate>;

}  // namespace fleetwave::actors
