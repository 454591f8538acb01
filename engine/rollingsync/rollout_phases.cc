#include "engine/rollingsync/rollout_phases.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "engine/rollingsync/max_failures.h"
#include "engine/rollingsync/max_update.h"
#include "engine/rollingsync/rollout_safety.h"
#include "engine/rollingsync/rollout_spec_diff.h"
#include "engine/sync/sync_operation.h"

namespace fleetwave::engine {
namespace {

constexpr const char* kPromoted =
    "Application moved to Pending status, watching for the Application resource to start "
    "Progressing";

// Indices of `items` in name order (of equal names, input order); cheap when they are sorted
// already, as stored entries and generated apps are.
template <typename T, typename NameFn>
std::vector<size_t> SortedByName(const std::vector<T>& items, NameFn name) {
  std::vector<size_t> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  auto less = [&](size_t a, size_t b) { return name(items[a]) < name(items[b]); };
  if (!std::is_sorted(order.begin(), order.end(), less)) {
    std::stable_sort(order.begin(), order.end(), less);
  }
  return order;
}

const std::string& LiveName(const Application& a) { return a.name; }
const std::string& DesiredName(const GeneratedApplication& d) { return d.name; }

bool Updating(RolloutAppState s) {
  return s == RolloutAppState::kPending || s == RolloutAppState::kProgressing;
}

}  // namespace

std::vector<AppSetCondition> WithoutRolloutError(std::vector<AppSetCondition> conditions) {
  conditions.erase(std::remove_if(conditions.begin(), conditions.end(),
                                  [](const AppSetCondition& c) {
                                    return c.type == "ErrorOccurred" &&
                                           c.reason == "ApplicationSetRolloutError";
                                  }),
                   conditions.end());
  return conditions;
}

std::map<std::string, int> StepNumbers(const std::vector<GeneratedApplication>& desired,
                                       const StepAssignment* assignment,
                                       const std::vector<Application>& live) {
  const std::vector<size_t> d_order = SortedByName(desired, DesiredName);
  const std::vector<size_t> l_order = SortedByName(live, LiveName);
  std::map<std::string, int> out;
  // Appends in name order; a name already present (the same app desired and live, or a
  // duplicate) changes nothing. Checking the last key first keeps every insertion O(1): a
  // map's emplace_hint would search the whole tree for a key equal to the last one.
  auto append = [&](const std::string& name, int step) {
    if (!out.empty() && !(out.rbegin()->first < name)) return;
    out.emplace_hint(out.end(), name, step);
  };
  size_t d = 0, l = 0;
  while (d < d_order.size() || l < l_order.size()) {
    const bool take_desired =
        d < d_order.size() &&
        (l == l_order.size() || !(live[l_order[l]].name < desired[d_order[d]].name));
    if (take_desired) {
      const size_t i = d_order[d++];
      const int step = assignment ? assignment->steps[i] : -1;
      append(desired[i].name, step >= 0 ? step + 1 : -1);
    } else {
      append(live[l_order[l++]].name, -1);
    }
  }
  return out;
}

JoinedApps JoinApps(const std::vector<GeneratedApplication>& desired,
                    const StepAssignment& assignment, const std::vector<Application>& live,
                    std::vector<AppRolloutStatus> previous,
                    const std::vector<std::string>& ignore_application_differences,
                    std::map<std::string, std::string>& skipped, Time now, bool heal_drift,
                    const std::vector<RolloutStep>& steps, const RolloutState* stored_state) {
  // Join by name through sorted lists: no per-app hashing or string copies, which dominate a
  // reconcile of many thousand apps. Of two stored entries for one app the first counts.
  const std::vector<size_t> live_order = SortedByName(live, LiveName);
  const std::vector<size_t> desired_order = SortedByName(desired, DesiredName);
  auto by_application = [](const AppRolloutStatus& a, const AppRolloutStatus& b) {
    return a.application < b.application;
  };
  if (!std::is_sorted(previous.begin(), previous.end(), by_application)) {
    std::stable_sort(previous.begin(), previous.end(), by_application);
  }

  JoinedApps out;
  out.rows.resize(live.size());
  out.entries.reserve(live.size());
  out.row_of_desired.assign(desired.size(), JoinedApps::kNoRow);
  size_t d = 0, p = 0;
  for (size_t i = 0; i < out.rows.size(); ++i) {
    PlanRow& row = out.rows[i];
    row.live = &live[live_order[i]];
    const Application& app = *row.live;
    while (d < desired_order.size() && desired[desired_order[d]].name < app.name) ++d;
    if (d < desired_order.size() && desired[desired_order[d]].name == app.name) {
      row.desired = &desired[desired_order[d]];
      row.step = assignment.steps[desired_order[d]];
      out.row_of_desired[desired_order[d]] = i;
    }
    while (p < previous.size() && previous[p].application < app.name) ++p;
    std::optional<AppRolloutStatus> stored;
    if (p < previous.size() && previous[p].application == app.name) {
      stored = std::move(previous[p++]);
    }
    // Only a synced entry reacts to a spec difference (DetectChange): skip the comparison
    // for the others.
    const bool spec_matters = stored && (stored->status == RolloutAppState::kProgressing ||
                                         stored->status == RolloutAppState::kHealthy);
    const bool spec_differs = spec_matters && row.desired &&
                              AppSpecDiffers(*row.desired, app, ignore_application_differences);
    // UpdateAppRolloutStatus stores the live revisions exactly when they differ from the pin.
    const bool new_pin = stored && stored->target_revisions != app.revisions;
    AppStatusUpdate update = UpdateAppRolloutStatus(
        std::move(stored), app, spec_differs, std::to_string(row.step >= 0 ? row.step + 1 : -1),
        now, heal_drift && row.desired != nullptr,
        stored_state
            ? RevisionMemory{stored_state->generation + 1, RolledBack(*stored_state, app.name)}
            : RevisionMemory{});
    out.new_generation = out.new_generation || update.changed;
    if (update.healed) {
      out.healed.push_back(app.name);
    } else if (update.drifted) {
      out.drifted.push_back(app.name);
    }
    AppRolloutStatus& entry = out.entries.emplace_back(std::move(update.entry));
    MarkFailedApp(entry, app, skipped.count(app.name) > 0 && !new_pin,
                  row.desired && row.step >= 0 && row.step < static_cast<int>(steps.size())
                      ? &steps[row.step]
                      : nullptr);
    if (skipped.empty()) continue;
    if (auto s = skipped.find(app.name); s != skipped.end()) {
      if (new_pin) {
        skipped.erase(s);
      } else {
        row.skipped = true;
        entry.message = "Application skipped: " + s->second;
      }
    }
  }
  // Skips of apps that no longer exist go with their entries.
  for (auto it = skipped.begin(); it != skipped.end();) {
    auto at = std::lower_bound(
        live_order.begin(), live_order.end(), it->first,
        [&](size_t index, const std::string& name) { return live[index].name < name; });
    const bool exists = at != live_order.end() && live[*at].name == it->first;
    it = exists ? std::next(it) : skipped.erase(it);
  }
  return out;
}

Eligibility OpenSteps(const StepAssignment& assignment, const JoinedApps& joined,
                      const std::vector<StepGate>& gates) {
  std::vector<std::vector<AppGateFacts>> facts(assignment.members.size());
  for (size_t s = 0; s < facts.size(); ++s) {
    facts[s].reserve(assignment.members[s].size());
    for (size_t di : assignment.members[s]) {
      AppGateFacts f;
      if (const size_t ri = joined.row_of_desired[di]; ri != JoinedApps::kNoRow) {
        const PlanRow& row = joined.rows[ri];
        f.exists = true;
        f.entry_healthy = joined.entries[ri].status == RolloutAppState::kHealthy;
        f.live_health_ok = LiveHealthAllowsCompletion(row.live->health_status);
        f.skipped = row.skipped;
        f.failed = !row.skipped && !FailureOf(joined.entries[ri], *row.live).empty();
        f.name = &row.live->name;
      }
      facts[s].push_back(f);
    }
  }
  return ComputeEligibility(facts, gates);
}

Eligibility PromoteApps(const Strategy& strategy, const StepAssignment& assignment, bool paused,
                        JoinedApps& joined, Time now, const std::vector<StepGate>& gates) {
  const std::vector<PlanRow>& rows = joined.rows;
  const int step_count = static_cast<int>(strategy.steps.size());
  std::vector<std::vector<size_t>> rows_by_step(step_count);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].step >= 0 && rows[i].step < step_count) rows_by_step[rows[i].step].push_back(i);
  }
  Eligibility open = OpenSteps(assignment, joined, gates);
  bool promoted_any = false;
  for (int round = 0; !paused && round <= step_count; ++round) {
    bool completed_any = false;
    for (int s = 0; s < step_count && open.StepOpen(s); ++s) {
      if (open.failed && s == open.first_incomplete_step) break;  // a failed step halts
      const auto& in_step = rows_by_step[s];
      const auto budget =
          MaxUpdateLimit(strategy.steps[s].max_update, static_cast<long long>(in_step.size()));
      long long updating = 0;
      for (size_t i : in_step) {
        if (Updating(joined.entries[i].status)) ++updating;
      }
      for (size_t i : in_step) {
        const PlanRow& row = rows[i];
        AppRolloutStatus& entry = joined.entries[i];
        if (entry.status != RolloutAppState::kWaiting || row.skipped) continue;
        if (!row.window_hold.empty()) continue;  // a sync window holds it (issue 29)
        if (budget && updating >= *budget) break;
        PromoteEntry(entry, *row.live, now);
        MarkFailedApp(entry, *row.live, false, &strategy.steps[s]);
        ++updating;
        promoted_any = true;
        completed_any = completed_any || entry.status == RolloutAppState::kHealthy;
      }
    }
    if (!completed_any) break;
    const Eligibility next = OpenSteps(assignment, joined, gates);
    if (next.first_incomplete_step == open.first_incomplete_step) break;
    open = next;
  }
  // A promoted app can fail at once (its sync already ran and it is Degraded): the steps are
  // judged after the promotions, so that planning again changes nothing (the tracker's
  // FirstHold after Promote does the same).
  return promoted_any ? OpenSteps(assignment, joined, gates) : open;
}

