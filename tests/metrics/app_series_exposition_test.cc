// The per-app series (fleetwave_application_{health,rollout_status,sync_status}) and the set's
// last progress timestamp, as a scrape shows them after a sequence of publishes, against a
// reference that builds them from scratch for every publish in prometheus-cpp Gauge families
// (what metrics.cc did before it kept them in its own table): the exposition must be the same,
// series that went away included. The publishes share Applications the way the engine does
// (an unchanged app comes again as the same pointer) while its status entry, its resolved
// cluster or its neighbours change, since those are the cases a publish that looks only at
// changed pointers could get wrong.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include "engine/progress/workload.h"
#include "engine/time.h"
#include "metrics/metrics.h"

namespace fleetwave::metrics {
namespace {

using engine::Json;
using JsonPtr = std::shared_ptr<const Json>;

Json App(const std::string& name, const std::string& cluster, const std::string& health,
         const std::string& sync) {
  return Json{{"metadata", {{"name", name}}},
              {"spec", {{"destination", {{"name", cluster}, {"namespace", "default"}}}}},
              {"status", {{"health", {{"status", health}}}, {"sync", {{"status", sync}}}}}};
}

Json Entry(const std::string& app, const std::string& status, const std::string& when) {
  return Json{{"application", app},
              {"status", status},
              {"step", "1"},
              {"message", ""},
              {"lastTransitionTime", when}};
}

// One publish of a set, as the daemon's publish.appset callback hands it to Metrics.
struct Publish {
  std::string appset;
  Json status;
  std::vector<JsonPtr> apps;
  std::map<std::string, std::string> clusters;
  bool removed = false;   // AppSetRemoved instead
  bool borrowed = false;  // through AppSetObserved (a vector of values, no shared pointers)
};

// The rules of metrics.h, from scratch: each app's series from its last entry and its last
// Application (the last of equal names wins), the cluster label the resolved context, else
// the destination's name, else its server; states outside their documented sets read as
// "Unknown" (rollout status, health, sync).
class Reference {
 public:
  void Apply(const Publish& p) {
    if (p.removed) {
      sets_.erase(p.appset);
      return;
    }
    State& s = sets_[p.appset];
    s = State{};
    auto str = [](const Json& j, std::initializer_list<std::string_view> path) {
      const Json* v = engine::FieldAt(j, path);
      return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
    };
    auto one_of = [](const std::string& v, std::vector<std::string> allowed) {
      return std::find(allowed.begin(), allowed.end(), v) != allowed.end() ? v : "Unknown";
    };
    std::optional<engine::Time> progress =
        engine::ParseRfc3339(str(p.status, {"rollout", "stepStartedAt"}));
    const Json* entries = engine::FieldAt(p.status, {"applicationStatus"});
    for (const Json& e : entries != nullptr && entries->is_array() ? *entries : Json::array()) {
      const std::string app = str(e, {"application"});
      if (app.empty()) continue;
      s.rollout[app] = one_of(str(e, {"status"}), {"Waiting", "Pending", "Progressing", "Healthy"});
      if (auto t = engine::ParseRfc3339(str(e, {"lastTransitionTime"}));
          t && (!progress || *t > *progress)) {
        progress = t;
      }
    }
    s.progress = progress;
    for (const JsonPtr& a : p.apps) {
      if (a == nullptr) continue;
      const std::string app = str(*a, {"metadata", "name"});
      if (app.empty()) continue;
      std::string cluster = str(*a, {"spec", "destination", "server"});
      if (auto n = str(*a, {"spec", "destination", "name"}); !n.empty()) cluster = n;
      if (auto c = p.clusters.find(app); c != p.clusters.end() && !c->second.empty()) {
        cluster = c->second;
      }
      s.apps[app] = {cluster,
                     one_of(str(*a, {"status", "health", "status"}),
                            {"Healthy", "Progressing", "Degraded", "Suspended", "Missing"}),
                     one_of(str(*a, {"status", "sync", "status"}), {"Synced", "OutOfSync"})};
    }
  }

