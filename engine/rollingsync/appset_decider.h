// One RollingSync ApplicationSet's reconcile, decided on what changed (issue 25). ReconcileAppSet
// (appset_reconcile.h) decides over every app of the set, and a cluster event changes one: at
// 2,000 apps a set spent most of the daemon's CPU re-deriving, encoding and comparing apps nothing
// had changed. RollingSyncDecider holds each app's observation, stored record, derived view and
// Application between decisions, and the set's RolloutTracker; a fact (an app's live objects or
// cluster state, an operation record, a stored spec) marks that app, and Decide re-derives the
// marked apps only, through the same per-app steps as ReconcileAppSet (appset_reconcile_parts.h).
//
// ReconcileAppSet stays the oracle. Pinned by tests/engine/daemon/appset_decider_test.cc: seeded
// event sequences (attempts finishing, health flaps, clusters going away and observed late,
// drift, new commits with a new seed) where after every decision the decider's status, starts,
// specs, attempts, wake-up, log lines and Applications equal what ReconcileAppSet decides on the
// same inputs; and DecideChecked, which the daemon runs at each resync.
//
// What it does not take incrementally — a new generation of apps or renders, the set's spec, a
// stored-state reload, operator commands, deletion marks — the caller decides from scratch with
// ReconcileAppSet and seeds a new decider from that decision (Seed), O(apps) at a poll's rate.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/rollingsync/appset_reconcile.h"
#include "engine/rollingsync/appset_reconcile_parts.h"
#include "engine/rollingsync/rollout_tracker.h"

namespace fleetwave::engine {

// What one incremental decision changed: what the caller persists (write-ahead), then acts on
// and publishes.
struct AppSetDelta {
  std::vector<AppRolloutStatus> changed_entries;  // name order
  // Where changed_entries sit in status()'s applicationStatus, ascending, when the decision
  // patched them in place; nullopt when it rebuilt the list (every entry may have moved). Lets
  // a publisher look at these entries only instead of comparing the whole list.
  std::optional<std::vector<std::size_t>> entry_positions;
  std::optional<std::vector<AppSetCondition>> conditions;  // set: they changed
  std::optional<RolloutState> rollout;                     // set: status.rollout changed
  std::map<std::string, Json> specs;                       // app -> spec to store
  std::vector<SyncStart> starts;                           // persist, then execute
  // Apps whose stored operation is Running and became due for an attempt since the last
  // decision, or changed while due (a subset of ReconcileAppSet's, which lists every due one at
  // every decision; the caller skips those it has an attempt in flight for either way). Sorted.
  std::vector<std::string> attempts_due;
  // The Applications that changed, name order (the decider's applications() holds all).
  std::vector<std::shared_ptr<const Json>> applications;
  std::optional<Time> wake_at;
  // [issue 29] The next analysis measurement, while the current step's analysis runs
  // (PlanResult::analysis_due). Its due time is not in wake_at: the caller takes a due
  // measurement at once (a wake-up at a past time would decide again and again meanwhile) and
  // arms its own timer for a later one.
  std::optional<AnalysisRequest> analysis_due;
  std::vector<std::string> log;
  std::vector<std::string> drifted;  // reported, not healed (all of the set's, as PlanResult)
  std::size_t healed = 0;
  std::size_t apps_decided = 0;  // re-derived or promoted: the cost
  bool Empty() const {
    return changed_entries.empty() && !conditions && !rollout && specs.empty() && starts.empty();
  }
};

// The result of comparing the decider's state with a from-scratch reconcile on it.
struct DeciderCheck {
  bool agrees = true;
  std::string difference;  // the first difference: app and what differs
};

// The first app whose stored spec or operation differs between what a decider holds and what
// the store holds (the caller's mirror of it), or "" when they are the same: a fact the caller
// failed to feed (SetSpec, SetOperation) shows here, which DecideChecked cannot see since it
// decides on the decider's own state. O(apps).
std::string StoredAppsDifference(const std::map<std::string, StoredApp>& decider,
                                 const std::map<std::string, StoredApp>& store);

class RollingSyncDecider {
 public:
  // Sets a decider can take: an enabled RollingSync with progressive syncs on.
  static bool Handles(const ApplicationSet& set, bool progressive_syncs);

