// The RollingSync state of one ApplicationSet, held between decisions and moved on by the facts
// that changed (issue 25). `Plan` (rollout_plan.h) decides from scratch over every app; a cluster
// event changes one app, so deciding again over 20,000 apps for it costs the whole set each time.
// RolloutTracker keeps what Plan re-derives — each app's status entry, its step, whether it is
// skipped — plus an index Plan has no need for: per step, the apps that hold it (incomplete),
// the Pending and Progressing ones (maxUpdate's budget) and the Waiting ones in promotion order.
// One event then costs O(changed apps x log apps) plus the promotions it allows.
//
// Plan stays the oracle: after any sequence of events, Snapshot() equals Plan over the same
// desired and live apps with the previous decision's status as the stored one. Pinned by
// tests/engine/rollingsync/rollout_tracker_test.cc (every Plan table and the 65 vectors through
// both) and rollout_tracker_differential_test.cc (seeded random event sequences, restarts from
// stored state included). The per-app rules are Plan's own (UpdateAppRolloutStatus,
// AdvanceAppRolloutStatus, MaxUpdateLimit, FinishRollout), called on the changed apps only.
//
// Why only changed apps suffice: an app's entry is a function of its stored entry, its live and
// desired app and its step, and UpdateAppRolloutStatus is a fixpoint (deciding again on its own
// result changes nothing). Promotion only ever happens in the first incomplete step (every
// earlier step is complete, so it holds no unskipped Waiting app), and the sync list is that
// step's unskipped Pending apps.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/appset/application.h"
#include "engine/appset/appset.h"
#include "engine/appset/generate.h"
#include "engine/rollingsync/rollout_conditions.h"
#include "engine/rollingsync/rollout_eligibility.h"
#include "engine/rollingsync/rollout_plan.h"
#include "engine/rollingsync/rollout_state.h"
#include "engine/rollingsync/rollout_status.h"
#include "engine/rollingsync/rollout_steps.h"
#include "engine/rollingsync/rollout_windows.h"
#include "engine/time.h"

namespace fleetwave::engine {

// What one decision changed: what a caller persists, publishes and acts on.
struct RolloutDelta {
  // Entries that changed or appeared, in name order; `removed_entries` the apps whose entry went
  // with their Application.
  std::vector<AppRolloutStatus> changed_entries;
  // Parallel to changed_entries: each one's entry before this decision (none: a new entry).
  std::vector<std::optional<AppRolloutStatus>> entries_before;
  std::vector<std::string> removed_entries;
  bool conditions_changed = false;
  bool rollout_changed = false;  // status.rollout (step, clocks, pause, skips, generation)
  bool new_generation = false;
  // Apps that joined the sync list (Pending, unskipped, in the open step, not paused), in name
  // order: the syncs this decision starts.
  std::vector<std::string> syncs_to_start;
  // Re-decided apps found drifted: `healed` sent back to Waiting, `drifted` only reported.
  std::vector<std::string> drifted;
  std::vector<std::string> healed;
  std::optional<Time> step_deadline;            // the next wake-up this rollout needs, if any
  std::optional<Time> soak_ends_at;             // when the current step's soak ends, while it soaks
  std::optional<Time> window_edge_at;           // when a sync window may start or end a hold next
  std::optional<AnalysisRequest> analysis_due;  // the next analysis measurement, while it runs
  // [issue 29] The syncs back a rollback lists now (Snapshot().rollback_syncs): every one, not
  // only those new to the list; the caller starts each once (CheckRollbackStart).
  std::vector<RollbackSync> rollback_syncs;
  // The cost: apps whose entry was re-derived (changed inputs) or promoted.
  size_t apps_decided = 0;
};

// Per-step counters, for tests, metrics and the summary.
struct RolloutStepCounts {
  long long members = 0;     // desired apps the step selects
  long long live = 0;        // of them, those whose Application exists (maxUpdate's total)
  long long updating = 0;    // live ones Pending or Progressing
  long long incomplete = 0;  // members that hold the step (RollingSync §4's gate)
  long long waiting = 0;     // unskipped Waiting: the promotion queue
  long long pending = 0;     // unskipped Pending
};

class RolloutTracker {
 public:
  // Sets this tracks: an enabled RollingSync (Plan handles AllAtOnce, zero-step and unsupported
  // strategies, none of which keeps per-app state).
  static bool Tracks(const ApplicationSet& appset);

  // From a stored status (a restart, or the set's first decision). Every app is re-decided at
  // the first Decide, so that decision equals Plan on the same inputs. O(apps x log apps).
  // REQUIRES: Tracks(appset); names unique within `desired` and within `live`.
  RolloutTracker(const ApplicationSet& appset, StoredRolloutStatus stored,
                 std::vector<GeneratedApplication> desired, std::vector<Application> live);
  // The same with the apps shared with their owner (a RollingSyncDecider), not copied.
  RolloutTracker(const ApplicationSet& appset, StoredRolloutStatus stored,
                 std::vector<std::shared_ptr<const GeneratedApplication>> desired,
                 std::vector<std::shared_ptr<const Application>> live);