void PromoteEntry(AppRolloutStatus& entry, const Application& live, Time now) {
  entry.status = RolloutAppState::kPending;
  entry.message = kPromoted;
  entry.last_transition_time = now;
  while (AdvanceAppRolloutStatus(entry, live, now)) {
  }
}

Json RolloutSyncOperation(const Json& spec, const std::vector<std::string>& pinned) {
  return BuildSyncOperation(spec, pinned, IsMultiSourceSpec(spec));
}

RollbackInputs JoinedRollbackInputs(const JoinedApps& joined) {
  RollbackInputs in;
  in.candidates = [&joined] {
    std::vector<RollbackCandidate> out;
    out.reserve(joined.rows.size());
    for (size_t i = 0; i < joined.rows.size(); ++i) {
      out.push_back({&joined.entries[i], joined.rows[i].live});
    }
    return out;
  };
  in.live_of = [&joined](const std::string& app) -> const Application* {
    auto it = std::lower_bound(
        joined.rows.begin(), joined.rows.end(), app,
        [](const PlanRow& row, const std::string& name) { return row.live->name < name; });
    return it != joined.rows.end() && it->live->name == app ? it->live : nullptr;
  };
  return in;
}

SyncSelection SelectSyncs(const JoinedApps& joined, const Eligibility& open, bool paused) {
  SyncSelection out;
  if (paused) return out;  // a pause blocks the start of syncs
  for (size_t i = 0; i < joined.rows.size(); ++i) {
    const PlanRow& row = joined.rows[i];
    const AppRolloutStatus& entry = joined.entries[i];
    if (row.skipped || !open.StepOpen(row.step)) continue;
    if (entry.status != RolloutAppState::kPending || !row.window_hold.empty()) continue;
    out.apps.push_back(row.live->name);
    const Json& spec = row.desired ? DesiredSpecOf(*row.desired) : row.live->spec;
    out.operations.emplace_hint(out.operations.end(), row.live->name,
                                RolloutSyncOperation(spec, entry.target_revisions));
  }
  return out;
}

