#include "engine/rollout_plan.h"

#include <algorithm>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "engine/max_update.h"
#include "engine/rollout_eligibility.h"
#include "engine/rollout_steps.h"
#include "engine/sync_operation.h"

namespace fleetwave::engine {
namespace {

constexpr const char* kPromoted =
    "Application moved to Pending status, watching for the Application resource to start "
    "Progressing";

const Json& EmptyObject() {
  static const Json empty = Json::object();
  return empty;
}

const Json& SpecOf(const GeneratedApplication& app) {
  auto it = app.object.find("spec");
  return it != app.object.end() && it->is_object() ? *it : EmptyObject();
}

bool HasAutomatedEnabled(const Json& spec) {
  auto policy = spec.find("syncPolicy");
  if (policy == spec.end() || !policy->is_object()) return false;
  auto automated = policy->find("automated");
  return automated != policy->end() && automated->is_object() && automated->contains("enabled");
}

// Removes what must not count as a difference, on a copy wrapped as {"spec": ...} so the
// pointers can be written relative to the Application as Argo CD users write them.
Json Normalized(const Json& spec, const std::vector<std::string>& ignore_pointers) {
  Json app = {{"spec", spec}};
  Json& s = app["spec"];
  if (auto policy = s.find("syncPolicy"); policy != s.end() && policy->is_object()) {
    if (auto automated = policy->find("automated");
        automated != policy->end() && automated->is_object()) {
      if (auto enabled = automated->find("enabled");
          enabled != automated->end() && enabled->is_boolean() && !enabled->get<bool>()) {
        automated->erase(enabled);
      }
    }
  }
  for (const auto& text : ignore_pointers) {
    try {
      const Json::json_pointer ptr(text);
      if (ptr.empty() || !app.contains(ptr)) continue;
      Json& parent = app.at(ptr.parent_pointer());
      if (parent.is_object()) {
        parent.erase(ptr.back());
      } else if (parent.is_array()) {
        parent.erase(std::stoul(ptr.back()));
      }
    } catch (const std::exception&) {
      // A malformed pointer ignores nothing; the decoder reports it.
    }
  }
  return app;
}

constexpr size_t kNone = static_cast<size_t>(-1);

// Indices of `items` in name order; cheap when they are sorted already, as stored entries and
// generated apps are.
template <typename T, typename NameFn>
std::vector<size_t> SortedByName(const std::vector<T>& items, NameFn name) {
  std::vector<size_t> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  auto less = [&](size_t a, size_t b) { return name(items[a]) < name(items[b]); };
  if (!std::is_sorted(order.begin(), order.end(), less)) {
    std::sort(order.begin(), order.end(), less);
  }
  return order;
}

// For binary searches over live_order by a name: an index or the name itself.
const std::string& NameOf(const std::vector<Application>& live, size_t i) { return live[i].name; }
const std::string& NameOf(const std::vector<Application>&, const std::string& name) { return name; }

struct AppRow {
  const Application* live = nullptr;
  const GeneratedApplication* desired = nullptr;
  int step = -1;  // 0-based
  AppRolloutStatus entry;
  bool skipped = false;
};

std::vector<AppSetCondition> WithoutRolloutError(std::vector<AppSetCondition> conditions) {
  conditions.erase(std::remove_if(conditions.begin(), conditions.end(),
                                  [](const AppSetCondition& c) {
                                    return c.type == "ErrorOccurred" &&
                                           c.reason == "ApplicationSetRolloutError";
                                  }),
                   conditions.end());
  return conditions;
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
    out.push_back(std::move(g));
  }
  return out;
}

bool SpecDiffers(const Json& desired_spec, const Json& live_spec,
                 const std::vector<std::string>& ignore_pointers) {
  // Equal documents stay equal once the same parts are removed from both, and equality is
  // the common case: compare in place first, copy and normalise only on a difference.
  if (desired_spec == live_spec) return false;
  if (ignore_pointers.empty() && !HasAutomatedEnabled(desired_spec) &&
      !HasAutomatedEnabled(live_spec)) {
    return true;
  }
  return Normalized(desired_spec, ignore_pointers) != Normalized(live_spec, ignore_pointers);
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
  PlanResult r = Plan(appset, stored, desired, live, now);
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

PlanResult Plan(const ApplicationSet& appset, const StoredRolloutStatus& stored,
                const std::vector<GeneratedApplication>& desired,
                const std::vector<Application>& live, Time now_in) {
  PlanResult r;
  const Time now = TruncateToSeconds(now_in);
  const Strategy& strategy = appset.strategy;
  r.other_status = stored.other;
  const std::vector<AppSetCondition>& prev_conditions = stored.conditions;

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
  for (size_t i = 0; i < desired.size(); ++i) {
    const int step = rolling ? assignment.steps[i] : -1;
    r.steps.emplace_hint(r.steps.end(), desired[i].name, step >= 0 ? step + 1 : -1);
  }
  for (const auto& a : live) r.steps.emplace(a.name, -1);

  if (strategy.IsRollingSync() && !rolling) {
    // Zero steps: an error, and nothing is created, updated, deleted or synced for the set.
    r.application_status = stored.application_status;
    r.conditions = MergeConditions(prev_conditions, {NoStepsCondition()},
                                   {"RolloutProgressing", "InvalidRolloutConfig"}, now);
    if (stored.has_rollout) r.rollout = stored.rollout;
    return r;
  }
  if (!rolling) {
    // AllAtOnce: no progressive behaviour, existing entries and rollout conditions cleared.
    r.conditions =
        MergeConditions(WithoutRolloutError(prev_conditions), {ResourcesUpToDateCondition()},
                        {"RolloutProgressing", "InvalidRolloutConfig"}, now);
    return r;
  }

  // Join live apps, desired apps and stored entries by name through sorted index lists: no
  // per-app hashing or string copies, which dominate a reconcile of many thousand apps.
  const std::vector<size_t> live_order =
      SortedByName(live, [](const Application& a) -> const std::string& { return a.name; });
  const std::vector<size_t> desired_order = SortedByName(
      desired, [](const GeneratedApplication& d) -> const std::string& { return d.name; });
  const std::vector<AppRolloutStatus>& prev_entries = stored.application_status;
  const std::vector<size_t> prev_order = SortedByName(
      prev_entries, [](const AppRolloutStatus& e) -> const std::string& { return e.application; });
  RolloutState state = stored.rollout;

  // 1. Every live app's entry, in name order (§3).
  std::vector<AppRow> rows(live.size());
  // Per desired app, its row (or npos: not created yet).
  std::vector<size_t> row_of_desired(desired.size(), kNone);
  bool new_generation = false;
  size_t d = 0, p = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    AppRow& row = rows[i];
    row.live = &live[live_order[i]];
    const Application& app = *row.live;
    while (d < desired_order.size() && desired[desired_order[d]].name < app.name) ++d;
    if (d < desired_order.size() && desired[desired_order[d]].name == app.name) {
      row.desired = &desired[desired_order[d]];
      row.step = assignment.steps[desired_order[d]];
      row_of_desired[desired_order[d]] = i;
    }
    while (p < prev_order.size() && prev_entries[prev_order[p]].application < app.name) ++p;
    const AppRolloutStatus* previous =
        p < prev_order.size() && prev_entries[prev_order[p]].application == app.name
            ? &prev_entries[prev_order[p]]
            : nullptr;
    // Only a synced entry reacts to a spec difference (DetectChange): skip the comparison
    // for the others.
    const bool spec_matters = previous && (previous->status == RolloutAppState::kProgressing ||
                                           previous->status == RolloutAppState::kHealthy);
    const bool spec_differs =
        spec_matters && row.desired &&
        SpecDiffers(SpecOf(*row.desired), app.spec, appset.ignore_application_differences);
    AppStatusUpdate update = UpdateAppRolloutStatus(
        previous, app, spec_differs, std::to_string(row.step >= 0 ? row.step + 1 : -1), now);
    new_generation = new_generation || update.changed;
    row.entry = std::move(update.entry);
    // A skip is an operator's decision about one revision: a new pin clears it.
    if (auto s = state.skipped.find(app.name); s != state.skipped.end()) {
      if (previous && previous->target_revisions != row.entry.target_revisions) {
        state.skipped.erase(s);
      } else {
        row.skipped = true;
        row.entry.message = "Application skipped: " + s->second;
      }
    }
  }
  // Skips of apps that no longer exist go with their entries.
  for (auto it = state.skipped.begin(); it != state.skipped.end();) {
    const bool exists = std::binary_search(
        live_order.begin(), live_order.end(), it->first,
        [&](const auto& a, const auto& b) { return NameOf(live, a) < NameOf(live, b); });
    it = exists ? std::next(it) : state.skipped.erase(it);
  }

  const int step_count = static_cast<int>(strategy.steps.size());
  std::vector<std::vector<size_t>> rows_by_step(step_count);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].step >= 0) rows_by_step[rows[i].step].push_back(i);
  }
  auto eligibility = [&]() {
    std::vector<std::vector<AppGateFacts>> facts(step_count);
    for (int s = 0; s < step_count; ++s) {
      facts[s].reserve(assignment.members[s].size());
      for (size_t di : assignment.members[s]) {
        AppGateFacts f;
        if (const size_t ri = row_of_desired[di]; ri != kNone) {
          const AppRow& row = rows[ri];
          f.exists = true;
          f.entry_healthy = row.entry.status == RolloutAppState::kHealthy;
          f.live_health_ok = LiveHealthAllowsCompletion(row.live->health_status);
          f.skipped = row.skipped;
        }
        facts[s].push_back(f);
      }
    }
    return ComputeEligibility(facts);
  };

  // 2. Promotion within the open steps, in name order, up to each step's budget (§5). A
  // promoted app may move on at once when its live data already says so; if that completes
  // a step, the next one opens in this same reconcile, so planning again changes nothing.
  Eligibility open = eligibility();
  for (int round = 0; !state.paused && round <= step_count; ++round) {
    bool completed_any = false;
    for (int s = 0; s < step_count && open.StepOpen(s); ++s) {
      const auto& in_step = rows_by_step[s];
      const auto budget =
          MaxUpdateLimit(strategy.steps[s].max_update, static_cast<long long>(in_step.size()));
      long long updating = 0;
      for (size_t i : in_step) {
        const auto st = rows[i].entry.status;
        if (st == RolloutAppState::kPending || st == RolloutAppState::kProgressing) ++updating;
      }
      for (size_t i : in_step) {
        AppRow& row = rows[i];
        if (row.entry.status != RolloutAppState::kWaiting || row.skipped) continue;
        if (budget && updating >= *budget) break;
        row.entry.status = RolloutAppState::kPending;
        row.entry.message = kPromoted;
        row.entry.last_transition_time = now;
        ++updating;
        while (AdvanceAppRolloutStatus(row.entry, *row.live, now)) {
        }
        completed_any = completed_any || row.entry.status == RolloutAppState::kHealthy;
      }
    }
    if (!completed_any) break;
    const Eligibility next = eligibility();
    if (next.first_incomplete_step == open.first_incomplete_step) break;
    open = next;
  }

  // 3. What to sync now: Pending entries of open steps, including the ones just promoted.
  // A pause blocks the start of syncs; a skipped app is left alone.
  for (const auto& row : rows) {
    if (state.paused || row.skipped || !open.StepOpen(row.step)) continue;
    if (row.entry.status != RolloutAppState::kPending) continue;
    r.apps_to_sync.push_back(row.live->name);
    const Json& spec = row.desired ? SpecOf(*row.desired) : row.live->spec;
    auto sources = spec.find("sources");
    const bool multi = sources != spec.end() && sources->is_array() && !sources->empty();
    r.operations[row.live->name] = BuildSyncOperation(spec, row.entry.target_revisions, multi);
  }

  // 4. Rollout state and conditions (§7).
  state = AdvanceRolloutState(state, strategy, new_generation, open.CurrentStep(), now);
  if (open.CurrentStep() > 0 && !state.step_deadline_exceeded) {
    r.step_deadline =
        StepDeadline(state, strategy.steps[open.CurrentStep() - 1].progress_deadline_seconds, now);
  }
  RolloutProgress progress{open.CurrentStep(), state.paused, state.step_deadline_exceeded};
  r.conditions =
      MergeConditions(WithoutRolloutError(prev_conditions),
                      {RolloutProgressingCondition(progress),
                       InvalidRolloutConfigCondition(assignment.issues.ConditionMessage()),
                       ResourcesUpToDateCondition()},
                      {}, now);
  r.rollout = std::move(state);
  r.application_status.reserve(rows.size());
  for (auto& row : rows) r.application_status.push_back(std::move(row.entry));
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
  return out;
}

}  // namespace fleetwave::engine
