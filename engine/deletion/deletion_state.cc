#include "engine/deletion/deletion_state.h"

#include <algorithm>

#include "engine/appset/generate.h"
#include "engine/deletion/deletion_plan.h"
#include "engine/stored_fields.h"

namespace fleetwave::engine {
namespace {

const Json& Field(const Json& object, const char* key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::optional<Time> TimeAt(const Json& object, const char* key, Issues& issues) {
  const Json& v = Field(object, key);
  if (v.is_string()) {
    if (auto t = ParseRfc3339(v.get_ref<const std::string&>())) return t;
  }
  issues.push_back({"", {}, std::string("deletion.") + key, "not an RFC 3339 time"});
  return std::nullopt;
}

// Only what step assignment reads is kept: the steps' matchExpressions.
Json EncodeStrategy(const Strategy& s) {
  Json steps = Json::array();
  for (const auto& step : s.steps) {
    Json exprs = Json::array();
    for (const auto& e : step.match_expressions) {
      exprs.push_back({{"key", e.key}, {"operator", e.op}, {"values", e.values}});
    }
    steps.push_back({{"matchExpressions", std::move(exprs)}});
  }
  return {{"type", s.type}, {"deletionOrder", s.deletion_order}, {"steps", std::move(steps)}};
}

Strategy DecodeStrategy(const Json& j, Issues& issues) {
  Strategy s;
  const std::string path = "deletion.strategy";
  s.type = stored::String(j, "type", path, issues).value_or("");
  s.deletion_order = stored::String(j, "deletionOrder", path, issues).value_or("");
  const Json* steps = stored::Array(j, "steps", path, issues);
  if (steps == nullptr) return s;
  for (size_t i = 0; i < steps->size(); ++i) {
    const Json& step = (*steps)[i];
    const std::string sp = path + ".steps[" + std::to_string(i) + "]";
    if (!step.is_object()) {
      stored::WrongType(sp, "an object", step, issues);
      continue;
    }
    RolloutStep rs;
    if (const Json* exprs = stored::Array(step, "matchExpressions", sp, issues)) {
      for (size_t k = 0; k < exprs->size(); ++k) {
        const Json& e = (*exprs)[k];
        const std::string ep = sp + ".matchExpressions[" + std::to_string(k) + "]";
        if (!e.is_object()) {
          stored::WrongType(ep, "an object", e, issues);
          continue;
        }
        rs.match_expressions.push_back({stored::String(e, "key", ep, issues).value_or(""),
                                        stored::String(e, "operator", ep, issues).value_or(""),
                                        stored::Strings(e, "values", ep, issues),
                                        {}});
      }
    }
    s.steps.push_back(std::move(rs));
  }
  return s;
}

}  // namespace

const char* DeletionPhaseName(DeletionPhase phase) {
  return phase == DeletionPhase::kDeleting ? "Deleting" : "PendingDeletion";
}

Json EncodeDeletionRecord(const DeletionRecord& r) {
  Json apps = Json::array();
  for (const auto& a : r.apps) {
    Json kinds = Json::array();
    for (const auto& [api, kind] : a.kinds) kinds.push_back(Json::array({api, kind}));
    apps.push_back(
        {{"name", a.name}, {"cluster", a.cluster}, {"labels", a.labels}, {"kinds", kinds}});
  }
  return {{"phase", DeletionPhaseName(r.phase)},
          {"since", FormatRfc3339(r.since)},
          {"due", FormatRfc3339(r.due)},
          {"reason", r.reason},
          {"strategy", EncodeStrategy(r.strategy)},
          {"preserveResources", r.preserve_resources},
          {"apps", std::move(apps)},
          {"gone", Json(std::vector<std::string>(r.gone.begin(), r.gone.end()))},
          {"step", r.step}};
}

std::optional<DeletionRecord> DecodeDeletionRecord(const Json& v, Issues& issues) {
  if (!v.is_object()) {
    issues.push_back({"", {}, "deletion", "must be an object"});
    return std::nullopt;
  }
  const size_t before = issues.size();
  DeletionRecord r;
  const std::string phase = stored::String(v, "phase", "deletion", issues).value_or("");
  if (phase == "Deleting") {
    r.phase = DeletionPhase::kDeleting;
  } else if (phase != "PendingDeletion") {
    issues.push_back({"", {}, "deletion.phase", "unknown phase \"" + phase + "\""});
    return std::nullopt;
  }
  auto since = TimeAt(v, "since", issues);
  auto due = TimeAt(v, "due", issues);
  if (!since || !due) return std::nullopt;
  r.since = *since;
  r.due = *due;
  r.reason = stored::String(v, "reason", "deletion", issues).value_or("");
  if (const Json* strategy = stored::Object(v, "strategy", "deletion", issues)) {
    r.strategy = DecodeStrategy(*strategy, issues);
  }
  r.preserve_resources = stored::Bool(v, "preserveResources", "deletion", issues).value_or(false);
  if (const Json* apps = stored::Array(v, "apps", "deletion", issues)) {
    for (size_t i = 0; i < apps->size(); ++i) {
      const Json& a = (*apps)[i];
      const std::string ap = "deletion.apps[" + std::to_string(i) + "]";
      DeletionApp app;
      app.name = stored::String(a, "name", ap, issues).value_or("");
      if (app.name.empty()) {
        issues.push_back({"", {}, ap + ".name", "an app to delete needs a name"});
        continue;
      }
      app.cluster = stored::String(a, "cluster", ap, issues).value_or("");
      app.labels = stored::StringMap(a, "labels", ap, issues);
      if (const Json* kinds = stored::Array(a, "kinds", ap, issues)) {
        for (size_t k = 0; k < kinds->size(); ++k) {
          const Json& kind = (*kinds)[k];
          if (kind.is_array() && kind.size() == 2 && kind[0].is_string() && kind[1].is_string()) {
            app.kinds.emplace_back(kind[0].get<std::string>(), kind[1].get<std::string>());
          } else {
            issues.push_back({"",
                              {},
                              ap + ".kinds[" + std::to_string(k) + "]",
                              "must be a pair [apiVersion, kind] of strings"});
          }
        }
      }
      r.apps.push_back(std::move(app));
    }
  }
  std::sort(r.apps.begin(), r.apps.end(),
            [](const DeletionApp& a, const DeletionApp& b) { return a.name < b.name; });
  for (const auto& g : stored::Strings(v, "gone", "deletion", issues)) r.gone.insert(g);
  r.step = static_cast<int>(stored::Int(v, "step", "deletion", issues).value_or(0));
  // Strict: a record with a field of the wrong type is not used (its deletion would act on a
  // default: the wrong apps, order or objects).
  if (issues.size() != before) return std::nullopt;
  return r;
}

DisappearanceDecision DecideDisappearance(const DisappearanceInput& in) {
  DisappearanceDecision d;
  if (!in.inputs_trusted) {
    d.held = true;
    return d;
  }
  for (const auto& name : in.known) {
    if (in.present.count(name) == 0 && in.pending.count(name) == 0) d.mark.push_back(name);
  }
  for (const auto& [name, record] : in.pending) {
    if (record.phase != DeletionPhase::kPendingDeletion) {
      if (in.deleting_cancellable && in.present.count(name) > 0) d.cancel.push_back(name);
      continue;
    }
    if (in.present.count(name) > 0) {
      d.cancel.push_back(name);
    } else if (record.due <= in.now) {
      d.start.push_back(name);
    } else if (!d.next_due || record.due < *d.next_due) {
      d.next_due = record.due;
    }
  }
  // Marked now: due one grace period from now (with no grace, at once — but only once the
  // mark itself is stored, in the next round).
  if (!d.mark.empty()) {
    const Time due = in.now + std::max(in.grace, Duration::zero());
    if (!d.next_due || due < *d.next_due) d.next_due = due;
  }
  return d;
}

DeletionRecord MarkPending(Time now, Duration grace, std::string reason) {
  DeletionRecord r;
  r.phase = DeletionPhase::kPendingDeletion;
  r.since = TruncateToSeconds(now);
  r.due = TruncateToSeconds(now + grace);
  if (r.due < now + grace) r.due += std::chrono::seconds(1);  // never early
  r.reason = std::move(reason);
  return r;
}

void ExpediteDeletion(DeletionRecord& record, Time now, const std::string& caller) {
  if (record.phase != DeletionPhase::kPendingDeletion) return;
  if (record.due > now) record.due = now;
  record.reason +=
      (record.reason.empty() ? "" : "; ") + std::string("deletion requested by ") + caller;
}

DeletionRound PlanDeletionRound(const std::string& appset, const DeletionRecord& record,
                                const std::map<std::string, DeletionAppView>& views) {
  DeletionRound round;
  round.record = record;
  DeletionRecord& r = round.record;
  if (r.phase != DeletionPhase::kDeleting) {
    r.phase = DeletionPhase::kDeleting;
    round.changed = true;
  }
  std::vector<GeneratedApplication> apps;
  std::map<std::string, DeletePlan> plans;
  for (const auto& a : r.apps) {
    GeneratedApplication g;
    g.name = a.name;
    g.labels = a.labels;
    g.cluster = a.cluster;
    apps.push_back(std::move(g));
    if (r.gone.count(a.name) > 0) continue;
    auto view = views.find(a.name);
    if (view == views.end() || !view->second.cluster_exists || a.cluster.empty()) {
      // Nothing can reach its objects any more: counted gone, and said so.
      round.orphaned.push_back(a.name);
      continue;
    }
    if (!view->second.observed) continue;
    DeletePlan plan = PlanAppDeletion({appset, a.name}, view->second.live, r.preserve_resources);
    if (plan.delete_now.empty() && plan.unmark.empty()) {
      round.newly_gone.push_back(a.name);
    } else {
      plans[a.name] = std::move(plan);
    }
  }
  for (const auto& name : round.orphaned) r.gone.insert(name);
  for (const auto& name : round.newly_gone) r.gone.insert(name);
  if (!round.orphaned.empty() || !round.newly_gone.empty()) round.changed = true;

  const DeletionPlan plan = PlanDeletion(r.strategy, apps, r.gone);
  round.done = plan.done;
  if (plan.step != r.step) {
    r.step = plan.step;
    round.changed = true;
  }
  for (const auto& name : plan.delete_now) {
    auto p = plans.find(name);
    if (p == plans.end()) {
      round.waiting.push_back(name);
      continue;
    }
    std::string cluster;
    for (const auto& a : r.apps) {
      if (a.name == name) cluster = a.cluster;
    }
    round.commands.push_back({name, cluster, std::move(p->second)});
  }
  return round;
}

Json DeletionStatusJson(const DeletionRecord& r) {
  Json remaining = Json::array();
  for (const auto& a : r.apps) {
    if (r.gone.count(a.name) == 0) remaining.push_back(a.name);
  }
  Json j = {{"phase", DeletionPhaseName(r.phase)},
            {"since", FormatRfc3339(r.since)},
            {"deleteAt", FormatRfc3339(r.due)},
            {"reason", r.reason},
            {"remaining", std::move(remaining)}};
  if (r.phase == DeletionPhase::kDeleting && r.step != 0) j["step"] = r.step;
  return j;
}

}  // namespace fleetwave::engine
