#include "engine/rollingsync/rollback.h"

#include <algorithm>
#include <map>

#include "engine/rollingsync/max_update.h"
#include "engine/sync/sync_operation.h"

namespace fleetwave::engine {
namespace {

// Synced by this rollout: its sync at the pin ran or runs. A Pending app counts once an
// operation started at or after its promotion (a sync selected but not started never ran).
bool SyncedByTheRollout(const AppRolloutStatus& entry, const Application* live) {
  if (entry.status == RolloutAppState::kProgressing || entry.status == RolloutAppState::kHealthy) {
    return true;
  }
  if (entry.status != RolloutAppState::kPending || live == nullptr) return false;
  const auto& op = live->operation_state;
  return op && op->started_at && entry.last_transition_time &&
         *op->started_at >= *entry.last_transition_time;
}

int StepNumber(const std::string& step) {
  try {
    return std::stoi(step);
  } catch (...) {
    return -1;
  }
}

// The app's operation is its sync back: a rollback's (its Reason), at the app's `to`, started
// since the app began Syncing. Times have whole seconds, so the time alone cannot tell the
// sync back from the rollout's own sync that started in the second the rollback did.
bool IsSyncBack(const OperationState& op, const RollbackApp& a) {
  if (!op.started_at || !a.since || *op.started_at < *a.since) return false;
  if (!IsRollbackOperation(op.operation) || !op.operation.has_sync) return false;
  return op.operation.sync_revisions == a.to;
}

bool Finished(RollbackAppPhase phase) {
  return phase == RollbackAppPhase::kRolledBack || phase == RollbackAppPhase::kFailed;
}

}  // namespace

RollbackState StartRollback(const std::vector<RollbackCandidate>& apps, long long generation,
                            const std::string& reason, const std::string& by, int failed_step,
                            const std::string& to, Time now) {
  RollbackState out;
  out.reason = reason;
  out.by = by;
  out.failed_step = failed_step;
  out.to = to;
  out.started_at = TruncateToSeconds(now);
  for (const RollbackCandidate& c : apps) {
    const AppRolloutStatus& e = *c.entry;
    const int step = StepNumber(e.step);
    if (step < 1 || e.pinned_in_generation != generation || !SyncedByTheRollout(e, c.live)) {
      continue;
    }
    std::vector<std::string> back = e.previous_healthy_revisions;
    if (!to.empty()) {
      // One revision names one source: an app of several sources has no single place to go.
      back =
          e.target_revisions.size() > 1 ? std::vector<std::string>{} : std::vector<std::string>{to};
    }
    if (back == e.target_revisions) continue;  // already there
    if (back.empty()) {
      out.kept.push_back(e.application);
      continue;
    }
    RollbackApp a;
    a.app = e.application;
    a.step = step;
    a.from = e.target_revisions;
    a.to = std::move(back);
    a.since = out.started_at;
    out.apps.push_back(std::move(a));
  }
  auto by_name = [](const RollbackApp& a, const RollbackApp& b) { return a.app < b.app; };
  std::sort(out.apps.begin(), out.apps.end(), by_name);
  std::sort(out.kept.begin(), out.kept.end());
  if (out.apps.empty()) out.finished_at = out.started_at;
  return out;
}

std::vector<RollbackSync> StepRollback(
    RollbackState& rollback, const Strategy& strategy,
    const std::function<const Application*(const std::string&)>& live_of, bool hold_new_syncs,
    Time now_in) {
  const Time now = TruncateToSeconds(now_in);
  std::vector<RollbackSync> listed;
  if (rollback.finished_at) return listed;

  // The syncs under way: done when they succeeded and the app is Healthy again.
  for (RollbackApp& a : rollback.apps) {
    if (a.phase != RollbackAppPhase::kSyncing) continue;
    const Application* live = live_of(a.app);
    if (live == nullptr) {
      a.phase = RollbackAppPhase::kFailed;
      a.since = now;
      a.message = "the Application is gone";
      continue;
    }
    const auto& op = live->operation_state;
    if (!op || !IsSyncBack(*op, a)) continue;
    if (op->phase == "Succeeded" && live->health_status == "Healthy") {
      a.phase = RollbackAppPhase::kRolledBack;
      a.since = now;
    } else if (op->phase == "Failed" || op->phase == "Error") {
      a.phase = RollbackAppPhase::kFailed;
      a.since = now;
      a.message = "its sync back to " + JoinRevisions(a.to) + " ended " + op->phase;
    }
  }

  // The step being rolled back: the last one with an app left.
  int step = 0;
  for (const RollbackApp& a : rollback.apps) {
    if (!Finished(a.phase)) step = std::max(step, a.step);
  }
  if (step == 0) {
    rollback.finished_at = now;
    return listed;
  }
  std::vector<RollbackApp*> group;
  long long syncing = 0;
  for (RollbackApp& a : rollback.apps) {
    if (a.step != step) continue;
    group.push_back(&a);
    if (a.phase == RollbackAppPhase::kSyncing) ++syncing;
  }
  const RolloutStep* spec = step <= static_cast<int>(strategy.steps.size())
                                ? &strategy.steps[static_cast<size_t>(step - 1)]
                                : nullptr;
  std::optional<long long> limit =
      MaxUpdateLimit(spec ? spec->max_update : std::nullopt, static_cast<long long>(group.size()));
  if (limit && *limit < 1) limit = 1;
  for (RollbackApp* a : group) {
    if (hold_new_syncs || a->phase != RollbackAppPhase::kWaiting) continue;
    if (limit && syncing >= *limit) break;
    const Application* live = live_of(a->app);
    if (live == nullptr) {
      a->phase = RollbackAppPhase::kFailed;
      a->since = now;
      a->message = "the Application is gone";
      continue;
    }
    // A sync still running at the failed revision finishes first: one operation at a time.
    if (live->operation_state && (live->operation_state->phase == "Running" ||
                                  live->operation_state->phase == "Terminating")) {
      continue;
    }
    a->phase = RollbackAppPhase::kSyncing;
    a->since = now;
    ++syncing;
  }
  for (RollbackApp* a : group) {
    if (a->phase != RollbackAppPhase::kSyncing) continue;
    const Application* live = live_of(a->app);
    if (live == nullptr) continue;
    const auto& op = live->operation_state;
    if (op && IsSyncBack(*op, *a)) continue;  // started
    SyncTrigger trigger;
    trigger.username = rollback.by.empty() ? "fleetwave-rollback" : rollback.by;
    trigger.automated = rollback.by.empty();
    trigger.reason = kRollbackReasonPrefix + rollback.reason + ") from " + JoinRevisions(a->from) +
                     " to " + JoinRevisions(a->to) + ", step " + std::to_string(a->step);
    listed.push_back(
        {a->app, a->to, *a->since,
         BuildSyncOperation(live->spec, a->to, IsMultiSourceSpec(live->spec), trigger)});
  }
  return listed;
}

std::vector<RollbackSync> RollbackPhase(
    RolloutState& state, int stored_failed_step, const Strategy& strategy,
    const std::function<std::vector<RollbackCandidate>()>& candidates,
    const std::function<const Application*(const std::string&)>& live_of, Time now) {
  if (state.rollback_requested) {
    const RollbackRequest request = *state.rollback_requested;
    state.rollback_requested.reset();
    state.rollback = StartRollback(candidates(), state.generation, kRollbackOperator, request.by,
                                   state.failed_step, request.to, now);
  } else if (!state.rollback && state.failed_step != 0 && stored_failed_step == 0 &&
             state.failed_step <= static_cast<int>(strategy.steps.size()) &&
             strategy.steps[static_cast<size_t>(state.failed_step - 1)].on_failure ==
                 RolloutStep::OnFailure::kRollback) {
    state.rollback = StartRollback(candidates(), state.generation, kRollbackStepFailed, "",
                                   state.failed_step, "", now);
  }
  if (!state.rollback) return {};
  return StepRollback(*state.rollback, strategy, live_of, state.paused || state.aborted, now);
}

bool RolledBack(const RolloutState& stored, const std::string& app) {
  if (!stored.rollback) return false;
  const auto& apps = stored.rollback->apps;
  auto it =
      std::lower_bound(apps.begin(), apps.end(), app,
                       [](const RollbackApp& a, const std::string& name) { return a.app < name; });
  return it != apps.end() && it->app == app;
}

bool IsRollbackOperation(const OperationSummary& operation) {
  for (const std::string& value : operation.info_values) {
    if (value.rfind(kRollbackReasonPrefix, 0) == 0) return true;
  }
  return false;
}

bool IsRollbackOperation(const Json& operation) {
  return IsRollbackOperation(OperationSummary(operation));
}

std::vector<std::string> WithoutRolledBack(std::vector<std::string> drifted,
                                           const RolloutState& state) {
  if (!state.rollback) return drifted;
  drifted.erase(std::remove_if(drifted.begin(), drifted.end(),
                               [&](const std::string& app) { return RolledBack(state, app); }),
                drifted.end());
  return drifted;
}

Issues RollbackNeverActsWarnings(const ApplicationSet& set) {
  Issues out;
  for (size_t i = 0; i < set.strategy.steps.size(); ++i) {
    const RolloutStep& step = set.strategy.steps[i];
    if (step.on_failure != RolloutStep::OnFailure::kRollback || step.max_failures ||
        step.analysis) {
      continue;
    }
    out.push_back({set.file, step.pos,
                   "spec.strategy.rollingSync.steps[" + std::to_string(i) + "].onFailure",
                   "Rollback never acts: the step has neither maxFailures nor analysis, so it "
                   "never fails (a failed app holds it instead)"});
  }
  return out;
}

std::string RollbackMessage(const RollbackState& rb) {
  std::map<RollbackAppPhase, std::vector<std::string>> by_phase;
  for (const auto& a : rb.apps) by_phase[a.phase].push_back(a.app);
  auto list = [](const std::vector<std::string>& names) {
    std::string out;
    const size_t shown = std::min<size_t>(names.size(), 5);
    for (size_t i = 0; i < shown; ++i) out += (i ? ", " : "") + names[i];
    if (names.size() > shown) out += " and " + std::to_string(names.size() - shown) + " more";
    return out;
  };
  std::string out = rb.finished_at ? "rolled back" : "rolling back";
  out += rb.by.empty() ? "" : " by " + rb.by;
  out += rb.to.empty() ? " to each app's last healthy revisions" : " to revision " + rb.to;
  out += ", last step first: " + std::to_string(by_phase[RollbackAppPhase::kRolledBack].size()) +
         " of " + std::to_string(rb.apps.size()) + " apps returned";
  if (const auto& s = by_phase[RollbackAppPhase::kSyncing]; !s.empty()) {
    out += "; syncing back: " + list(s);
  }
  if (const auto& f = by_phase[RollbackAppPhase::kFailed]; !f.empty()) {
    out += "; failed: " + list(f);
  }
  if (!rb.kept.empty()) out += "; nothing to return to (kept): " + list(rb.kept);
  out += ". The revision is held until a new commit.";
  return out;
}

}  // namespace fleetwave::engine
