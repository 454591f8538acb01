// A publisher that names the entries it changed (ChangedEntries) gets the same per-app series
// as one that does not, after every publish: including when a publish of its sequence never
// reached the metrics (a standby skips it) or another publisher came between, where every
// entry must be read again.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/rollingsync/max_failures.h"
#include "engine/time.h"
#include "metrics/metrics.h"
#include "tests/metrics/exposition.h"

namespace fleetwave::metrics {
namespace {

using engine::Json;
using JsonPtr = std::shared_ptr<const Json>;

// `failed`: the entry's message reports a failed app (counted per step in
// fleetwave_step_failures), as a rollout with maxFailures writes it.
Json Entry(const std::string& app, const std::string& status, int minute, int step = 1,
           bool failed = false) {
  char when[32];
  std::snprintf(when, sizeof when, "2026-03-01T%02d:%02d:00Z", 10 + minute / 60, minute % 60);
  Json e{{"application", app},
         {"status", status},
         {"step", std::to_string(step)},
         {"lastTransitionTime", when}};
  if (failed) e["message"] = engine::FailedAppMessage("health is Degraded");
  return e;
}

JsonPtr App(const std::string& name, const std::string& health) {
  return std::make_shared<const Json>(
      Json{{"metadata", {{"name", name}}},
           {"spec", {{"destination", {{"name", "c-" + name}}}}},
           {"status", {{"health", {{"status", health}}}, {"sync", {{"status", "Synced"}}}}}});
}

// The per-app families and the set's last progress, as sorted samples.
std::vector<std::string> AppSamples(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& s : testing::ParseSamples(text)) {
    if (s.name.rfind("fleetwave_application", 0) != 0 &&
        s.name != "fleetwave_applicationset_last_progress_timestamp_seconds" &&
        s.name != "fleetwave_step_failures") {
      continue;
    }
    std::string line = s.name;
    for (const auto& [k, v] : s.labels) line += " " + k + "=" + v;
    out.push_back(line + " " + std::to_string(s.value));
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(AppSeriesHint, NamedEntriesScrapeAsAFullReadThroughEveryPublish) {
  std::mt19937 rng(11);
  const std::vector<std::string> statuses = {"Waiting", "Pending", "Progressing", "Healthy"};
  const std::vector<std::string> healths = {"Healthy", "Progressing", "Degraded", "Missing"};
  const size_t n = 30;
  Json entries = Json::array();
  std::vector<JsonPtr> apps;
  for (size_t i = 0; i < n; ++i) {
    char name[8];
    std::snprintf(name, sizeof name, "app%02zu", i);
    entries.push_back(Entry(name, "Waiting", 0));
    apps.push_back(App(name, "Healthy"));
  }
  const engine::Time now = *engine::ParseRfc3339("2026-03-01T12:00:00Z");
  Metrics hinted, full;
  uint64_t seq = 0;
  // The resolved cluster per app: a map that a publisher replaces now and then (a new
  // generation), with a new version each time; the same version always comes with the same map.
  std::map<std::string, std::string> clusters;
  uint64_t clusters_version = 1;
  int new_maps = 0;
  int skipped = 0, foreign = 0, used = 0, with_failures = 0;
  for (int step = 1; step < 400; ++step) {
    std::vector<size_t> positions;
    for (int c = static_cast<int>(rng() % 4); c > 0; --c) {
      const size_t i = rng() % n;
      const std::string app = entries[i]["application"];
      // Transition times move back too, so the latest over the set must be found again.
      entries[i] = Entry(app, statuses[rng() % statuses.size()], static_cast<int>(rng() % 300),
                         1 + static_cast<int>(rng() % 3), rng() % 3 == 0);
      positions.push_back(i);
      if (rng() % 2) apps[i] = App(app, healths[rng() % healths.size()]);
    }
    std::sort(positions.begin(), positions.end());
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
    const Json status = {{"applicationStatus", entries}, {"rollout", {{"step", 1}}}};
    if (rng() % 25 == 0) {
      ++new_maps;
      ++clusters_version;
      clusters.clear();
      for (size_t i = 0; i < n; ++i) {
        if (rng() % 2) clusters[entries[i]["application"]] = "ctx-" + std::to_string(rng() % 3);
      }
    }
    const ChangedEntries mine{42, ++seq, &positions, clusters_version};
    const unsigned what = rng() % 20;
    if (what == 0) {
      ++skipped;  // never reaches `hinted`
    } else if (what == 1) {
      ++foreign;
      const ChangedEntries other{43, 1, nullptr, clusters_version};
      hinted.AppSetObservedShared("s", status, apps, now, {}, &other);
      hinted.AppSetObservedShared("s", status, apps, now, clusters, &mine);
    } else {
      ++used;
      hinted.AppSetObservedShared("s", status, apps, now, clusters, &mine);
    }
    full.AppSetObservedShared("s", status, apps, now, clusters);
    if (what == 0) continue;
    ASSERT_EQ(AppSamples(hinted.Text()), AppSamples(full.Text())) << "after step " << step;
    // The failures per step are those of the JSON as it is now, counted here from scratch.
    std::map<std::string, double> expected;
    for (const Json& e : entries) {
      if (engine::IsFailedAppMessage(e.value("message", ""))) expected[e["step"]] += 1;
    }
    std::map<std::string, double> got;
    for (const auto& sample : testing::ParseSamples(hinted.Text())) {
      if (sample.name != "fleetwave_step_failures") continue;
      for (const auto& [k, v] : sample.labels) {
        if (k == "step") got[v] = sample.value;
      }
    }
    ASSERT_EQ(got, expected) << "after step " << step;
    if (!expected.empty()) ++with_failures;
  }
  EXPECT_GT(with_failures, 300);
  EXPECT_GT(new_maps, 5);
  EXPECT_GT(skipped, 5);
  EXPECT_GT(foreign, 5);
  EXPECT_GT(used, 300);
}

}  // namespace
}  // namespace fleetwave::metrics