  // Facts. Each marks the apps it concerns for the next Decide and changes nothing else.
  void SetLive(Application app);                         // created or updated
  void SetLive(std::shared_ptr<const Application> app);  // shared: the caller changes it no more
  void RemoveLive(const std::string& app);               // the Application is gone
  // A new generation of desired apps (generators, git): O(apps), and only apps whose step or
  // spec changed (or that appeared or went) are re-decided.
  void SetDesired(std::vector<GeneratedApplication> desired);
  void Pause(Time now);
  void Resume(Time now);
  void Abort(Time now, const std::string& caller);
  // [issue 29] An operator's rollback (RequestRollback): the next Decide starts it.
  void RequestRollback(Time now, const std::string& caller, const std::string& to);
  void Skip(const std::string& app, const std::string& reason);
  // [issue 29] A measurement taken for a decision's analysis_due (RecordAnalysisMeasurement):
  // false when the rollout moved on since. The next Decide judges the step with it.
  bool RecordMeasurement(const AnalysisRequest& request, const AnalysisMeasurement& measurement);

  // Decides on what changed since the last decision, at `now` (truncated to seconds).
  // `observation_complete` as for Plan.
  RolloutDelta Decide(Time now, bool observation_complete = true);

  // The whole decision as Plan returns it (O(apps)): for the oracle comparison and resyncs.
  PlanResult Snapshot() const;

  const RolloutState& rollout() const { return state_; }
  const std::vector<AppSetCondition>& conditions() const { return conditions_; }
  const AppRolloutStatus* EntryOf(const std::string& app) const;
  // The app is in the last decision's sync list (Pending, unskipped, in the open step, not
  // paused): Snapshot().apps_to_sync holds it.
  bool InSyncList(const std::string& app) const;
  std::vector<std::string> Drifted() const;  // reported, not healed: Snapshot().drifted
  size_t app_count() const { return records_.size(); }
  std::vector<RolloutStepCounts> StepCounts() const;

 private:
  struct Record {
    std::shared_ptr<const GeneratedApplication> desired;  // null: not generated (any more)
    std::shared_ptr<const Application> live;              // null: not created yet, or gone
    int step = -1;                                        // 0-based, from `desired`
    std::optional<AppRolloutStatus> entry;                // present iff `live`, once decided
    bool skipped = false;
    bool drift_reported = false;  // drifted, not healed: stays so until re-decided
    bool dirty = false;           // to be re-decided; not indexed meanwhile
    bool touched = false;         // in touched_ (this decision reports it)
    bool listed_before = false;   // was in the sync list when first touched
    // [issue 29] Why a sync window holds its rollout sync ("" none), as of the window clock
    // it was last decided with: a held app is in neither promotion nor sync queue.
    std::string window_hold;
  };
  using Records = std::map<std::string, Record, std::less<>>;

  struct StepIndex {
    long long members = 0;
    long long live = 0;
    long long updating = 0;
    long long incomplete = 0;
    std::set<std::string_view> waiting;  // keys of records_, name order
    std::set<std::string_view> pending;
    // Incomplete members that count as failed (FailureOf), for maxFailures (issue 29).
    std::set<std::string_view> failed;
    // Unskipped Waiting or Pending members a sync window holds (issue 29).
    std::set<std::string_view> window_held;
  };

  // A record this decision re-decides or promotes, with its entry before: for the delta.
  struct Touched {
    Records::iterator record;
    std::optional<AppRolloutStatus> before;
  };

  Records::iterator Find(const std::string& app);  // creates the record when absent
  void MarkDirty(Records::iterator it);
  void Index(const std::string& name, const Record& record, int sign);
  bool Listed(const Record& record) const;  // in the current sync list
  void Touch(Records::iterator it);
  // The first step that holds the rollout and why, under `gates` (StepGates).
  struct Hold {
    int step = -1;  // 0-based; -1: none
    StepHold why = StepHold::kNone;
  };
  Hold FirstHold(const std::vector<StepGate>& gates) const;
  void Redecide(Records::iterator it, Time now, RolloutDelta& delta);
  // The window clock at `now`: recomputed at its edge (or first), when every record whose hold
  // changed is marked for re-decision. O(apps) only then; O(1) otherwise.
  void AdvanceWindowClock(Time now);
  std::string WindowHoldOf(const Record& record) const;
  void Promote(Time now, const std::vector<StepGate>& gates, bool halted);

  Strategy strategy_;
  std::vector<std::string> ignore_application_differences_;
  bool heal_drift_ = false;  // the set's policy: RollingSyncHealsDrift
  // DriftHealedNow of the last decision: while false, drift is only reported (drifted_).
  bool heals_drift_now_ = false;
  RolloutConfigIssues config_issues_;
  std::shared_ptr<const AppProjects> projects_;  // the set's (issue 29)
  WindowClock window_clock_;
  bool window_clock_set_ = false;

  Records records_;
  std::vector<StepIndex> steps_;
  std::vector<Touched> touched_;        // since the last decision
  std::set<std::string_view> drifted_;  // records with drift_reported

  RolloutState state_;
  std::vector<AppSetCondition> conditions_;
  Json other_status_ = Json::object();
  std::vector<std::string> healed_;              // by the last decision
  std::optional<Time> step_deadline_;            // of the last decision
  std::optional<Time> soak_ends_at_;             // of the last decision
  std::optional<AnalysisRequest> analysis_due_;  // of the last decision
  std::vector<RollbackSync> rollback_syncs_;     // of the last decision
  int open_step_ = -1;                           // the last decision's first incomplete step
  bool listing_ = false;                         // the last decision had a sync list (not paused)
};

}  // namespace fleetwave::engine
