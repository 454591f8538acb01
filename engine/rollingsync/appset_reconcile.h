// The daemon's reconcile of one ApplicationSet, as a pure function: from what the appset actor
// observed this round (generated apps, the revisions resolved from git, the objects rendered at
// them, the live objects its cluster actors watch) and what the store holds (the rollout status,
// each app's spec as fleetwave last wrote it, each app's sync operation), decide the next status,
// which syncs start now and what to persist. The actor gathers inputs, calls this, commits the
// result to the store and only then sends commands (write-ahead), so every decision is pinned by
// tests/engine/daemon/appset_reconcile_test.cc without actors, clocks or clusters.
//
// Level-triggered: the result depends only on the inputs, never on which event woke the actor;
// reconciling again with the persisted result and unchanged observations starts nothing new.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/appset/appset.h"
#include "engine/appset/generate.h"
#include "engine/appset/render.h"
#include "engine/error.h"
#include "engine/health/health.h"
#include "engine/live_objects.h"
#include "engine/operator_command.h"
#include "engine/rollingsync/rollout_plan.h"
#include "engine/sync/apply_plan.h"
#include "engine/sync/operation_record.h"
#include "engine/sync/read_after_write.h"
#include "engine/sync/sync_status.h"
#include "engine/time.h"

namespace fleetwave::engine {

// One generated app as the appset actor observed it this reconcile.
struct ObservedApp {
  GeneratedApplication desired;
  // The revisions resolved from git this reconcile, one per source (one snapshot per repo and
  // targetRevision). Empty with `source_error`.
  std::vector<std::string> revisions;
  // Resolving, reading or rendering failed: the complete message (file:line:col where known).
  // The app is reported (sync and health Unknown, a ComparisonError condition) and never
  // synced; its pin is kept, so a failed fetch never reads as a revision change. A RollingSync
  // entry promoted meanwhile stays Pending and syncs once the source reads again.
  std::optional<Error> source_error;
  // Of `source_error`'s problems, those of a repository rather than a file in it: a fetch that
  // failed or a revision the repository lacks, each naming the repository URL. They give the
  // set's ErrorOccurred condition (repository_condition.h) until every repository reads again.
  std::vector<Error> repository_errors;
  // The objects rendered at `revisions`; null with `source_error`.
  std::shared_ptr<const std::vector<RenderedObject>> rendered;
  // The app's cluster actor reports the cluster reachable and its watches listed at least once;
  // false makes sync and health Unknown and starts nothing for the app.
  bool reachable = true;
  // The app's cluster has been observed (its watches listed) at least once in this process.
  // False in a daemon's first reconciles after a start: `reachable` is false then for lack of
  // data, not because the cluster failed, so the rollout's step is held (Plan's
  // observation_complete) instead of re-opened — a restart keeps the step clock.
  bool observed = true;
  // The live objects carrying the app's label on its cluster, and each one's health.
  LiveObjects live;
  std::map<ObjectRef, HealthStatus> live_health;
  // The results of the app's last apply in this process (read-after-write); empty after a
  // restart, when the informers' fresh lists are newer than any earlier write.
  std::vector<AppliedObject> applied;
  // The comparison of `rendered` with `live` (sync status, drift) as ReconcileAppSet last made
  // it for this observation, under the spec whose fingerprint is `compared_spec` (the spec holds
  // ignoreDifferences). ReconcileAppSet fills both in the observations it hands back and reuses
  // them while the fingerprint is the same, since comparing every object of every app on every
  // reconcile was the largest part of a reconcile at 1,000 apps. A caller that changes
  // `rendered`, `live`, `reachable` or `source_error` resets `compared`.
  std::shared_ptr<const AppSync> compared;
  uint64_t compared_spec = 0;
  // The Application last served for this observation (ReconcileAppSet fills these in the
  // observations it hands back), what it was built from — the comparison, held so that its
  // address is never another's, and a key of everything else — and when. Reused while they match
  // and it was built at or after the input's `reuse_applications_since`: building, comparing and
  // freeing every app's Application on every reconcile was half the daemon's CPU at 1,000-app
  // sets, while a rollout changes a few apps at a time.
  std::shared_ptr<const Json> application;
  std::shared_ptr<const AppSync> application_sync;
  uint64_t application_key = 0;
  Time application_built{};
};

// What the store holds about one app.
struct StoredApp {
  std::optional<Json> spec;                  // the Application spec fleetwave last wrote
  std::optional<OperationRecord> operation;  // the current or last sync
  // SpecFingerprint of `spec`; 0: not known yet. ReconcileAppSet fills it in the stored apps it
  // hands back; whoever changes `spec` resets it.
  uint64_t spec_fingerprint = 0;
};

// Who starts a sync. (Not `SyncTrigger`: sync_operation.h's struct of that name, the
// operation's initiatedBy/info, lives in the same namespace.)
enum class SyncStartTrigger { kRollout, kAutomated, kManual, kRollback };
// "rollout" | "automated" | "manual" | "rollback"
const char* SyncStartTriggerName(SyncStartTrigger trigger);

struct SyncStart {
  std::string app;
  SyncStartTrigger trigger = SyncStartTrigger::kRollout;
  // Phase Running, started at `now`, revisions = the pinned ones. The id is deterministic
  // from the app, trigger, time, revisions and the app's previous operation id: unique per start.
  OperationRecord record;
};

struct AppSetReconcileInput {
  const ApplicationSet* appset = nullptr;
  StoredRolloutStatus stored;
  std::vector<ObservedApp> apps;  // sorted by name
  // The repositories the set's git generators could not read this reconcile
  // (GenerateResult::repository_errors): `apps` are then the last good generation's, and these
  // join the apps' own repository errors in the set's ErrorOccurred condition
  // (repository_condition.h) until a generation reads them again.
  std::vector<Error> generator_repository_errors;
  std::map<std::string, StoredApp> stored_apps;
  bool progressive_syncs = true;
  // fleetwave.yaml's analysis.prometheus: a RollingSync step's analysis without its own
  // `prometheus` queries it; with neither the set is not reconciled (analysis_settings.h).
  std::string analysis_prometheus;
  bool automated_warned = false;  // DisableAutomatedForRollingSync's warning was logged already
  Time now;                       // second precision
  // Unset: every Application is built anew (reconciledAt = now). Set: an app's Application built
  // at or after this time from the same inputs is served again, reconciledAt included; the
  // daemon passes the time of its last decision on a fresh gather (a poll that found a change,
  // and at least every third poll), so reconciledAt says when fleetwave last re-decided the app
  // from its sources or saw it change.
  std::optional<Time> reuse_applications_since;
};

struct AppSetReconcileResult {
  PlanResult plan;                // RollingSync: Plan's result; AllAtOnce: statuses only
  std::vector<SyncStart> starts;  // persist, then execute
  // Apps whose stored operation is Running and due for an attempt: its retry's
  // next_attempt_at has come, or it has none (an attempt is in flight, or was when the process
  // stopped: the actor resumes those it has no attempt in flight for). Sorted.
  std::vector<std::string> attempts_due;
  // app -> spec to store, only those that changed: the desired spec (automated sync disabled
  // under RollingSync), written on first sight and on every change, as Argo's appset
  // controller does. Nothing is written for a set that is not reconciled (progressiveSyncs:
  // false, RollingSync without steps, an unsupported strategy), and no update when
  // applicationsSync holds updates back: the app then keeps, plans and syncs its stored spec.
  std::map<std::string, Json> specs;
  // Argo-shaped Application objects (metadata, spec, status.sync/health/operationState,
  // conditions), sorted by name: what the API serves and `fleetwave plan --apps` reads.
  std::vector<std::shared_ptr<const Json>> applications;
  Json status = Json::object();  // the ApplicationSet status (PlanStatusJson)
  // The earliest time a reconcile is due without any event: a step deadline, a retry's
  // next attempt, a held-back self-heal.
  std::optional<Time> wake_at;
  // One line per decision (promotion, entry transition, pin moved, step completed, rollout
  // completed, sync started, sync held back), naming appset, app and cluster, derived from the
  // difference between the stored and the new status: a reconcile that changes nothing logs
  // nothing. Never credentials or Secret data.
  std::vector<std::string> log;
  std::optional<std::string> automated_warning;  // log once, then pass automated_warned
  // The input's observations, handed back unchanged: the appset actor keeps them between
  // reconciles and refreshes only the apps whose inputs changed, instead of copying every live
  // object of the set into each reconcile.
  std::vector<ObservedApp> observed;
  // The input's stored apps, handed back unchanged but for their spec fingerprints: the actor
  // keeps them as its decoded mirror of the store instead of copying each app's spec and
  // operation into every reconcile.
  std::map<std::string, StoredApp> stored_apps;
};

AppSetReconcileResult ReconcileAppSet(AppSetReconcileInput input);

// A manual sync (API/CLI): any app, any step; at the app's pinned revisions unless `revision`.
// `error` set: nothing starts; the message says why and the kind what kind of no it is (an
// operation running is kConflict, an unreachable cluster or no revision known yet kTransient,
// a revision a multi-source app cannot take kInvalidInput). CommandRefusalOf turns the kind
// into the operator's answer.
struct ManualSyncDecision {
  std::optional<SyncStart> start;
  std::optional<Error> error;
};
// The revisions a manual sync without a revision is pinned to: the app's rollout entry's
// targetRevisions (status.applicationStatus[].targetRevisions, its `entry` as stored) when it
// has any, else the revisions resolved for it this reconcile. Pinned by manual_sync_test.cc.
std::vector<std::string> ManualSyncPin(const Json* entry, const std::vector<std::string>& resolved);

// Who started an operation, read from the operation itself so that it survives restarts:
// RollingSync's (initiatedBy.username applicationset-controller), an automated sync's
// (initiatedBy.automated), else an operator's.
SyncStartTrigger TriggerOfOperation(const OperationRecord& record);

// [issue 29] With `projects` (the set's AppProjects), an app its project refuses is refused
// (kInvalidInput) and one a sync window denies a manual sync (no window with manualSync: true
// lets it through) is refused (kConflict), naming the window.
ManualSyncDecision StartManualSync(const ObservedApp& app, const std::optional<StoredApp>& stored,
                                   const std::vector<std::string>& pinned,
                                   const std::optional<std::string>& revision,
                                   const std::string& caller, Time now,
                                   const AppProjects* projects = nullptr);

// One attempt of a sync: what to send to the cluster. Objects whose live copy already carries
// the desired applied hash and has no drift are not re-applied (a restart re-applies an app
// only when its live objects lack the pinned revision's hash).
struct SyncAttempt {
  std::vector<RenderedObject> apply;  // in render order
  std::vector<ApplyAction> actions;   // parallel to `apply`: force/adopt per object
  std::vector<ObjectRef> prune;       // tracked, no longer desired, pruning asked for
  std::vector<ObjectResult> settled;  // results known without a request (refused, prune skipped)
};
SyncAttempt PlanSyncAttempt(const AppIdentity& app, const std::vector<RenderedObject>& desired,
                            const LiveObjects& live, const std::vector<IgnoreDifference>& ignore,
                            bool prune);

// Records the end of an attempt and decides the retry from the app's retry policy: the record
// stays Running with next_attempt_at set while a retry is due, else ends Succeeded/Failed.
OperationRecord FinishSyncAttempt(const OperationRecord& running, const Json& app_spec,
                                  std::vector<ObjectResult> results,
                                  const std::optional<Error>& error, Time now);

}  // namespace fleetwave::engine
