// The rollout-safety rules of a RollingSync step that both deciders share (issue 29; pinned by
// tests/engine/rollingsync/rollout_safety_test.cc): the soak gate, the failure budget's per-app
// mark and the halted rollout's message. Plan (rollout_phases.cc) and the incremental
// RolloutTracker call these same functions, so the two cannot disagree on a rule.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/appset/application.h"
#include "engine/appset/appset.h"
#include "engine/rollingsync/rollout_eligibility.h"
#include "engine/rollingsync/rollout_state.h"
#include "engine/rollingsync/rollout_status.h"
#include "engine/time.h"

namespace fleetwave::engine {

// Whether step `s` (0-based) has soaked at `now`, from the rollout state stored before this
// decision: a step without minSuccessTime always has; otherwise one the rollout already went
// past in this generation has (its soak ran then), and the step whose soak clock
// (soak_step/soak_started_at) has run minSuccessTime has — one second more, since the clock
// has whole seconds and a soak must never end early. A new generation soaks every step
// again. The clock is stored state, so a restart continues it.
bool StepSoaked(const Strategy& strategy, int s, const RolloutState& stored, bool new_generation,
                Time now);

// [issue 29] Step `s`'s (0-based) analysis verdict at `now`, from the rollout state stored
// before this decision: passed without analysis and for a step the rollout already went past in
// this generation; otherwise JudgeAnalysis of the stored measurements when they are this step's,
// running when there are none yet (a new generation analyses every step again).
AnalysisVerdict::State StepAnalysisState(const Strategy& strategy, int s,
                                         const RolloutState& stored, bool new_generation, Time now);

// Every step's gate for ComputeEligibility.
std::vector<StepGate> StepGates(const Strategy& strategy, const RolloutState& stored,
                                bool new_generation, Time now);

// The rollout's revision is held: by a failed step's halt, an operator's abort or a rollback
// (requested, running or finished). Only a new
// revision (a new generation of the apps' revisions or specs) or an operator's resume
// (ResumeRollout) clears it; drift never does (DriftHealedNow).
bool RolloutHeld(const RolloutState& state);

// The rollout is halted by a failed step recorded before this decision, or by an operator's
// abort (a new generation clears both, and so does an operator's resume: ResumeRollout):
// nothing is promoted and no new sync starts.
bool HaltedBefore(const RolloutState& stored, bool new_generation);

// Whether drift found in this decision sends its Healthy entry back to Waiting, to be synced
// again in step order (UpdateAppRolloutStatus's heal_drift). `heals_drift` is the set's policy
// (RollingSyncHealsDrift); `stored` the rollout state before this decision. Not while the
// revision is held (RolloutHeld): a healed entry is a change that starts a new generation, and a
// new generation clears a hold, so another tool editing a live object would undo an abort or a
// failed step's halt. Held, drift is only reported (the app OutOfSync, PlanResult::drifted) and
// the first decision after a resume heals it; a new commit syncs every app anyway.
bool DriftHealedNow(bool heals_drift, const RolloutState& stored);

// Reports a failed app in its entry's message when its step has a failure budget (without one
// nothing changes: Argo CD's messages stay exact). Called wherever an entry is decided.
void MarkFailedApp(AppRolloutStatus& entry, const Application& live, bool skipped,
                   const RolloutStep* step);

// The soak and halt part of status.rollout after a decision whose first incomplete step is
// `open`: the halt recorded when the step failed, the soak clock started when the step began
// soaking (kept while it soaks), cleared otherwise; an incomplete observation keeps a stored
// soak (a restart must not restart it). Returns when the soak ends, for the wake-up timer.
std::optional<Time> UpdateSafetyState(const Strategy& strategy, RolloutState& state,
                                      const Eligibility& open, bool observation_complete, Time now);

// [issue 29] The measurement a decision asks for: while the current step's analysis runs
// (`open.analysis_running`, at the step `state` — the decision's — is at) and the rollout is
// neither paused nor held, the next one, due at once when none was taken yet, else one
// interval after the last. nullopt otherwise.
std::optional<AnalysisRequest> AnalysisDue(const Strategy& strategy, const RolloutState& state,
                                           const Eligibility& open, Time now);

// RolloutProgressing's message of a halted rollout: the step, its budget and the failed apps;
// for a step whose analysis failed (no failed apps), the analysis' query, condition and values.
std::string RolloutFailedMessage(const Strategy& strategy, const RolloutState& state);

// RolloutProgressing's message of an aborted rollout: the step, who aborted it and when.
std::string RolloutAbortedMessage(const RolloutState& state);

}  // namespace fleetwave::engine