RolloutOutcome FinishRollout(const Strategy& strategy, RolloutState state,
                             const std::vector<AppSetCondition>& previous_conditions,
                             const RolloutConfigIssues& config_issues, bool new_generation,
                             const Eligibility& open, Time now, bool observation_complete,
                             const RollbackInputs* rollback) {
  RolloutOutcome out;
  const int stored_failed_step = state.failed_step;
  int current = open.CurrentStep();
  // Unobserved apps only ever make a step look less complete: hold the stored step rather than
  // go back to an earlier one (0 = complete ranks after every step). Pinned by
  // RolloutPlanObservation tests in rollout_plan_test.cc.
  auto rank = [](int step) { return step == 0 ? std::numeric_limits<int>::max() : step; };
  if (!observation_complete && !new_generation && state.generation > 0 &&
      state.step <= static_cast<int>(strategy.steps.size()) && rank(current) < rank(state.step)) {
    current = state.step;
  }
  out.rollout = AdvanceRolloutState(state, strategy, new_generation, current, now);
  if (current > 0 && current <= static_cast<int>(strategy.steps.size()) &&
      !out.rollout.step_deadline_exceeded) {
    out.step_deadline =
        StepDeadline(out.rollout, strategy.steps[current - 1].progress_deadline_seconds, now);
  }
  out.soak_ends_at = UpdateSafetyState(strategy, out.rollout, open, observation_complete, now);
  out.analysis_due = AnalysisDue(strategy, out.rollout, open, now);
  if (rollback != nullptr) {
    out.rollback_syncs = RollbackPhase(out.rollout, stored_failed_step, strategy,
                                       rollback->candidates, rollback->live_of, now);
  }
  RolloutProgress progress;
  progress.current_step = current;
  progress.paused = out.rollout.paused;
  progress.deadline_exceeded = out.rollout.step_deadline_exceeded;
  if (out.rollout.failed_step != 0) {
    progress.failed_step = out.rollout.failed_step;
    progress.failed_message = RolloutFailedMessage(strategy, out.rollout);
  }
  if (out.rollout.rollback) {
    progress.rolled_back = true;
    progress.rollback_message = RollbackMessage(*out.rollout.rollback);
  }
  if (out.rollout.aborted) {
    progress.aborted = true;
    progress.aborted_message = RolloutAbortedMessage(out.rollout);
  }
  out.conditions = MergeConditions(WithoutRolloutError(previous_conditions),
                                   {RolloutProgressingCondition(progress),
                                    InvalidRolloutConfigCondition(config_issues.ConditionMessage()),
                                    ResourcesUpToDateCondition()},
                                   {}, now);
  return out;
}

}  // namespace fleetwave::engine
