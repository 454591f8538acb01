// The phases of one RollingSync reconcile (Plan in rollout_plan.h), each a function of values
// so that a test can drive it alone (tests/engine/rollingsync/rollout_phases_test.cc):
//   1. JoinApps      every live app joined by name with its desired app, its step and its
//                    stored entry, and the entry moved on by the live data (§3);
//   2. PromoteApps   Waiting apps of the open steps promoted to Pending within each step's
//                    maxUpdate budget (§4, §5), opening the next step when one completes;
//   3. SelectSyncs   the Pending apps of the open steps and the sync operation of each;
//   4. FinishRollout status.rollout, the conditions and the step deadline (§7), the halt of a
//                    failed step and the soak clock (issue 29, rollout_safety.h).
// Rows point into the caller's desired and live vectors, which must outlive them.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/appset/application.h"
#include "engine/appset/appset.h"
#include "engine/appset/generate.h"
#include "engine/rollingsync/rollback.h"
#include "engine/rollingsync/rollout_conditions.h"
#include "engine/rollingsync/rollout_eligibility.h"
#include "engine/rollingsync/rollout_state.h"
#include "engine/rollingsync/rollout_status.h"
#include "engine/rollingsync/rollout_steps.h"
#include "engine/time.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

// One live app in a reconcile.
struct PlanRow {
  const Application* live = nullptr;
  const GeneratedApplication* desired = nullptr;  // null: no longer generated
  int step = -1;                                  // 0-based; -1: no step selects it
  bool skipped = false;                           // an operator skipped it
  // [issue 29] Why a sync window holds its rollout sync now; "" when none does
  // (rollout_windows.h): a held Waiting app is not promoted, a held Pending one not listed.
  std::string window_hold;
};

struct JoinedApps {
  static constexpr size_t kNoRow = static_cast<size_t>(-1);

  std::vector<PlanRow> rows;  // one per live app, in name order
  // Per row, its status entry after this reconcile: kept apart from the rows so that the
  // plan's result takes the whole vector over.
  std::vector<AppRolloutStatus> entries;
  std::vector<size_t> row_of_desired;  // per desired app: its row, or kNoRow (not created yet)
  // Some entry went back to Waiting on a revision or spec change (§3.2), or on drift the set
  // heals (never while an abort or a halt holds the revision: DriftHealedNow): a new generation.
  bool new_generation = false;
  // Apps whose Healthy entry found drift this reconcile (DetectChange), in name order: `healed`
  // those sent back to Waiting for it (heal_drift), `drifted` the others, which stay Healthy
  // and are only reported.
  std::vector<std::string> drifted;
  std::vector<std::string> healed;
};

// The `steps` of a plan: every desired or live app's 1-based step, -1 for none (for every app
// when `assignment` is null: no enabled RollingSync). A desired app's own step wins over the
// live app of the same name. Built in name order, so each insertion lands at the end.
std::map<std::string, int> StepNumbers(const std::vector<GeneratedApplication>& desired,
                                       const StepAssignment* assignment,
                                       const std::vector<Application>& live);

// Phase 1. `assignment` is AssignSteps of `desired`; `previous` are the stored entries (any
// order), moved into the rows. `skipped` is status.rollout.skipped: a skip is an operator's
// decision about one revision, so it is dropped when its app is pinned to a new revision or no
// longer exists; a kept skip marks its row and sets its message. `steps` (the strategy's) mark
// failed apps of a step with maxFailures (MarkFailedApp). `heal_drift` is DriftHealedNow
// (rollout_safety.h) of the set's policy and the stored rollout state. `stored` (that state)
// gives each revision change its RevisionMemory (rollback.h).
JoinedApps JoinApps(const std::vector<GeneratedApplication>& desired,
                    const StepAssignment& assignment, const std::vector<Application>& live,
                    std::vector<AppRolloutStatus> previous,
                    const std::vector<std::string>& ignore_application_differences,
                    std::map<std::string, std::string>& skipped, Time now, bool heal_drift = false,
                    const std::vector<RolloutStep>& steps = {},
                    const RolloutState* stored = nullptr);