  // The exposition of the per-app families and the last progress gauge, rendered by
  // prometheus-cpp from Gauge families as metrics.cc registered them.
  std::string Text() const {
    prometheus::Registry r;
    auto& health = prometheus::BuildGauge()
                       .Name("fleetwave_application_health")
                       .Help("State set: the health of each Application (value 1).")
                       .Register(r);
    auto& rollout = prometheus::BuildGauge()
                        .Name("fleetwave_application_rollout_status")
                        .Help("State set: each Application's RollingSync status (value 1).")
                        .Register(r);
    auto& sync = prometheus::BuildGauge()
                     .Name("fleetwave_application_sync_status")
                     .Help("State set: the sync status of each Application (value 1).")
                     .Register(r);
    auto& progress = prometheus::BuildGauge()
                         .Name("fleetwave_applicationset_last_progress_timestamp_seconds")
                         .Help(
                             "Unix time of the set's last rollout progress (an app's "
                             "transition or a step start).")
                         .Register(r);
    for (const auto& [set, s] : sets_) {
      for (const auto& [app, status] : s.rollout) {
        rollout.Add({{"appset", set}, {"application", app}, {"status", status}}).Set(1);
      }
      for (const auto& [app, a] : s.apps) {
        health
            .Add({{"appset", set},
                  {"application", app},
                  {"cluster", a.cluster},
                  {"health", a.health}})
            .Set(1);
        sync.Add(
                {{"appset", set}, {"application", app}, {"cluster", a.cluster}, {"status", a.sync}})
            .Set(1);
      }
      if (s.progress) {
        progress.Add({{"appset", set}}).Set(engine::ToSeconds(s.progress->time_since_epoch()));
      }
    }
    return prometheus::TextSerializer().Serialize(r.Collect());
  }

