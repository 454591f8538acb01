#include "engine/rollingsync/rollout_safety.h"

#include <chrono>

#include "engine/rollingsync/max_failures.h"
#include "engine/rollingsync/max_update.h"

namespace fleetwave::engine {
namespace {

// The soak clock has whole seconds (decisions truncate `now`), so a soak started at S may have
// begun up to a second after S: it ends one second after S + minSuccessTime, never early.
Time SoakEnd(Time started, long long seconds) {
  return started + std::chrono::seconds(seconds + 1);
}

}  // namespace

bool StepSoaked(const Strategy& strategy, int s, const RolloutState& stored, bool new_generation,
                Time now) {
  const auto& secs = strategy.steps[s].min_success_seconds;
  if (!secs) return true;
  if (new_generation || stored.generation == 0) return false;
  // Steps are 1-based in the state; 0 is "every step complete".
  if (stored.step == 0 || stored.step > s + 1) return true;
  return stored.soak_step == s + 1 && stored.soak_started_at &&
         now >= SoakEnd(*stored.soak_started_at, *secs);
}

AnalysisVerdict::State StepAnalysisState(const Strategy& strategy, int s,
                                         const RolloutState& stored, bool new_generation,
                                         Time now) {
  using State = AnalysisVerdict::State;
  const auto& spec = strategy.steps[s].analysis;
  if (!spec) return State::kPassed;
  if (new_generation || stored.generation == 0) return State::kRunning;
  if (stored.step == 0 || stored.step > s + 1) return State::kPassed;
  if (stored.analysis && stored.analysis->step == s + 1) {
    return JudgeAnalysis(*spec, stored.analysis->measurements, now).state;
  }
  return State::kRunning;
}

std::vector<StepGate> StepGates(const Strategy& strategy, const RolloutState& stored,
                                bool new_generation, Time now) {
  std::vector<StepGate> gates(strategy.steps.size());
  for (size_t s = 0; s < gates.size(); ++s) {
    gates[s].max_failures = strategy.steps[s].max_failures;
    gates[s].soaked = StepSoaked(strategy, static_cast<int>(s), stored, new_generation, now);
    gates[s].analysis =
        StepAnalysisState(strategy, static_cast<int>(s), stored, new_generation, now);
  }
  return gates;
}

bool RolloutHeld(const RolloutState& state) {
  return RolloutHalted(state) || state.aborted || state.rollback || state.rollback_requested;
}

bool HaltedBefore(const RolloutState& stored, bool new_generation) {
  return RolloutHeld(stored) && !new_generation;
}

bool DriftHealedNow(bool heals_drift, const RolloutState& stored) {
  return heals_drift && !RolloutHeld(stored);
}

void MarkFailedApp(AppRolloutStatus& entry, const Application& live, bool skipped,
                   const RolloutStep* step) {
  if (skipped || step == nullptr || !step->max_failures) return;
  if (std::string failure = FailureOf(entry, live); !failure.empty()) {
    entry.message = FailedAppMessage(failure);
  } else if (IsFailedAppMessage(entry.message)) {
    // Recovered without a transition (a Healthy entry whose live health came back): the
    // message must not go on saying it failed.
    entry.message = kRecoveredAppMessage;
  }
}

std::optional<Time> UpdateSafetyState(const Strategy& strategy, RolloutState& state,
                                      const Eligibility& open, bool observation_complete,
                                      Time now) {
  const int current = open.CurrentStep();
  if (open.failed && state.failed_step == 0) {
    state.failed_step = current;
    state.failed_apps = open.failed_apps;
  }
  if (open.soaking) {
    if (state.soak_step != current || !state.soak_started_at) {
      state.soak_step = current;
      state.soak_started_at = now;
    }
    return SoakEnd(*state.soak_started_at, *strategy.steps[current - 1].min_success_seconds);
  }
  // Soaked, and only its analysis holds the step: the clock stays, or the next decision would
  // find the step unsoaked and soak it again.
  if (open.awaiting_analysis) return std::nullopt;
  if (observation_complete) {
    state.soak_step = 0;
    state.soak_started_at.reset();
  }
  return std::nullopt;
}

std::optional<AnalysisRequest> AnalysisDue(const Strategy& strategy, const RolloutState& state,
                                           const Eligibility& open, Time now) {
  if (!open.analysis_running || open.CurrentStep() != state.step || state.paused ||
      RolloutHeld(state)) {
    return std::nullopt;
  }
  const auto& spec = strategy.steps[state.step - 1].analysis;
  if (!spec) return std::nullopt;
  static const std::vector<AnalysisMeasurement> kNone;
  const auto& taken =
      state.analysis && state.analysis->step == state.step ? state.analysis->measurements : kNone;
  const AnalysisVerdict verdict = JudgeAnalysis(*spec, taken, now);
  if (verdict.state != AnalysisVerdict::State::kRunning || !verdict.next_at) return std::nullopt;
  return AnalysisRequest{state.generation, state.step, *verdict.next_at, *spec};
}

namespace {

// The halt of a step whose analysis failed: a budget failure always names at least one app.
std::optional<std::string> AnalysisFailureOf(const Strategy& strategy, const RolloutState& state) {
  if (!state.failed_apps.empty() || state.failed_step < 1 ||
      state.failed_step > static_cast<int>(strategy.steps.size())) {
    return std::nullopt;
  }
  const auto& spec = strategy.steps[state.failed_step - 1].analysis;
  if (!spec) return std::nullopt;
  std::string why = "its analysis failed";
  if (state.analysis && state.analysis->step == state.failed_step) {
    const AnalysisVerdict v = JudgeAnalysis(*spec, state.analysis->measurements, Time{});
    if (v.state == AnalysisVerdict::State::kFailed) why = v.message;
  }
  return why + " (query: " + spec->query + ")";
}

}  // namespace

std::string RolloutFailedMessage(const Strategy& strategy, const RolloutState& state) {
  if (auto analysis = AnalysisFailureOf(strategy, state)) {
    return "ApplicationSet rollout step " + std::to_string(state.failed_step) +
           " failed: " + *analysis + "; promotion is halted until a new revision or a resume";
  }
  std::string apps;
  for (const auto& a : state.failed_apps) apps += (apps.empty() ? "" : ", ") + a;
  std::string budget = "?";
  if (state.failed_step >= 1 && state.failed_step <= static_cast<int>(strategy.steps.size())) {
    if (const auto& mf = strategy.steps[state.failed_step - 1].max_failures)
      budget = MaxUpdateAsWritten(*mf);
  }
  const std::string n = std::to_string(state.failed_apps.size());
  return "ApplicationSet rollout step " + std::to_string(state.failed_step) + " failed: " + n +
         (state.failed_apps.size() == 1 ? " application" : " applications") +
         " failed, more than its maxFailures " + budget + " allows: " + apps +
         "; promotion is halted until a new revision or a resume";
}

std::string RolloutAbortedMessage(const RolloutState& state) {
  std::string by = state.aborted_by.empty() ? "" : " by " + state.aborted_by;
  std::string at = state.aborted_at ? " at " + FormatRfc3339(*state.aborted_at) : "";
  return "ApplicationSet rollout was aborted at step " + std::to_string(state.step) + by + at +
         ": nothing more is promoted or synced and its revision is held until a new revision "
         "or a resume";
}

}  // namespace fleetwave::engine
