// The workload actor: one per watched workload that has a progress deadline fleetwave computes
// (a CloneSet, StatefulSet or DaemonSet; a Deployment's is Kubernetes' and gets none), spawned and
// stopped by its cluster actor from the workload watch (cluster_actor.h). It holds the
// `Progressing` condition fleetwave computes for the workload (engine/progress/progress_deadline.h)
// and the one timer that looks again when the engine says so.
//
// Rules (tests/actors/workload_actor_test.cc pins each):
//  - Every update is evaluated at once with the stored previous condition and Services::now;
//    exactly ONE timer is armed, for the exact requeue the engine returned (never polling, never
//    early). Each evaluation bumps a generation; a timer carrying an older generation is stale
//    and ignored, so a newer update cancels the older timer (NewerUpdateCancelsTheOlderTimer).
//  - Write-ahead: a condition change (or a new revision) is committed to the store on the
//    BlockingPool (never on a scheduler thread) BEFORE anything is published, logged or
//    reported to the cluster actor (PersistsBeforePublishing). A failed commit publishes
//    nothing and is retried after `retry_after`.
//  - Restart: the cluster actor hands in the record State::LoadWorkloads found, so the first
//    evaluation continues the same clock (the original lastUpdateTime)
//    (RestartFromTheStoreKeepsTheOriginalLastUpdateTime).
//  - A transition (status, reason or revision) is logged once, naming cluster, namespace,
//    kind, name, revision and reason.
//  - The deadline switched off, or (stop_atom) (the object was deleted): the record is removed,
//    Publisher::workload_removed is called and the actor quits (DeadlineRemovedStopsTheActor).
//  - It never writes anything to the cluster.
//
// Its protocol is the typed interface WorkloadActor below; it reports to a DeadlineSink
// after each durable change of the condition, and once with `removed` set before quitting.
#pragma once

#include <caf/actor.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/fwd.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "actors/atoms.h"
#include "actors/services.h"
#include "engine/health/health.h"
#include "engine/object_ref.h"
#include "engine/progress/progress_deadline.h"
#include "engine/progress/workload.h"
#include "store/state.h"

namespace fleetwave::actors {

using workload_atom = caf::atom_constant<caf::atom("workload")>;
using deadline_atom = caf::atom_constant<caf::atom("deadline")>;
// the workload actor to itself: the engine's requeue is due (carries the generation)
using requeue_atom = caf::atom_constant<caf::atom("requeue")>;
// the workload actor to itself: a commit ended on the pool (sequence, ok, error text)
using committed_atom = caf::atom_constant<caf::atom("committed")>;

using WorkloadPtr = std::shared_ptr<const engine::Workload>;

// What a workload actor tells its cluster actor: the durable decision about its deadline.
struct WorkloadView {
  engine::ObjectRef ref;
  engine::DeadlineView view;
  bool removed = false;  // the actor is gone (deadline off or object deleted)
};
using WorkloadViewPtr = std::shared_ptr<const WorkloadView>;

// Who hears a workload actor's decisions (its cluster actor).
using DeadlineSink = caf::typed_actor<caf::reacts_to<deadline_atom, WorkloadViewPtr>>;

using WorkloadActor = caf::typed_actor<
    // The workload as last observed: evaluated at once.
    caf::reacts_to<workload_atom, WorkloadPtr>,
    // The object is gone: forget it and quit.
    caf::reacts_to<stop_atom>>;

struct WorkloadActorConfig {
  std::string cluster;
  engine::ObjectRef ref;  // kind as engine::WorkloadKindName spells it
  const Services* services = nullptr;
  // The record State::LoadWorkloads found for this workload ({"revision", "condition"}).
  std::optional<store::Json> stored;
  DeadlineSink parent;                          // may be null in tests
  std::chrono::milliseconds retry_after{1000};  // after a failed commit
};

WorkloadActor SpawnWorkloadActor(caf::actor_system& system, WorkloadActorConfig config);

// The stored form of a condition and the revision it belongs to, and back (nullopt when the
// value does not decode: the actor then starts as if nothing were stored).
store::Json WorkloadRecordValue(const engine::PreviousCondition& previous);
std::optional<engine::PreviousCondition> PreviousFromRecord(const store::Json& value);

// The item GET /api/v1/workloads lists for one workload, as Publisher::workload receives it:
// cluster, namespace, kind, name, revision, deadlineSeconds, condition (null when none),
// exceeded, requeueAt (RFC 3339 with milliseconds, null when nothing is scheduled), problems,
// and the workload controller's own condition for reference (controllerCondition, or null).
engine::Json WorkloadItem(const std::string& cluster, const engine::ObjectRef& ref,
                          const engine::Workload& workload, const engine::ProgressResult& result,
                          std::optional<engine::Time> requeue_at);

}  // namespace fleetwave::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fleetwave::actors::WorkloadPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fleetwave::actors::WorkloadViewPtr)