 private:
  struct AppLabels {
    std::string cluster, health, sync;
  };
  struct State {
    std::map<std::string, std::string> rollout;
    std::map<std::string, AppLabels> apps;
    std::optional<engine::Time> progress;
  };
  std::map<std::string, State> sets_;
};

// The blocks of `families` in `text`, in the order they appear there: each its HELP and TYPE
// lines and its samples sorted (prometheus-cpp keeps a family's series in a hash map, so their
// order was never defined; which series exist and their text is).
std::vector<std::string> Blocks(const std::string& text, const std::vector<std::string>& families) {
  std::vector<std::string> out;
  std::map<std::string, std::vector<std::string>> samples;
  std::vector<std::string> order;
  std::istringstream in(text);
  std::string line;
  std::string current;
  while (std::getline(in, line)) {
    if (line.rfind("# HELP ", 0) == 0) {
      current = line.substr(7, line.find(' ', 7) - 7);
      if (std::find(families.begin(), families.end(), current) == families.end()) {
        current.clear();
      } else {
        order.push_back(current);
      }
    }
    if (!current.empty()) samples[current].push_back(line);
  }
  for (const std::string& f : order) {
    std::vector<std::string>& lines = samples[f];
    std::sort(lines.begin() + std::min<size_t>(2, lines.size()), lines.end());
    std::string block;
    for (const auto& l : lines) block += l + "\n";
    out.push_back(block);
  }
  return out;
}

// The names of the families in `text`, in order.
std::vector<std::string> FamilyOrder(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# TYPE fleetwave_", 0) == 0) out.push_back(line.substr(7));
  }
  return out;
}

const std::vector<std::string> kPerApp = {
    "fleetwave_application_health", "fleetwave_application_rollout_status",
    "fleetwave_application_sync_status",
    "fleetwave_applicationset_last_progress_timestamp_seconds"};

TEST(AppSeriesExpositionTest, PublishesOfChangedAppsExposeWhatAFullRebuildWould) {
  // Apps a..f of "web", each an Application the engine reuses until it changes.
  std::map<std::string, JsonPtr> app = {
      {"a", std::make_shared<const Json>(App("a", "east", "Healthy", "Synced"))},
      {"b", std::make_shared<const Json>(App("b", "west", "Progressing", "OutOfSync"))},
      {"c", std::make_shared<const Json>(App("c", "east", "Missing", "OutOfSync"))},
      {"d", std::make_shared<const Json>(App("d", "", "Healthy", "Synced"))},
      {"e", std::make_shared<const Json>(App("e", "north", "Degraded", "Synced"))},
      {"f", std::make_shared<const Json>(App("f", "east", "Healthy", "Synced"))},
  };
  auto status = [](std::vector<Json> entries, const char* step_started = nullptr) {
    Json rollout = {{"generation", 1}, {"step", 1}};
    if (step_started != nullptr) rollout["stepStartedAt"] = step_started;
    return Json{{"applicationStatus", Json(entries)},
                {"conditions", Json::array()},
                {"rollout", std::move(rollout)}};
  };
  const std::string t0 = "2026-03-01T12:00:00Z", t1 = "2026-03-01T12:01:00Z",
                    t2 = "2026-03-01T12:02:00Z";
  const std::map<std::string, std::string> contexts = {{"a", "east-ctx"}, {"b", "west-ctx"}};
  auto base_entries = [&] {
    return std::vector<Json>{Entry("a", "Healthy", t0),     Entry("b", "Progressing", t0),
                             Entry("c", "Waiting", t0),     Entry("d", "Pending", t0),
                             Entry("e", "Progressing", t0), Entry("f", "Healthy", t0)};
  };
  std::vector<Publish> sequence;
  auto publish = [&](std::vector<Json> entries, std::vector<std::string> apps,
                     std::map<std::string, std::string> clusters = {},
                     const char* step_started = nullptr) {
    Publish p{"web", status(std::move(entries), step_started), {}, std::move(clusters)};
    for (const auto& name : apps) p.apps.push_back(name.empty() ? nullptr : app.at(name));
    sequence.push_back(std::move(p));
  };
  const std::vector<std::string> all = {"a", "b", "c", "d", "e", "f"};

  // 1. Everything new, with resolved contexts for a and b.
  publish(base_entries(), all, contexts);
  // 2. The same again: nothing changes.
  publish(base_entries(), all, contexts);
  // 3. Only c's entry changes (Waiting -> Pending, later transition): its Application is the
  //    same pointer.
  {
    auto e = base_entries();
    e[2] = Entry("c", "Pending", t1);
    publish(e, all, contexts);
  }
  // 4. b's Application changes (a new pointer): health and sync move.
  app["b"] = std::make_shared<const Json>(App("b", "west", "Healthy", "Synced"));
  {
    auto e = base_entries();
    e[2] = Entry("c", "Pending", t1);
    publish(e, all, contexts);
  }
  // 5. a's resolved context goes (its destination name again) and d gets one, same pointers.
  {
    auto e = base_entries();
    e[2] = Entry("c", "Pending", t1);
    publish(e, all, {{"b", "west-ctx"}, {"d", "south-ctx"}});
  }
  // 6. e disappears entirely; f's Application goes but its entry stays; a's entry goes but its
  //    Application stays; a step start later than every transition.
  {
    std::vector<Json> e = {Entry("b", "Progressing", t0), Entry("c", "Pending", t1),
                           Entry("d", "Pending", t0), Entry("f", "Healthy", t0)};
    publish(e, {"a", "b", "c", "d"}, contexts, "2026-03-01T12:05:00Z");
  }
  // 7. e comes back (the same pointer as before it went), f's Application too; a malformed
  //    entry, an entry without a name, a null Application; states outside their sets.
  {
    auto e = base_entries();
    e[0] = Entry("a", "Bogus", t2);
    e.push_back(Json{{"application", 7}, {"status", "Healthy"}});
    e.push_back(Json{{"status", "Healthy"}});
    e.push_back(Json("not an object"));
    app["c"] = std::make_shared<const Json>(App("c", "east", "Weird", "Odd"));
    publish(e, {"a", "b", "", "c", "d", "e", "f"}, contexts);
  }
  // 8. Duplicate names, out of order: the last of each wins.
  {
    std::vector<Json> e = base_entries();
    e.push_back(Entry("b", "Healthy", t2));
    auto other_d = std::make_shared<const Json>(App("d", "far", "Degraded", "OutOfSync"));
    Publish p{"web", status(e), {}, contexts};
    for (const auto& name : {"f", "d", "a", "b", "c", "e"}) p.apps.push_back(app.at(name));
    p.apps.push_back(other_d);
    sequence.push_back(std::move(p));
  }
  // 9. The sorted set again, then a second set, and the first through AppSetObserved.
  publish(base_entries(), all, contexts);
  {
    Publish p{"api", status({Entry("x", "Healthy", t0)}), {}, {}};
    p.apps.push_back(std::make_shared<const Json>(App("x", "east", "Healthy", "Synced")));
    sequence.push_back(std::move(p));
  }
  {
    auto e = base_entries();
    e[4] = Entry("e", "Healthy", t2);
    publish(e, all, contexts);
    sequence.back().borrowed = true;
  }
  publish(base_entries(), all, contexts);
  // 10. Everything goes, then comes back; the first set is removed while the second stays.
  publish({}, {}, {});
  publish(base_entries(), all, contexts);
  sequence.push_back(Publish{"web", Json::object(), {}, {}, true});
  publish(base_entries(), {"a", "b"}, contexts);
  sequence.push_back(Publish{"api", Json::object(), {}, {}, true});

  Metrics metrics;
  Reference reference;
  const engine::Time now = *engine::ParseRfc3339("2026-03-01T12:10:00Z");
  for (size_t i = 0; i < sequence.size(); ++i) {
    SCOPED_TRACE("publish " + std::to_string(i + 1));
    const Publish& p = sequence[i];
    if (p.removed) {
      metrics.AppSetRemoved(p.appset);
    } else if (p.borrowed) {
      std::vector<Json> values;
      for (const JsonPtr& a : p.apps) values.push_back(a ? *a : Json());
      metrics.AppSetObserved(p.appset, p.status, values, now, p.clusters);
    } else {
      metrics.AppSetObservedShared(p.appset, p.status, p.apps, now, p.clusters);
    }
    reference.Apply(p);
    const std::string text = metrics.Text();
    EXPECT_EQ(Blocks(text, kPerApp), Blocks(reference.Text(), kPerApp));
    if (i == 0) {
      EXPECT_EQ(Blocks(text, kPerApp).size(), kPerApp.size());  // not vacuous
    }
    // The families keep their place in the exposition (counters, then gauges in the order
    // metrics.cc registers them, then histograms).
    std::vector<std::string> order = FamilyOrder(text);
    const std::vector<std::string> gauges_first = {"fleetwave_application_health gauge",
                                                   "fleetwave_application_rollout_status gauge",
                                                   "fleetwave_application_sync_status gauge"};
    auto first_gauge = std::find_if(order.begin(), order.end(), [](const std::string& f) {
      return f.size() > 6 && f.compare(f.size() - 6, 6, " gauge") == 0;
    });
    std::vector<std::string> present;
    for (const auto& f : gauges_first) {
      if (text.find("# TYPE " + f + "\n") != std::string::npos) present.push_back(f);
    }
    ASSERT_GE(static_cast<size_t>(order.end() - first_gauge), present.size());
    EXPECT_EQ(std::vector<std::string>(first_gauge, first_gauge + present.size()), present);
    for (auto it = order.begin(); it != first_gauge; ++it) {
      EXPECT_NE(it->find(" counter"), std::string::npos) << *it;
    }
  }
}

}  // namespace
}  // namespace fleetwave::metrics
