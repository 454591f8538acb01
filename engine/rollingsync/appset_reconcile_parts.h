// The per-app steps of an ApplicationSet's reconcile, shared by the from-scratch ReconcileAppSet
// (the oracle) and the incremental RollingSyncDecider (engine/rollingsync/appset_decider.h), so
// that both derive each app's comparison, health, Application, sync start and log lines by the
// same code and differ only in which apps they visit. Internal to the engine.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/rollingsync/appset_reconcile.h"
#include "engine/sync/sync_operation.h"

namespace fleetwave::engine::reconcile {

// The condition a source error puts on the app. Argo's name for a repository or render failure.
// Deliberately not InvalidSpecError/UnknownError: those move a Pending entry to Progressing
// ("has error and cannot sync"), after which the rollout never syncs the app again short of a new
// commit, so a transient git failure would strand it. A ComparisonError app stays Pending (holding
// its maxUpdate slot, never synced) and syncs once its source reads again
// (appset_reconcile_test.cc SourceError*).
inline constexpr const char* kSourceErrorCondition = "ComparisonError";

const Json* Child(const Json* object, const char* key);
using engine::IsMultiSourceSpec;  // engine/sync/sync_operation.h
using engine::JoinRevisions;
// Deterministic from its inputs and unique per start: the previous operation's id chains the
// starts of one app, so two starts in the same second at the same revision still differ.
std::string OperationId(const std::string& app, SyncStartTrigger trigger,
                        const std::vector<std::string>& revisions, const OperationRecord* last,
                        Time now);
const OperationRecord* StoredOperation(const StoredApp* stored);
bool Running(const OperationRecord* op);

// Everything one app's reconcile computes before the strategy decides: its comparison, its
// health, and the Application the planner reads.
struct AppView {
  const ObservedApp* observed = nullptr;
  // The generated app as the planner reads it (automated sync disabled under RollingSync, the
  // stored spec while updates are held back): name, labels, cluster and metadata as generated.
  const GeneratedApplication* desired = nullptr;
  StoredApp* stored = nullptr;
  AppIdentity id;
  std::shared_ptr<const AppSync> sync;  // shared with the observation's cache
  HealthStatus health;
  std::vector<ApplicationCondition> conditions;
  Application* live = nullptr;  // what Plan reads
  // The spec the Application has after this reconcile: the desired one, or else the stored one,
  // which `live->spec` holds (moved out of the store: the input is consumed).
  bool new_spec_is_desired = false;
  bool write_spec = false;
};

// What decides whether a reconcile writes an app's spec.
struct SpecWriteRules {
  bool writes = false;      // the set is reconciled (gate open, a strategy the planner takes)
  bool may_update = false;  // applicationsSync lets updates through
};

// The generated app as the planner reads it: while applicationsSync holds updates back
// (`rules.may_update` false) the Application keeps its stored spec, which `gen` takes in with
// its fingerprint, so the rollout plans and syncs with it and the held-back difference never
// reads as a spec change. Fills `stored`'s fingerprint when unknown. Before DeriveView.
void KeepStoredSpec(GeneratedApplication& gen, StoredApp* stored, SpecWriteRules rules);

// Fills `v` and `live` for one app: `gen` is the generated app as the planner reads it
// (KeepStoredSpec applied; `v.desired` points to it), `stored` the store's record (its
// fingerprint filled in), `stored_entry` the app's stored rollout entry (the pin a source error
// keeps). Refreshes `app`'s cached comparison when its spec changed.
void DeriveView(const ApplicationSet& set, ObservedApp& app, const GeneratedApplication& gen,
                StoredApp* stored, const AppRolloutStatus* stored_entry, SpecWriteRules rules,
                AppView& v, Application& live);

AppSync CompareObserved(const AppIdentity& id, const ObservedApp& app,
                        const std::vector<IgnoreDifference>& ignore);
HealthStatus AssessObserved(const ObservedApp& app);
OperationState OperationStateOf(const OperationRecord& op);
// The revisions the app is judged at: the ones resolved this reconcile; without them (a source
// error) the pin, so that a failed fetch never reads as a revision change.
std::vector<std::string> CurrentRevisions(const ObservedApp& app, const AppRolloutStatus* entry,
                                          const OperationRecord* op);
const AppRolloutStatus* FindEntry(const std::vector<AppRolloutStatus>& entries,
                                  const std::string& app);
Json StoredStatusJson(const StoredRolloutStatus& stored,
                      const std::optional<AppSetCondition>& extra, Time now);
std::string Prefix(const ApplicationSet& set, const GeneratedApplication& app);

// A key of everything an app's Application is built from besides its comparison (held and
// compared by address) and reconciledAt. 0: none (a spec without a fingerprint).
uint64_t ApplicationKey(const AppView& v, uint64_t spec_fingerprint, const OperationRecord* op);
// The Argo-shaped Application the API serves (DecodeApplication reads it back), around the
// app's new spec, which it takes over; `reconciled_at` is `now` formatted once per reconcile.
Json ApplicationJson(const AppView& v, Json spec, const OperationRecord* op,
                     const std::string& reconciled_at);
// The app's Application after this reconcile: the one `memo` holds when nothing it shows
// changed and it was built at or after `reuse_since`, else a new one (remembered in `memo`).
// `spec` is called only for a new one.
template <typename SpecFn>
std::shared_ptr<const Json> ApplicationOf(const AppView& v, const OperationRecord* op,
                                          ObservedApp& memo, const std::optional<Time>& reuse_since,
                                          Time now, const std::string& reconciled_at,
                                          SpecFn&& spec) {
  const uint64_t key = ApplicationKey(
      v, v.new_spec_is_desired ? v.desired->spec_fingerprint : v.live->spec_fingerprint, op);
  if (reuse_since && key != 0 && memo.application != nullptr && memo.application_key == key &&
      memo.application_sync == v.sync && memo.application_built >= *reuse_since) {
    return memo.application;
  }
  auto application = std::make_shared<const Json>(ApplicationJson(v, spec(), op, reconciled_at));
  memo.application = application;
  memo.application_sync = v.sync;
  memo.application_key = key;
  memo.application_built = now;
  return application;
}

// Whether a Pending entry of the sync list starts its sync now.
struct RolloutStartCheck {
  bool start = false;
  // Not started and why ("cluster is unreachable", ...); empty when not started because a sync
  // for this entry already started (its phase moves the entry on).
  std::string held;
};
RolloutStartCheck CheckRolloutStart(const AppView& v, const AppRolloutStatus& entry);
// The start of a sync for `v` (phase Running), with its log line.
SyncStart MakeSyncStart(const ApplicationSet& set, const AppView& v, SyncStartTrigger trigger,
                        Json operation, std::vector<std::string> revisions, Time started_at,
                        Time now, std::vector<std::string>& log);
// [issue 29] Whether a rollback's sync back starts now: held while the cluster is unreachable
// or an operation runs, and not again once one at its revisions started since it was asked.
RolloutStartCheck CheckRollbackStart(const AppView& v, const RollbackSync& back);
// A rollout sync for a listed entry: started no earlier than the entry's transition (see .cc).
Time RolloutStartTime(const AppRolloutStatus& entry, Time now);

// The log lines of one app's entry change (promotion, transition, new pin); none if unchanged.
void LogEntryChange(const ApplicationSet& set, const GeneratedApplication& app,
                    const AppRolloutStatus* before, const AppRolloutStatus& after,
                    std::vector<std::string>& log);
// The log lines of the set's rollout state and conditions (generation, steps, completion).
void LogRolloutStateChanges(const ApplicationSet& set, const RolloutState& before_rollout,
                            const std::vector<AppSetCondition>& before_conditions,
                            const std::optional<RolloutState>& after_rollout,
                            const std::vector<AppSetCondition>& after_conditions,
                            std::vector<std::string>& log);
// The line for an app the rollout sends back because it drifted.
std::string HealedLine(const ApplicationSet& set, const AppView& v);

void KeepEarliest(std::optional<Time>& wake, Time t);

}  // namespace fleetwave::engine::reconcile