  // From a from-scratch decision at `now` that was committed: `stored` and `stored_apps` are
  // what the store holds after it (the decision included), `observed` the observations it
  // handed back (their Applications are the decision's). O(apps x log apps), and so is the
  // first Decide: a decision that started syncs is not settled (the next one moves those
  // entries on), and the first Decide re-decides every app's entry.
  // REQUIRES: Handles(*set, true); `observed` sorted by name, names unique.
  RollingSyncDecider(std::shared_ptr<const ApplicationSet> set, StoredRolloutStatus stored,
                     std::vector<ObservedApp> observed,
                     std::map<std::string, StoredApp> stored_apps,
                     std::optional<Time> reuse_applications_since, Time now);

  // Facts. Each marks the app it names; unknown apps are ignored (not generated).
  // The app's observation, to be changed and handed back (its live objects, cluster flags or
  // apply results); the caller resets `compared` when what it compares changed, as for
  // ReconcileAppSet. Take and Put come in pairs, and `desired` comes back unchanged: it is the
  // decider's generation (a new generation is a new decider).
  ObservedApp TakeObserved(const std::string& app);
  void PutObserved(ObservedApp observed);
  // The store's record of the app changed (an attempt finished, a decision was committed).
  void SetOperation(const std::string& app, std::optional<OperationRecord> operation);
  void SetSpec(const std::string& app, Json spec);

  AppSetDelta Decide(Time now);

  // Decide, checked against ReconcileAppSet on the same inputs (this decider's stored status,
  // observations and stored apps): the status, the syncs started (ids included), the specs
  // written, the attempts due and the Applications (but reconciledAt) must be the same; `check`
  // names the first difference. O(apps): the daemon runs it at each resync and counts a
  // difference in fleetwave_decision_divergence_total. The observations are lent to the oracle.
  AppSetDelta DecideChecked(Time now, DeciderCheck& check);

  // The set's whole status (PlanStatusJson) and Applications (name order), kept up to date per
  // changed app.
  const Json& status() const { return status_; }
  // Lent, e.g. swapped into a message and swapped back: the caller returns it unchanged before
  // the next Decide.
  Json& status() { return status_; }
  const std::vector<std::shared_ptr<const Json>>& applications() const { return applications_; }
  const std::map<std::string, StoredApp>& stored_apps() const { return stored_; }
  std::vector<ObservedApp> ReleaseObserved();  // the decider is done: the observations back
  StoredRolloutStatus StoredStatus() const;    // O(apps)
  const RolloutTracker& tracker() const { return *tracker_; }
  std::size_t app_count() const { return apps_.size(); }

 private:
  struct App {
    ObservedApp observed;
    // As the planner reads it (KeepStoredSpec applied), shared with the tracker's record.
    std::shared_ptr<const GeneratedApplication> planned;
    uint64_t planned_from = 0;          // the desired spec's fingerprint `planned` was derived from
    bool planned_reusable = false;      // KeepStoredSpec left `planned` as derived (see Derive)
    reconcile::AppView view;            // points into this App and stored_
    std::shared_ptr<Application> live;  // shared with the tracker's record
    std::size_t position = 0;           // in applications_ and status_'s applicationStatus
  };

  void Derive(App& app, const AppRolloutStatus* entry);
  void Mark(const std::string& name);
  void RebuildStatusJson();
  void TrackRunning(const std::string& name);
  std::shared_ptr<const Json> BuildApplication(App& app, const OperationRecord* op, Time now,
                                               const std::string& reconciled_at);

  std::shared_ptr<const ApplicationSet> set_;
  reconcile::SpecWriteRules rules_;
  std::map<std::string, App> apps_;
  std::map<std::string, StoredApp> stored_;
  std::optional<RolloutTracker> tracker_;  // set in the constructor, after the views
  std::set<std::string> dirty_;
  // Apps whose stored operation is Running -> its next_attempt_at. An attempt is reported due
  // once per state of its operation (not at every event: the set may have thousands running,
  // each with its attempt in flight): when it becomes Running without a retry time
  // (`due_unreported_`), when its retry time comes (`retry_at_`, popped then), and again when
  // the app itself changed (a cluster back may let a held attempt run).
  std::map<std::string, std::optional<Time>> running_;
  std::set<std::pair<Time, std::string>> retry_at_;
  // Retries popped from retry_at_ (reported due), until their operation changes: a clock that
  // steps back makes one of them not due yet, and the wake-up must still come at its time.
  std::set<std::pair<Time, std::string>> reported_retries_;
  std::set<std::string> due_unreported_;
  std::size_t unobserved_ = 0;  // apps whose cluster was not observed yet
  std::optional<Time> reuse_since_;
  Time decided_at_{};
  Json status_;
  std::vector<std::shared_ptr<const Json>> applications_;
};

}  // namespace fleetwave::engine
