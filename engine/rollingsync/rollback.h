// [issue 29] The rules of a rollback, shared by Plan (the oracle) and the incremental
// RolloutTracker, so the two cannot disagree (pinned by tests/engine/rollingsync/rollback_test.cc
// through both, and the differential test's rollback events):
//   - which apps it returns and to what (StartRollback): every app the rollout synced in this
//     generation (pinned in it by a revision change, and Progressing or Healthy, or Pending with
//     its sync started) goes back to the revisions it was last Healthy at before that pin
//     (AppRolloutStatus::previous_healthy_revisions), or to the operator's --to revision;
//   - in which order (StepRollback): last step first (the reverse of the rollout), within each
//     step at most its maxUpdate syncing at once (0, a manual gate, counts as 1: a rollback
//     must not wait for a person), names in order; the next step starts when every app of the
//     step is rolled back or failed;
//   - when an app is rolled back: its sync back succeeded and it is Healthy; a sync back that
//     ends Failed or Error (after its retries) fails that app, and the rollback goes on with
//     the others (leaving earlier steps on the failed revision would be worse).
// A rollback holds the generation's revision (RolloutHeld): polls that find it again roll
// nothing out; the next commit (a new generation) does. Scale: the rollback's apps are walked
// at every decision while it runs, O(apps synced); rollbacks are rare and short.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/appset/application.h"
#include "engine/appset/appset.h"
#include "engine/issue.h"
#include "engine/rollingsync/rollback_state.h"
#include "engine/rollingsync/rollout_state.h"
#include "engine/rollingsync/rollout_status.h"
#include "engine/time.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

// One app as a rollback sees it: its entry after this decision and its Application (null:
// none). `entry` is never null.
struct RollbackCandidate {
  const AppRolloutStatus* entry = nullptr;
  const Application* live = nullptr;
};

// The rollback of `state`'s generation for `reason`, over every app's candidate (any order):
// see the file comment for which apps and to what. `by`, `to` as RollbackState's;
// `failed_step` (1-based) for kRollbackStepFailed.
RollbackState StartRollback(const std::vector<RollbackCandidate>& apps, long long generation,
                            const std::string& reason, const std::string& by, int failed_step,
                            const std::string& to, Time now);

// The start of a rollback sync's Reason (info), which tells its operations from others.
inline constexpr const char* kRollbackReasonPrefix = "rollback (";

// The operation is a rollback's sync back (its Reason carries kRollbackReasonPrefix).
bool IsRollbackOperation(const Json& operation);
bool IsRollbackOperation(const OperationSummary& operation);

// A sync a rollback asks for: the app back to `to`, its operation started at or after `since`.
struct RollbackSync {
  std::string app;
  std::vector<std::string> to;
  Time since{};
  Json operation;  // Argo-shaped (BuildSyncOperation), initiated by the rollback
};

// Moves `rollback` on at `now` (see the file comment); `live_of` gives an app's Application or
// null. Nothing new starts while `hold_new_syncs` (paused or aborted). Returns the syncs listed
// now: every Syncing app whose sync back has not started yet (listed again until it has, as a
// Pending app is in a rollout, so deciding again at the same `now` lists the same ones).
std::vector<RollbackSync> StepRollback(
    RollbackState& rollback, const Strategy& strategy,
    const std::function<const Application*(const std::string&)>& live_of, bool hold_new_syncs,
    Time now);

// The decision's rollback phase, after FinishRollout moved `state` on (`stored_failed_step` is
// the failed step of the state the decision began from): starts a requested rollback, or one
// for a step that failed in this decision under `onFailure: Rollback`, then steps it.
// `candidates` is called only when a rollback starts (O(apps)). Returns the syncs listed now.
std::vector<RollbackSync> RollbackPhase(
    RolloutState& state, int stored_failed_step, const Strategy& strategy,
    const std::function<std::vector<RollbackCandidate>()>& candidates,
    const std::function<const Application*(const std::string&)>& live_of, Time now);

// The app is one of the stored rollback's: its revision history keeps the revisions it was
// returned to (the rolled-back pin never counts as healthy).
bool RolledBack(const RolloutState& stored, const std::string& app);

// `drifted` (name order) without the apps of `state`'s rollback: their difference from the
// held revision is the rollback's doing, not another tool's, and is not reported as drift.
// Applied to a decision's report (PlanResult::drifted) by both deciders.
std::vector<std::string> WithoutRolledBack(std::vector<std::string> drifted,
                                           const RolloutState& state);

// The rollback's part of RolloutProgressing's message: which apps went back and where, which
// are under way, which failed and which had nothing to return to.
std::string RollbackMessage(const RollbackState& rollback);

// `validate`'s warnings (never failing): a step with `onFailure: Rollback` but neither
// maxFailures nor analysis never fails (a failed app holds it, as always), so its rollback never
// acts. One per such step, naming its onFailure field.
Issues RollbackNeverActsWarnings(const ApplicationSet& set);

}  // namespace fleetwave::engine