// The gate over the joined apps (§4): which steps are open.
Eligibility OpenSteps(const StepAssignment& assignment, const JoinedApps& joined,
                      const std::vector<StepGate>& gates = {});

// Phase 2. Promotes Waiting, unskipped apps of the open steps to Pending in name order, up to
// each step's maxUpdate budget, and moves each promoted entry on at once when the live data
// already says so. A step completed that way opens the next one in the same reconcile, so
// planning again changes nothing. Nothing is promoted while `paused`. Returns the open steps
// after promotion.
// `gates` (StepGates, rollout_safety.h) carry the steps' failure budgets and soaks; nothing is
// promoted in a step that failed.
Eligibility PromoteApps(const Strategy& strategy, const StepAssignment& assignment, bool paused,
                        JoinedApps& joined, Time now, const std::vector<StepGate>& gates = {});

// Promotes one Waiting entry to Pending at `now` (§4, the exact message) and moves it on at once
// while the live data already says so (Pending -> Progressing -> Healthy). Plan's PromoteApps and
// the incremental RolloutTracker both promote through it.
void PromoteEntry(AppRolloutStatus& entry, const Application& live, Time now);

// The operation that syncs an app to its entry's pinned revisions, from the spec it syncs (the
// desired one, the live one for an app no longer generated).
Json RolloutSyncOperation(const Json& spec, const std::vector<std::string>& pinned);

// What to sync now.
struct SyncSelection {
  std::vector<std::string> apps;           // in name order
  std::map<std::string, Json> operations;  // per app: the Argo-shaped operation
};

// Phase 3. The Pending, unskipped apps of the open steps, each with the operation built from
// its desired spec (the live one for an app no longer generated). Nothing while `paused`.
SyncSelection SelectSyncs(const JoinedApps& joined, const Eligibility& open, bool paused);

struct RolloutOutcome {
  RolloutState rollout;
  std::vector<AppSetCondition> conditions;      // sorted by type
  std::optional<Time> step_deadline;            // the current step's, while it runs
  std::optional<Time> soak_ends_at;             // the current step's soak, while it soaks
  std::optional<AnalysisRequest> analysis_due;  // the next measurement, while analysis runs
  // [issue 29] The syncs back a rollback lists now (RollbackPhase); while a rollback is set no
  // rollout sync starts.
  std::vector<RollbackSync> rollback_syncs;
};

// What FinishRollout's rollback phase reads of the apps (RollbackPhase): every app's candidate
// (called only when a rollback starts) and one app's Application.
struct RollbackInputs {
  std::function<std::vector<RollbackCandidate>()> candidates;
  std::function<const Application*(const std::string&)> live_of;
};

// A row's rollback candidate, and the rollback inputs over the joined apps (name order).
RollbackInputs JoinedRollbackInputs(const JoinedApps& joined);

// Phase 4. `state` is the stored rollout state after JoinApps pruned its skips;
// `previous_conditions` the stored conditions (a stale ApplicationSetRolloutError goes).
// `observation_complete` false: some app's cluster has not been observed yet (a daemon just
// started, its watches not listed), so a step can look incomplete for lack of data; the
// rollout then stays at the stored step — it may advance, never go back — so a restart neither
// re-opens a step nor restarts the step clock (RollingSync §7: the clock survives restarts).
RolloutOutcome FinishRollout(const Strategy& strategy, RolloutState state,
                             const std::vector<AppSetCondition>& previous_conditions,
                             const RolloutConfigIssues& config_issues, bool new_generation,
                             const Eligibility& open, Time now, bool observation_complete = true,
                             const RollbackInputs* rollback = nullptr);

// Conditions without the ErrorOccurred/ApplicationSetRolloutError one, which a reconcile that
// plans at all clears.
std::vector<AppSetCondition> WithoutRolloutError(std::vector<AppSetCondition> conditions);

}  // namespace fleetwave::engine
