#include "engine/rollingsync/rollout_state.h"

#include <algorithm>

#include "engine/stored_fields.h"

namespace fleetwave::engine {
namespace {

using std::chrono::duration_cast;
using std::chrono::seconds;

std::optional<Time> TimeAt(const Json& object, const char* key, Issues& issues) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) {
    if (auto t = ParseRfc3339(it->get_ref<const std::string&>())) return t;
  }
  issues.push_back({"", {}, std::string("status.rollout.") + key, "not an RFC 3339 time"});
  return std::nullopt;
}

long long IntAt(const Json& object, const char* key, Issues& issues) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return 0;
  if (it->is_number_integer()) return it->get<long long>();
  stored::WrongType(std::string("status.rollout.") + key, "an integer", *it, issues);
  return 0;
}

bool BoolAt(const Json& object, const char* key, Issues& issues) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return false;
  if (it->is_boolean()) return it->get<bool>();
  stored::WrongType(std::string("status.rollout.") + key, "a boolean", *it, issues);
  return false;
}

}  // namespace

RolloutState DecodeRolloutState(const Json& r, Issues& issues) {
  RolloutState s;
  if (r.is_null()) return s;
  if (!r.is_object()) {
    issues.push_back({"", {}, "status.rollout", "must be an object"});
    return s;
  }
  s.generation = IntAt(r, "generation", issues);
  s.step = static_cast<int>(IntAt(r, "step", issues));
  s.step_started_at = TimeAt(r, "stepStartedAt", issues);
  s.paused = BoolAt(r, "paused", issues);
  s.paused_at = TimeAt(r, "pausedAt", issues);
  s.paused_seconds = IntAt(r, "pausedSeconds", issues);
  s.step_deadline_exceeded = BoolAt(r, "stepDeadlineExceeded", issues);
  s.failed_step = static_cast<int>(IntAt(r, "failedStep", issues));
  if (auto it = r.find("failedApps"); it != r.end() && !it->is_null()) {
    if (!it->is_array()) {
      stored::WrongType("status.rollout.failedApps", "a list of app names", *it, issues);
    } else {
      for (size_t i = 0; i < it->size(); ++i) {
        if (!(*it)[i].is_string()) {
          stored::WrongType("status.rollout.failedApps[" + std::to_string(i) + "]",
                            "a string (an app name)", (*it)[i], issues);
          continue;
        }
        s.failed_apps.push_back((*it)[i].get<std::string>());
      }
    }
  }
  s.soak_step = static_cast<int>(IntAt(r, "soakStep", issues));
  s.soak_started_at = TimeAt(r, "soakStartedAt", issues);
  s.aborted = BoolAt(r, "aborted", issues);
  s.aborted_at = TimeAt(r, "abortedAt", issues);
  s.aborted_by = stored::String(r, "abortedBy", "status.rollout", issues).value_or("");
  if (auto it = r.find("rollbackRequested"); it != r.end() && !it->is_null()) {
    s.rollback_requested = DecodeRollbackRequest(*it, "status.rollout.rollbackRequested", issues);
  }
  if (auto it = r.find("rollback"); it != r.end() && !it->is_null()) {
    s.rollback = DecodeRollbackState(*it, "status.rollout.rollback", issues);
  }
  if (auto it = r.find("analysis"); it != r.end() && !it->is_null()) {
    s.analysis = DecodeStepAnalysisRecord(*it, issues);
  }
  if (auto it = r.find("skipped"); it != r.end() && !it->is_null()) {
    if (!it->is_object()) {
      stored::WrongType("status.rollout.skipped", "an object of app names to reasons", *it, issues);
    } else {
      for (auto e = it->begin(); e != it->end(); ++e) {
        if (!e.value().is_string()) {
          stored::WrongType("status.rollout.skipped." + e.key(), "a string (the reason)", e.value(),
                            issues);
          continue;
        }
        s.skipped[e.key()] = e.value().get<std::string>();
      }
    }
  }
  return s;
}

Json EncodeRolloutState(const RolloutState& s) {
  Json j = Json::object();
  if (s.generation) j["generation"] = s.generation;
  if (s.step) j["step"] = s.step;
  if (s.step_started_at) j["stepStartedAt"] = FormatRfc3339(*s.step_started_at);
  if (s.paused) j["paused"] = true;
  if (s.paused_at) j["pausedAt"] = FormatRfc3339(*s.paused_at);
  if (s.paused_seconds) j["pausedSeconds"] = s.paused_seconds;
  if (s.step_deadline_exceeded) j["stepDeadlineExceeded"] = true;
  if (!s.skipped.empty()) j["skipped"] = s.skipped;
  if (s.failed_step) j["failedStep"] = s.failed_step;
  if (!s.failed_apps.empty()) j["failedApps"] = s.failed_apps;
  if (s.soak_step) j["soakStep"] = s.soak_step;
  if (s.soak_started_at) j["soakStartedAt"] = FormatRfc3339(*s.soak_started_at);
  if (s.aborted) j["aborted"] = true;
  if (s.aborted_at) j["abortedAt"] = FormatRfc3339(*s.aborted_at);
  if (!s.aborted_by.empty()) j["abortedBy"] = s.aborted_by;
  if (s.analysis) j["analysis"] = EncodeStepAnalysisRecord(*s.analysis);
  if (s.rollback_requested) j["rollbackRequested"] = EncodeRollbackRequest(*s.rollback_requested);
  if (s.rollback) j["rollback"] = EncodeRollbackState(*s.rollback);
  return j;
}

