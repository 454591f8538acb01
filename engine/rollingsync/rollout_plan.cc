#include "engine/rollingsync/rollout_plan.h"

#include <utility>

#include "engine/rollingsync/rollout_phases.h"
#include "engine/rollingsync/rollout_safety.h"
#include "engine/rollingsync/rollout_steps.h"
#include "engine/rollingsync/rollout_windows.h"

namespace fleetwave::engine {
namespace {

// Plan's side of rollout_windows.h: each stepped row's hold, and the held apps of the open step.
void MarkWindowHolds(const WindowClock& windows, JoinedApps& joined) {
  if (!windows.any_windows()) return;
  for (PlanRow& row : joined.rows) {
    if (row.desired != nullptr && row.step >= 0) row.window_hold = windows.HoldOf(*row.desired);
  }
}

WindowHeldApps WindowHeldOf(const JoinedApps& joined, const Eligibility& open) {
  WindowHeldApps held;
  held.step = open.CurrentStep();
  if (open.first_incomplete_step < 0) return held;
  for (size_t i = 0; i < joined.rows.size(); ++i) {
    const PlanRow& row = joined.rows[i];
    const RolloutAppState s = joined.entries[i].status;
    if (row.window_hold.empty() || row.skipped || row.step != open.first_incomplete_step) continue;
    if (s != RolloutAppState::kWaiting && s != RolloutAppState::kPending) continue;
    if (held.count++ == 0) {
      held.first = row.live->name;
      held.reason = row.window_hold;
    }
  }
  return held;
}

}  // namespace

std::vector<GeneratedApplication> DesiredFromLive(const std::vector<Application>& live) {
  std::vector<GeneratedApplication> out;
  out.reserve(live.size());
  for (const auto& a : live) {
    GeneratedApplication g;
    g.name = a.name;
    g.labels = a.labels;
    g.object = {{"metadata", {{"name", a.name}}}, {"spec", a.spec}};
    if (!a.labels.empty()) g.object["metadata"]["labels"] = a.labels;
    g.spec_fingerprint = a.spec_fingerprint;  // the spec is a copy of the live one
    out.push_back(std::move(g));
  }
  return out;
}

StoredRolloutStatus DecodeStoredRolloutStatus(const Json& status, Issues& issues) {
  StoredRolloutStatus out;
  if (!status.is_object()) return out;
  static const Json null_json;
  auto field = [&](const char* key) -> const Json& {
    auto it = status.find(key);
    return it == status.end() ? null_json : *it;
  };
  out.application_status = DecodeAppRolloutStatuses(field("applicationStatus"), issues);
  out.conditions = DecodeAppSetConditions(field("conditions"), issues);
  out.has_rollout = field("rollout").is_object();
  out.rollout = DecodeRolloutState(field("rollout"), issues);
  for (auto it = status.begin(); it != status.end(); ++it) {
    if (it.key() != "applicationStatus" && it.key() != "conditions" && it.key() != "rollout") {
      out.other[it.key()] = it.value();
    }
  }
  return out;
}

PlanResult Plan(const ApplicationSet& appset, const std::vector<GeneratedApplication>& desired,
                const std::vector<Application>& live, Time now) {
  Issues issues;
  StoredRolloutStatus stored = DecodeStoredRolloutStatus(appset.status, issues);
  PlanResult r = Plan(appset, std::move(stored), desired, live, now);
  r.issues.insert(r.issues.begin(), issues.begin(), issues.end());
  return r;
}

Json PlanStatusJson(const PlanResult& r) {
  Json status = r.other_status.is_object() ? r.other_status : Json::object();
  Json entries = Json::array();
  for (const auto& e : r.application_status) entries.push_back(EncodeAppRolloutStatus(e));
  status["applicationStatus"] = std::move(entries);
  Json conditions = Json::array();
  for (const auto& c : r.conditions) conditions.push_back(EncodeAppSetCondition(c));
  status["conditions"] = std::move(conditions);
  if (r.rollout) status["rollout"] = EncodeRolloutState(*r.rollout);
  return status;
}

bool RollingSyncHealsDrift(const ApplicationSet& appset) {
  if (appset.drift_policy == "report") return false;
  if (appset.drift_policy == "heal") return true;
  const Json* spec = appset.template_.is_object() && appset.template_.contains("spec")
                         ? &appset.template_["spec"]
                         : nullptr;
  if (spec == nullptr || !spec->is_object()) return false;
  const auto policy = spec->find("syncPolicy");
  if (policy == spec->end() || !policy->is_object()) return false;
  const auto automated = policy->find("automated");
  if (automated == policy->end() || !automated->is_object()) return false;
  const auto heal = automated->find("selfHeal");
  return heal != automated->end() && heal->is_boolean() && heal->get<bool>();
}

PlanResult Plan(const ApplicationSet& appset, StoredRolloutStatus stored,
                const std::vector<GeneratedApplication>& desired,
                const std::vector<Application>& live, Time now_in, bool observation_complete) {
  PlanResult r;
  const Time now = TruncateToSeconds(now_in);
  const Strategy& strategy = appset.strategy;
  r.other_status = std::move(stored.other);

  if (!strategy.type.empty() && strategy.type != "AllAtOnce" && !strategy.IsRollingSync()) {
    r.planned = false;
    r.issues.push_back(
        {appset.file,
         {},
         "spec.strategy.type",
         "unsupported value \"" + strategy.type + "\" (supported: AllAtOnce, RollingSync)"});
    return r;
  }

  // Steps: only an enabled RollingSync assigns them.
  const bool rolling = strategy.RollingSyncEnabled();
  StepAssignment assignment;
  if (rolling) assignment = AssignSteps(strategy, desired);
  r.steps = StepNumbers(desired, rolling ? &assignment : nullptr, live);

  if (strategy.IsRollingSync() && !rolling) {
    // Zero steps: an error, and nothing is created, updated, deleted or synced for the set.
    r.application_status = std::move(stored.application_status);
    r.conditions = MergeConditions(stored.conditions, {NoStepsCondition()},
                                   {"RolloutProgressing", "InvalidRolloutConfig"}, now);
    if (stored.has_rollout) r.rollout = std::move(stored.rollout);
    return r;
  }
  if (!rolling) {
    // AllAtOnce: no progressive behaviour, existing entries and rollout conditions cleared.
    r.conditions = MergeConditions(WithoutRolloutError(std::move(stored.conditions)),
                                   {ResourcesUpToDateCondition()},
                                   {"RolloutProgressing", "InvalidRolloutConfig"}, now);
    return r;
  }

  RolloutState state = std::move(stored.rollout);
  JoinedApps joined =
      JoinApps(desired, assignment, live, std::move(stored.application_status),
               appset.ignore_application_differences, state.skipped, now,
               DriftHealedNow(RollingSyncHealsDrift(appset), state), strategy.steps, &state);
  r.drifted = std::move(joined.drifted);
  r.healed = std::move(joined.healed);
  const WindowClock windows(appset.projects.get(), now);
  MarkWindowHolds(windows, joined);
  // A halted rollout (a step failed, issue 29) promotes and starts nothing, as a pause.
  const bool halted = HaltedBefore(state, joined.new_generation);
  const Eligibility open = PromoteApps(strategy, assignment, state.paused || halted, joined, now,
                                       StepGates(strategy, state, joined.new_generation, now));
  SyncSelection syncs = SelectSyncs(joined, open, state.paused || halted || open.failed);
  r.apps_to_sync = std::move(syncs.apps);
  r.operations = std::move(syncs.operations);
  const RollbackInputs rollback = JoinedRollbackInputs(joined);
  RolloutOutcome outcome =
      FinishRollout(strategy, std::move(state), stored.conditions, assignment.issues,
                    joined.new_generation, open, now, observation_complete, &rollback);
  if (outcome.rollout.rollback) {
    // A rollback holds the revision: only its own syncs start (a rollout sync selected in the
    // decision that started it never does).
    r.apps_to_sync.clear();
    r.operations.clear();
  }
  r.rollback_syncs = std::move(outcome.rollback_syncs);
  r.rollout = std::move(outcome.rollout);
  r.drifted = WithoutRolledBack(std::move(r.drifted), *r.rollout);
  r.conditions =
      WithSyncWindowCondition(std::move(outcome.conditions), WindowHeldOf(joined, open), now);
  r.window_edge_at = windows.next_edge();
  r.step_deadline = outcome.step_deadline;
  r.soak_ends_at = outcome.soak_ends_at;
  r.analysis_due = std::move(outcome.analysis_due);
  r.application_status = std::move(joined.entries);
  return r;
}

Json PlanOutputJson(const PlanResult& r) {
  Json out = Json::object();
  out["status"] = PlanStatusJson(r);
  out["appsToSync"] = r.apps_to_sync;
  out["steps"] = r.steps;
  Json ops = Json::object();
  for (const auto& [name, op] : r.operations) ops[name] = op;
  out["operations"] = std::move(ops);
  if (!r.rollback_syncs.empty()) {
    Json back = Json::array();
    for (const auto& s : r.rollback_syncs) {
      back.push_back({{"application", s.app}, {"to", s.to}, {"operation", s.operation}});
    }
    out["rollbackSyncs"] = std::move(back);
  }
  return out;
}

}  // namespace fleetwave::engine
