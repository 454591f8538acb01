// The fleetwave rollout state of an ApplicationSet, `status.rollout` (a fleetwave
// extension of Argo's status): the rollout generation, the current step and when it started,
// operator pause and skips, whether the current step ran past its progressDeadlineSeconds, the
// failed step that halted it and the soak clock (issue 29). It
// is stored with the rest of the status, so a restart (or the next `plan`) continues the same
// clocks.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/appset/appset.h"
#include "engine/issue.h"
#include "engine/rollingsync/analysis.h"
#include "engine/rollingsync/rollback_state.h"
#include "engine/time.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

struct RolloutState {
  long long generation = 0;  // 0 = no rollout yet; the first reconcile starts generation 1
  int step = 0;              // 1-based current step; 0 when every step is complete
  std::optional<Time> step_started_at;
  bool paused = false;
  std::optional<Time> paused_at;  // when the running pause began (set while paused)
  // Paused time within the current step before `paused_at` (completed pauses).
  long long paused_seconds = 0;
  bool step_deadline_exceeded = false;
  std::map<std::string, std::string> skipped;  // app -> the operator's reason
  // [issue 29] The step (1-based) whose failed apps exceeded its maxFailures, and those apps in
  // name order: the rollout is halted (no promotion, no new sync) until a new generation.
  int failed_step = 0;
  std::vector<std::string> failed_apps;
  // [issue 29] The soak clock: since when every counted app of step `soak_step` (1-based) has
  // been Healthy without interruption. Stored, so a restart continues the same soak.
  int soak_step = 0;
  std::optional<Time> soak_started_at;
  // [issue 29] An operator's abort: nothing is promoted and no new sync starts (syncs running
  // finish), and the generation's revision is held: a poll that finds it again does not roll it
  // out. A new generation (the next commit) or a resume clears it.
  bool aborted = false;
  std::optional<Time> aborted_at;
  std::string aborted_by;  // the caller, as logged
  // [issue 29] The current step's Prometheus analysis so far (engine/rollingsync/analysis.h),
  // stored so that a restart goes on with the measurements already taken
  // (RecordAnalysisMeasurement); a new generation, another step or a resume of a halted rollout
  // drops it.
  std::optional<StepAnalysisRecord> analysis;
  // [issue 29] An operator's rollback, accepted and not yet started: the next decision starts it
  // (StartRollback, engine/rollingsync/rollback.h), which needs every app's entry.
  std::optional<RollbackRequest> rollback_requested;
  // [issue 29] The rollback of this generation, running or finished: while it is set the
  // generation's revision is held (RolloutHeld) and nothing is promoted; a new generation (the
  // next commit) clears it.
  std::optional<RollbackState> rollback;

  bool operator==(const RolloutState&) const = default;
};

// Decodes status.rollout (absent or null -> a default state). Strict: a field of the wrong type
// (`paused: "yes"`) is an issue naming it (status.rollout.paused) and the caller must not act
// on the state (it holds the set); the field reads as absent only to keep the value whole.
RolloutState DecodeRolloutState(const Json& rollout, Issues& issues);
// Absent optional fields are omitted, zero values included (Argo's omitempty).
Json EncodeRolloutState(const RolloutState& state);

// Operator actions (API/CLI). Durable: they live in the state. Pausing twice or resuming a
// running rollout changes nothing.
void PauseRollout(RolloutState& state, Time now);
// Ends a pause and an abort, and [issue 29] acknowledges a failed step's halt (failedStep,
// failedApps) and drops the step's analysis measurements, so that its analysis runs again: the
// next decision evaluates that step again as it is now, so its failed apps count
// once they are Healthy, the budget is checked against those still failed (one more than
// maxFailures halts again at once), and a step that completes goes on to its soak and the next
// step. An operator who wants to go on without an app still failed skips it. Pinned by
// ResumeAfterAHalt in tests/engine/rollingsync/rollout_safety_test.cc, through Plan and the
// tracker.
void ResumeRollout(RolloutState& state, Time now);
// The rollout is halted by a failed step (a resume or a new generation clears it).
inline bool RolloutHalted(const RolloutState& state) { return state.failed_step != 0; }
// [issue 29] Halts the rollout now and holds its revision, for `caller`; a resume or a new
// generation undoes it. Aborting an aborted rollout changes nothing.
void AbortRollout(RolloutState& state, Time now, const std::string& caller);
// [issue 29] Asks the next decision to roll the rollout back, for `caller`, to `to` ("" = each
// app's last healthy revisions). A request already waiting is replaced.
void RequestRollback(RolloutState& state, Time now, const std::string& caller,
                     const std::string& to);
// A rollback is requested, or one runs (it has apps not yet rolled back or failed).
bool RollbackInProgress(const RolloutState& state);
// [issue 29] Adds a measurement the daemon took for `request` (a decision's analysis_due) to
// state.analysis, in time order. False, and nothing changes, when the rollout moved on since the
// request (another generation or step) or is held (a halt or an abort): a stale answer never
// counts for a step it was not taken for.
bool RecordAnalysisMeasurement(RolloutState& state, const AnalysisRequest& request,
                               const AnalysisMeasurement& measurement);
void SkipApplication(RolloutState& state, const std::string& app, const std::string& reason);

// Seconds of the current step spent paused, up to `now`.
long long PausedSecondsInStep(const RolloutState& state, Time now);

// When the current step's deadline expires given the pauses so far, or nullopt when the step
// has no deadline or the rollout is paused (the clock is stopped).
std::optional<Time> StepDeadline(const RolloutState& state, const std::optional<long long>& seconds,
                                 Time now);

// Moves the state to this reconcile's outcome: a new generation when `new_generation`, the
// step clock restarted whenever the current step changes (or a generation starts), the
// deadline of `current_step` (1-based, 0 = complete) evaluated at `now`.
RolloutState AdvanceRolloutState(const RolloutState& previous, const Strategy& strategy,
                                 bool new_generation, int current_step, Time now);

}  // namespace fleetwave::engine