void PauseRollout(RolloutState& state, Time now) {
  if (state.paused) return;
  state.paused = true;
  state.paused_at = TruncateToSeconds(now);
}

void ResumeRollout(RolloutState& state, Time now) {
  // The operator acknowledged the failure: the step is judged again by the next decision
  // rather than held until a new commit (rollout_state.h says what that decides).
  if (state.failed_step != 0) state.analysis.reset();  // a failed analysis runs again
  state.failed_step = 0;
  state.failed_apps.clear();
  // An abort held the revision; the operator now wants it rolled out after all.
  state.aborted = false;
  state.aborted_at.reset();
  state.aborted_by.clear();
  if (!state.paused) return;
  state.paused_seconds = PausedSecondsInStep(state, now);
  state.paused = false;
  state.paused_at.reset();
}

void AbortRollout(RolloutState& state, Time now, const std::string& caller) {
  if (state.aborted) return;
  state.aborted = true;
  state.aborted_at = TruncateToSeconds(now);
  state.aborted_by = caller;
}

bool RecordAnalysisMeasurement(RolloutState& state, const AnalysisRequest& request,
                               const AnalysisMeasurement& measurement) {
  if (state.generation != request.generation || state.step != request.step ||
      state.failed_step != 0 || state.aborted) {
    return false;
  }
  if (!state.analysis || state.analysis->step != request.step) {
    state.analysis = StepAnalysisRecord{request.step, {}};
  }
  auto& list = state.analysis->measurements;
  auto at = std::upper_bound(list.begin(), list.end(), measurement.at,
                             [](Time t, const AnalysisMeasurement& m) { return t < m.at; });
  list.insert(at, measurement);
  return true;
}

void SkipApplication(RolloutState& state, const std::string& app, const std::string& reason) {
  state.skipped[app] = reason;
}

long long PausedSecondsInStep(const RolloutState& state, Time now) {
  long long total = state.paused_seconds;
  if (state.paused && state.paused_at) {
    // A pause that began before this step counts only from the step's start.
    Time from = *state.paused_at;
    if (state.step_started_at && *state.step_started_at > from) from = *state.step_started_at;
    if (now > from) total += duration_cast<seconds>(now - from).count();
  }
  return total;
}

std::optional<Time> StepDeadline(const RolloutState& state, const std::optional<long long>& secs,
                                 Time now) {
  if (!secs || !state.step_started_at || state.paused) return std::nullopt;
  return *state.step_started_at + seconds(*secs + PausedSecondsInStep(state, now));
}

void RequestRollback(RolloutState& state, Time now, const std::string& caller,
                     const std::string& to) {
  state.rollback_requested = RollbackRequest{caller, to, TruncateToSeconds(now)};
}

bool RollbackInProgress(const RolloutState& state) {
  if (state.rollback_requested) return true;
  return state.rollback && !state.rollback->finished_at;
}

RolloutState AdvanceRolloutState(const RolloutState& previous, const Strategy& strategy,
                                 bool new_generation, int current_step, Time now) {
  RolloutState s = previous;
  if (s.generation == 0 || new_generation) ++s.generation;
  if (new_generation) {
    // A new revision (or spec) is a new rollout: the halt, the soak and an abort were the old
    // one's.
    s.failed_step = 0;
    s.failed_apps.clear();
    s.soak_step = 0;
    s.soak_started_at.reset();
    // The abort held the old revision; the next commit rolls out again.
    s.aborted = false;
    s.aborted_at.reset();
    s.aborted_by.clear();
    // A rollback returned the old generation's apps; the next commit is a rollout again.
    s.rollback.reset();
    s.rollback_requested.reset();
  }
  // Measurements belong to one step of one rollout.
  if (s.analysis && (new_generation || s.analysis->step != current_step)) s.analysis.reset();
  const bool restart = new_generation || s.step != current_step || !s.step_started_at;
  if (restart) {
    s.step = current_step;
    s.step_started_at = now;
    s.step_deadline_exceeded = false;
    // Completed pauses belonged to the previous step; a running pause keeps running and
    // counts from the new step's start (PausedSecondsInStep).
    s.paused_seconds = 0;
  }
  if (current_step == 0) {
    s.step_deadline_exceeded = false;
    return s;
  }
  const auto& step = strategy.steps[current_step - 1];
  if (step.progress_deadline_seconds && !s.step_deadline_exceeded) {
    const long long elapsed =
        duration_cast<seconds>(now - *s.step_started_at).count() - PausedSecondsInStep(s, now);
    s.step_deadline_exceeded = elapsed >= *step.progress_deadline_seconds;
  }
  return s;
}

}  // namespace fleetwave::engine
