#include "engine/deletion_state.h"

#include <algorithm>

#include "engine/deletion_plan.h"
#include "engine/generate.h"

namespace fleetwave::engine {
namespace {

const Json& Field(const Json& object, const char* key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::string StringAt(const Json& object, const char* key) {
  const Json& v = Field(object, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

std::optional<Time> TimeAt(const Json& object, const char* key, Issues& issues) {
  const Json& v = Field(object, key);
  if (v.is_string()) {
    if (auto t = ParseRfc3339(v.get_ref<const std::string&>())) return t;
  }
  issues.push_back({"", {}, std::string("deletion.") + key, "not an RFC 3339 time"});
  return std::nullopt;
}

std::map<std::string, std::string> StringMap(const Json& v) {
  std::map<std::string, std::string> out;
  if (!v.is_object()) return out;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (it.value().is_string()) out[it.key()] = it.value().get<std::string>();
  }
  return out;
}

std::vector<std::string> Strings(const Json& v) {
  std::vector<std::string> out;
  if (!v.is_array()) return out;
  for (const auto& s : v) {
    if (s.is_string()) out.push_back(s.get<std::string>());
  }
  return out;
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

Strategy DecodeStrategy(const Json& j) {
  Strategy s;
  s.type = StringAt(j, "type");
  s.deletion_order = StringAt(j, "deletionOrder");
  const Json& steps = Field(j, "steps");
  if (!steps.is_array()) return s;
  for (const auto& step : steps) {
    RolloutStep rs;
    const Json& exprs = Field(step, "matchExpressions");
    if (exprs.is_array()) {
      for (const auto& e : exprs) {
        rs.match_expressions.push_back(
            {StringAt(e, "key"), StringAt(e, "operator"), Strings(Field(e, "values")), {}});
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
  DeletionRecord r;
  const std::string phase = StringAt(v, "phase");
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
  r.reason = StringAt(v, "reason");
  r.strategy = DecodeStrategy(Field(v, "strategy"));
  r.preserve_resources = Field(v, "preserveResources") == Json(true);
  const Json& apps = Field(v, "apps");
  if (apps.is_array()) {
    for (const auto& a : apps) {
      DeletionApp app;
      app.name = StringAt(a, "name");
      if (app.name.empty()) continue;
      app.cluster = StringAt(a, "cluster");
      app.labels = StringMap(Field(a, "labels"));
      const Json& kinds = Field(a, "kinds");
      if (kinds.is_array()) {
        for (const auto& k : kinds) {
          if (k.is_array() && k.size() == 2 && k[0].is_string() && k[1].is_string()) {
            app.kinds.emplace_back(k[0].get<std::string>(), k[1].get<std::string>());
          }
        }
      }
      r.apps.push_back(std::move(app));
    }
  }
  std::sort(r.apps.begin(), r.apps.end(),
            [](const DeletionApp& a, const DeletionApp& b) { return a.name < b.name; });
  for (const auto& g : Strings(Field(v, "gone"))) r.gone.insert(g);
  const Json& step = Field(v, "step");
  if (step.is_number_integer()) r.step = step.get<int>();
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
