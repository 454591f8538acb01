// The cluster actor's rules as pure functions (issue 25: no domain decision in actors/): which
// kinds an apply makes it watch, what an apply's, a delete's or an unmark's answer means for the
// object, which reachability change is logged, when a down cluster refuses work, when an apply
// reached no server, what discovery's answer makes it do, and what a workload watch event does to
// the workload's progress-deadline actor. The actor owns the client, the watches and the workload
// actors and acts on these answers. Pinned by tests/engine/core/cluster_rules_test.cc.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "engine/appset/render.h"
#include "engine/error.h"
#include "engine/object_ref.h"
#include "engine/progress/workload.h"
#include "engine/sync/operation_record.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

// A kind the cluster actor watches (existence of what fleetwave applied).
struct WatchedKind {
  std::string api_version;
  std::string kind;
  bool operator==(const WatchedKind&) const = default;
};

// What fleetwave applies is watched, so every applied object shows up in its app's entries and
// read-after-write can complete whatever kinds an app renders: each kind once, in the order the
// apply names them; an object without apiVersion or kind names none.
std::vector<WatchedKind> KindsToWatch(const std::vector<RenderedObject>& objects);

// A delete's answer for one object: done when it succeeded or the object was already gone
// (it does not exist, which is what was asked), reported with `verb`; otherwise failed with
// the request's error.
ObjectResult DeletionResult(const ObjectRef& ref, bool ok, bool not_found, const std::string& error,
                            const std::string& verb);

// An apply's answer for one object: synced ("applied") when it succeeded, otherwise failed with
// the request's error.
ObjectResult ApplyResult(const ObjectRef& ref, bool ok, const std::string& error);

// Removing an object's tracking marks (preserveResourcesOnDeletion): synced ("tracking marks
// removed") when the patch succeeded, otherwise failed with the request's error.
ObjectResult UnmarkResult(const ObjectRef& ref, bool ok, const std::string& error);

// The merge patch that leaves an object fleetwave no longer tracks (preserveResourcesOnDeletion):
// its tracking-id and applied-hash annotations and its app label go, nothing else changes.
Json UntrackPatch();

// What a watch event of a workload (added or updated) does to its progress-deadline actor.
struct WorkloadEventStep {
  bool remember = false;      // kept among the workloads with a deadline (a term's start spawns)
  bool tell_actor = false;    // its running actor evaluates the update
  bool forget_actor = false;  // the actor's decision stops counting (it removes its record)
  bool spawn_actor = false;   // a new actor, from its stored record if any
  bool operator==(const WorkloadEventStep&) const = default;
};
// `has_deadline`: the workload carries a progress deadline; `deciding`: this replica leads and
// its stored records are loaded (a standby only remembers); `has_actor`: one runs for it.
WorkloadEventStep OnWorkloadEvent(bool has_deadline, bool deciding, bool has_actor);

// What a watch event of a workload whose deadline Kubernetes decides (a Deployment:
// DaemonDecidesDeadline is false) does to the row the daemon shows for it. There is no actor and
// no stored record: the row is an echo of the controller's own Progressing condition, published
// from the projection the watch delivered. `before`/`after` are the workload before and after the
// event (nullopt: an add has no before, a delete no after). A row exists while a deadline is in
// force (HoldsProgressCondition), as for every other kind.
struct EchoedWorkloadStep {
  bool publish = false;         // its row, from `after`: new, or what the row shows changed
  bool remove = false;          // its row goes: the object was deleted or its deadline switched off
  bool log_transition = false;  // the condition's status, reason or revision changed (an update)
  bool operator==(const EchoedWorkloadStep&) const = default;
};
// `deciding`: this replica leads (a standby shows nothing; a term's start publishes every row
// from the watch's cache, as an add).
EchoedWorkloadStep OnEchoedWorkloadEvent(const std::optional<Workload>& before,
                                         const std::optional<Workload>& after, bool deciding);

// A stored deadline record is stale after a workload watch of `listed_kind` in `listed_ns`
// ("" = every namespace) listed and did not name it: its workload was deleted while the
// daemon was away.
bool RecordCoveredByListing(const std::string& record_kind, const std::string& record_ns,
                            const std::string& listed_kind, const std::string& listed_ns);

// A cluster that is down refuses an apply or a delete at once: sending requests that cannot
// arrive would only hold the operation up. The refusal is transient (the cluster may come back)
// and names the cluster and its last failure; nullopt while it is not down.
std::optional<Error> RefusalWhileDown(bool down, const std::string& cluster,
                                      const std::string& last_failure);

// The line logged when a cluster's reachability changed after an outcome (nullopt: no change
// worth a line). `was_up`/`was_down`: before the outcome; `up`/`down`: after it; `hung`: the
// last request or watch made no progress (rather than failing outright).
std::optional<std::string> ReachabilityChangeLine(bool was_up, bool was_down, bool up, bool down,
                                                  bool hung, int failures_in_a_row,
                                                  const std::string& last_failure);

// An apply attempt where no request got through (every request failed because of the cluster)
// could not run at all: it is an error, not a failed sync (protocol.h, ApplyReply::error).
bool ApplyReachedNoServer(std::size_t answered, std::size_t cluster_failures);

// What the API server's discovery said of one apiVersion/kind; cluster-clients classifies it.
enum class DiscoveryAnswer { kServed, kNotServed, kFailed };
// What the cluster actor does next with a kind it wants to watch.
enum class DiscoveryStep {
  kWatch,           // served: start its watch
  kTryNextVersion,  // not served in this version; another candidate is left (a CloneSet)
  kNotServed,       // served in no candidate version: logged once, not retried
  kRetryLater,      // discovery failed: ask again after the discovery retry interval
};
// `versions_left`: candidate versions after the one asked (0 for a kind of one version).
DiscoveryStep OnDiscovery(DiscoveryAnswer answer, std::size_t versions_left);

// The namespaces the workload watches cover, one watch each: `workloads.namespaces` as
// configured, and an empty list means every namespace (one watch of "", the cluster scope).
std::vector<std::string> WorkloadWatchNamespaces(const std::vector<std::string>& configured);

// Whether the cluster's subscribers hear its status: when reachable or synced differ from what
// they last heard (the apps' changes are told regardless).
bool ClusterStatusToTell(bool reachable, bool synced, bool told_reachable, bool told_synced);

}  // namespace fleetwave::engine
