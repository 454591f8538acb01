// Metrics: the product's metric names and labels, state-set semantics, deletion of everything
// an app, workload or cluster leaves behind, and the series budget at fleet scale.
#include "metrics/metrics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "engine/time.h"
#include "tests/metrics/exposition.h"

namespace fleetwave::metrics {
namespace {

using engine::Json;
using engine::Time;
using testing::Find;
using testing::ParseSamples;
using testing::Sample;
using testing::WithLabel;

Time At(const char* rfc3339) { return *engine::ParseRfc3339(rfc3339); }

Json App(const std::string& name, const std::string& cluster, const std::string& health,
         const std::string& sync) {
  return Json{{"metadata", {{"name", name}}},
              {"spec", {{"destination", {{"name", cluster}, {"namespace", "default"}}}}},
              {"status", {{"health", {{"status", health}}}, {"sync", {{"status", sync}}}}}};
}

Json Entry(const std::string& app, const std::string& status, const char* when) {
  return Json{{"application", app},
              {"status", status},
              {"step", "1"},
              {"message", ""},
              {"lastTransitionTime", when}};
}

Json Condition(const std::string& type, const std::string& status, const std::string& reason) {
  return Json{{"type", type}, {"status", status}, {"reason", reason}, {"message", "m"}};
}

Json Status(Json entries, Json conditions, Json rollout) {
  return Json{{"applicationStatus", std::move(entries)},
              {"conditions", std::move(conditions)},
              {"rollout", std::move(rollout)}};
}

std::vector<Sample> Scrape(const Metrics& m) { return ParseSamples(m.Text()); }

TEST(MetricsTest, BuildInfoCarriesVersionAndRevision) {
  Metrics m(BuildInfo{"1.2.3", "abc1234"});
  const auto s = Find(Scrape(m), "fleetwave_build_info");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].labels.at("version"), "1.2.3");
  EXPECT_EQ(s[0].labels.at("revision"), "abc1234");
  EXPECT_EQ(s[0].value, 1);
  // The compiled-in values: the project version from CMake, a revision always present.
  const BuildInfo compiled = CompiledBuildInfo();
  EXPECT_EQ(compiled.version, "0.1.0");
  EXPECT_FALSE(compiled.revision.empty());
}

TEST(MetricsTest, GitFetchesAreCountedByResultAndSuccessIsTimed) {
  Metrics m;
  const std::string repo = "https://git.example.com/org/repo";
  m.GitFetch(repo, "fetched", 1000);
  m.GitFetch(repo, "unchanged", 1060);
  m.GitFetch(repo, "failed", 1120);
  m.GitFetch(repo, "bogus", 1180);  // outside the documented set: counted as failed
  const auto samples = Scrape(m);
  const auto fetches = Find(samples, "fleetwave_git_fetch_total");
  ASSERT_EQ(fetches.size(), 3u);
  for (const auto& s : fetches) {
    EXPECT_EQ(s.labels.at("repo"), repo);
    EXPECT_EQ(s.value, s.labels.at("result") == "failed" ? 2 : 1) << s.labels.at("result");
  }
  const auto last = Find(samples, "fleetwave_git_last_success_timestamp_seconds");
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].value, 1060);  // the last success, not the failures after it
}

TEST(MetricsTest, AppSetObservedReportsStepConditionsAppsAndProgress) {
  Metrics m;
  const Json status =
      Status(Json::array({Entry("a", "Healthy", "2026-03-01T12:00:00Z"),
                          Entry("b", "Progressing", "2026-03-01T12:05:00Z")}),
             Json::array({Condition("RolloutProgressing", "True", "ApplicationSetModified"),
                          Condition("ResourcesUpToDate", "False", "ApplicationSetUpToDate")}),
             Json{{"generation", 1}, {"step", 2}, {"stepStartedAt", "2026-03-01T12:01:00Z"}});
  m.AppSetObserved(
      "web", status,
      {App("a", "east", "Healthy", "Synced"), App("b", "west", "Progressing", "OutOfSync")},
      At("2026-03-01T12:06:00Z"));
  const auto all = Scrape(m);

  auto step = Find(all, "fleetwave_applicationset_rollout_step", {{"appset", "web"}});
  ASSERT_EQ(step.size(), 1u);
  EXPECT_EQ(step[0].value, 2);
  auto progress = Find(all, "fleetwave_applicationset_last_progress_timestamp_seconds");
  ASSERT_EQ(progress.size(), 1u);
  EXPECT_EQ(progress[0].value, engine::ToSeconds(At("2026-03-01T12:05:00Z").time_since_epoch()));

  auto cond = Find(all, "fleetwave_applicationset_condition",
                   {{"appset", "web"}, {"type", "RolloutProgressing"}});
  ASSERT_EQ(cond.size(), 1u);
  EXPECT_EQ(cond[0].labels.at("status"), "True");
  EXPECT_EQ(cond[0].labels.at("reason"), "ApplicationSetModified");
  EXPECT_EQ(cond[0].value, 1);
  EXPECT_EQ(Find(all, "fleetwave_applicationset_condition").size(), 2u);

  auto health = Find(all, "fleetwave_application_health", {{"application", "b"}});
  ASSERT_EQ(health.size(), 1u);
  EXPECT_EQ(health[0].labels.at("cluster"), "west");
  EXPECT_EQ(health[0].labels.at("health"), "Progressing");
  auto sync = Find(all, "fleetwave_application_sync_status", {{"application", "a"}});
  ASSERT_EQ(sync.size(), 1u);
  EXPECT_EQ(sync[0].labels.at("status"), "Synced");
  EXPECT_EQ(sync[0].labels.at("cluster"), "east");
  auto rollout = Find(all, "fleetwave_application_rollout_status", {{"application", "a"}});
  ASSERT_EQ(rollout.size(), 1u);
  EXPECT_EQ(rollout[0].labels.at("status"), "Healthy");
}

// Issue 29: the failed apps of each step (entries whose message reports a failure, which the
// rollout writes in steps with maxFailures); the series goes when the step has none.
TEST(MetricsTest, StepFailuresCountTheFailedAppsOfEachStep) {
  Metrics m;
  auto entry = [](const std::string& app, const std::string& step, const std::string& message) {
    Json e = Entry(app, "Progressing", "2026-03-01T12:00:00Z");
    e["step"] = step;
    e["message"] = message;
    return e;
  };
  const std::string failed =
      "Application failed (health is Degraded), counted against the step's maxFailures";
  m.AppSetObserved("web",
                   Status(Json::array({entry("a", "1", failed), entry("b", "1", failed),
                                       entry("c", "1", "Application resource became Progressing"),
                                       entry("d", "2", failed)}),
                          Json::array(), Json{{"generation", 1}, {"step", 2}}),
                   {}, At("2026-03-01T12:01:00Z"));
  auto all = Scrape(m);
  auto one = Find(all, "fleetwave_step_failures", {{"appset", "web"}, {"step", "1"}});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].value, 2);
  auto two = Find(all, "fleetwave_step_failures", {{"appset", "web"}, {"step", "2"}});
  ASSERT_EQ(two.size(), 1u);
  EXPECT_EQ(two[0].value, 1);

  m.AppSetObserved(
      "web",
      Status(Json::array({entry("a", "1", failed), entry("d", "2",
                                                         "Application recovered from its failure "
                                                         "and counts as complete again")}),
             Json::array(), Json{{"generation", 1}, {"step", 2}}),
      {}, At("2026-03-01T12:02:00Z"));
  all = Scrape(m);
  EXPECT_EQ(Find(all, "fleetwave_step_failures", {{"step", "1"}}).at(0).value, 1);
  EXPECT_TRUE(Find(all, "fleetwave_step_failures", {{"step", "2"}}).empty());
  m.AppSetRemoved("web");
  EXPECT_TRUE(Find(Scrape(m), "fleetwave_step_failures").empty());
}

// Issue 29: every analysis measurement counted by set, step and result; the set's removal takes
// its series.
TEST(MetricsTest, AnalysisMeasurementsAreCountedByStepAndResult) {
  Metrics m;
  m.AnalysisMeasured("web", 1, true);
  m.AnalysisMeasured("web", 1, true);
  m.AnalysisMeasured("web", 1, false);
  m.AnalysisMeasured("web", 2, false);
  auto all = Scrape(m);
  const auto series = [&](const char* step, const char* result) {
    return Find(all, "fleetwave_analysis_measurements_total",
                {{"appset", "web"}, {"step", step}, {"result", result}});
  };
  ASSERT_EQ(series("1", "pass").size(), 1u);
  EXPECT_EQ(series("1", "pass")[0].value, 2);
  EXPECT_EQ(series("1", "fail").at(0).value, 1);
  EXPECT_EQ(series("2", "fail").at(0).value, 1);
  EXPECT_TRUE(series("2", "pass").empty());
  m.AppSetRemoved("web");
  EXPECT_TRUE(Find(Scrape(m), "fleetwave_analysis_measurements_total").empty());
}

// Issue 29: rollbacks counted by set and reason (a reason from elsewhere folds into "other");
// the set's removal takes its series.
TEST(MetricsTest, RollbacksAreCountedBySetAndReason) {
  Metrics m;
  m.RollbackStarted("web", "StepFailed");
  m.RollbackStarted("web", "StepFailed");
  m.RollbackStarted("web", "Operator");
  m.RollbackStarted("api", "Operator");
  m.RollbackStarted("api", "made-up");
  auto all = Scrape(m);
  const auto series = [&](const char* appset, const char* reason) {
    return Find(all, "fleetwave_rollbacks_total", {{"appset", appset}, {"reason", reason}});
  };
  EXPECT_EQ(series("web", "StepFailed").at(0).value, 2);
  EXPECT_EQ(series("web", "Operator").at(0).value, 1);
  EXPECT_EQ(series("api", "Operator").at(0).value, 1);
  EXPECT_EQ(series("api", "other").at(0).value, 1);
  EXPECT_TRUE(series("api", "made-up").empty());
  EXPECT_TRUE(series("api", "StepFailed").empty());
  m.AppSetRemoved("web");
  all = Scrape(m);
  EXPECT_TRUE(Find(all, "fleetwave_rollbacks_total", {{"appset", "web"}}).empty());
  EXPECT_EQ(Find(all, "fleetwave_rollbacks_total", {{"appset", "api"}}).size(), 2u);
}

// A set's rollback series exist from its first sight at 0 (the FleetwaveRolledBack alert's
// increase() sees its first rollback as 0 -> 1), and a later observation keeps the count.
TEST(MetricsTest, RollbackSeriesStartAtZeroWhenASetIsFirstSeen) {
  Metrics m;
  const Json status = {{"rollout", {{"generation", 1}, {"step", 1}}}};
  m.AppSetObserved("web", status, {}, At("2026-03-01T12:00:00Z"));
  auto all = Scrape(m);
  const auto series = [&](const char* reason) {
    return Find(all, "fleetwave_rollbacks_total", {{"appset", "web"}, {"reason", reason}});
  };
  ASSERT_EQ(Find(all, "fleetwave_rollbacks_total").size(), 2u);
  EXPECT_EQ(series("StepFailed").at(0).value, 0);
  EXPECT_EQ(series("Operator").at(0).value, 0);
  m.RollbackStarted("web", "StepFailed");
  m.AppSetObserved("web", status, {}, At("2026-03-01T12:01:00Z"));
  all = Scrape(m);
  EXPECT_EQ(series("StepFailed").at(0).value, 1);
  EXPECT_EQ(series("Operator").at(0).value, 0);
}

// The per-app series after any sequence of results equal those of a Metrics that saw only the
// last result: remembering each app's labels between calls (so an unchanged app costs no
// prometheus call) never leaves a stale series or misses a change. And observing the same
// result twice leaves every fleetwave_ sample and value the same.
TEST(MetricsTest, ObservingTheSameResultChangesNothing) {
  struct Result {
    Json status;
    std::vector<Json> apps;
    std::map<std::string, std::string> clusters;
  };
  auto result =
      [](std::vector<std::tuple<std::string, std::string, std::string, std::string, std::string>>
             apps /* name, rollout status, cluster, health, sync */,
         std::vector<std::string> without_entry = {}) {
        Result r;
        Json entries = Json::array();
        for (const auto& [name, rollout, cluster, health, sync] : apps) {
          if (std::find(without_entry.begin(), without_entry.end(), name) == without_entry.end()) {
            entries.push_back(Entry(name, rollout, "2026-03-01T12:00:00Z"));
          }
          r.apps.push_back(App(name, cluster, health, sync));
        }
        r.status = Status(entries, Json::array(), Json{{"generation", 1}, {"step", 1}});
        return r;
      };
  const Result base = result({{"a", "Healthy", "east", "Healthy", "Synced"},
                              {"b", "Progressing", "west", "Progressing", "OutOfSync"},
                              {"c", "Waiting", "east", "Missing", "OutOfSync"}});
  Result resolved = base;
  resolved.clusters = {{"b", "west-context"}};
  struct Case {
    std::string name;
    std::vector<Result> sequence;
  };
  const std::vector<Case> cases = {
      {"Same", {base, base}},
      {"HealthChanged",
       {base, result({{"a", "Healthy", "east", "Degraded", "Synced"},
                      {"b", "Progressing", "west", "Progressing", "OutOfSync"},
                      {"c", "Waiting", "east", "Missing", "OutOfSync"}})}},
      {"SyncAndRolloutChanged",
       {base, result({{"a", "Healthy", "east", "Healthy", "Synced"},
                      {"b", "Healthy", "west", "Progressing", "Synced"},
                      {"c", "Waiting", "east", "Missing", "OutOfSync"}})}},
      {"ClusterChanged",
       {base, result({{"a", "Healthy", "north", "Healthy", "Synced"},
                      {"b", "Progressing", "west", "Progressing", "OutOfSync"},
                      {"c", "Waiting", "east", "Missing", "OutOfSync"}})}},
      {"ResolvedContextAppearsAndGoes", {base, resolved, base}},
      {"AppGoneAndBack",
       {base,
        result({{"a", "Healthy", "east", "Healthy", "Synced"},
                {"c", "Waiting", "east", "Missing", "OutOfSync"}}),
        base}},
      {"EntryGoneAppStays",
       {base, result({{"a", "Healthy", "east", "Healthy", "Synced"},
                      {"b", "Progressing", "west", "Progressing", "OutOfSync"},
                      {"c", "Waiting", "east", "Missing", "OutOfSync"}},
                     {"b"})}},
      {"Emptied", {base, result({}), base}},
      {"UnknownStates",
       {base, result({{"a", "Bogus", "east", "Weird", "Odd"},
                      {"b", "Progressing", "west", "Progressing", "OutOfSync"},
                      {"c", "Waiting", "east", "Missing", "OutOfSync"}})}},
  };
  auto app_series = [](const Metrics& m) {
    std::vector<std::pair<std::string, std::map<std::string, std::string>>> out;
    for (const auto& s : Scrape(m)) {
      if (s.labels.count("application") == 0) continue;
      EXPECT_EQ(s.value, 1) << s.name;
      out.emplace_back(s.name, s.labels);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  // Every fleetwave_ sample with its value (process_* move on their own between scrapes).
  auto fleetwave_samples = [](const Metrics& m) {
    std::vector<std::tuple<std::string, std::map<std::string, std::string>, double>> out;
    for (const auto& s : Scrape(m)) {
      if (s.name.rfind("fleetwave_", 0) == 0) out.emplace_back(s.name, s.labels, s.value);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Metrics m;
    Time t = At("2026-03-01T12:00:00Z");
    for (size_t i = 0; i < c.sequence.size(); ++i) {
      SCOPED_TRACE(i);
      const Result& r = c.sequence[i];
      m.AppSetObserved("web", r.status, r.apps, t, r.clusters);
      Metrics fresh;
      fresh.AppSetObserved("web", r.status, r.apps, t, r.clusters);
      EXPECT_EQ(app_series(m), app_series(fresh));
      const auto exposed = fleetwave_samples(m);
      m.AppSetObserved("web", r.status, r.apps, t, r.clusters);  // the same result again
      EXPECT_EQ(fleetwave_samples(m), exposed);
      EXPECT_EQ(app_series(m), app_series(fresh));
      t += std::chrono::seconds(30);
    }
    // Removing the set and observing again starts from nothing (no remembered labels survive).
    m.AppSetRemoved("web");
    EXPECT_TRUE(app_series(m).empty());
    m.AppSetObserved("web", c.sequence.back().status, c.sequence.back().apps, t,
                     c.sequence.back().clusters);
    Metrics fresh;
    fresh.AppSetObserved("web", c.sequence.back().status, c.sequence.back().apps, t,
                         c.sequence.back().clusters);
    EXPECT_EQ(app_series(m), app_series(fresh));
  }
}

// The cluster label: the resolved kubeconfig context when the caller knows it, else the
// destination's name, else its server.
TEST(MetricsTest, ApplicationClusterLabel) {
  struct Case {
    const char* name;
    Json destination;
    std::map<std::string, std::string> clusters;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"destination name", {{"name", "east"}}, {}, "east"},
      {"destination server",
       {{"server", "https://east.example:6443"}},
       {},
       "https://east.example:6443"},
      {"resolved context wins", {{"server", "https://east.example:6443"}}, {{"a", "east"}}, "east"},
      {"another app's context is not used", {{"name", "west"}}, {{"b", "east"}}, "west"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Metrics m;
    Json app = App("a", "", "Healthy", "Synced");
    app["spec"]["destination"] = c.destination;
    m.AppSetObserved("web", Json::object(), {app}, At("2026-03-01T12:00:00Z"), c.clusters);
    const auto all = Scrape(m);
    for (const char* metric :
         {"fleetwave_application_health", "fleetwave_application_sync_status"}) {
      const auto s = Find(all, metric, {{"application", "a"}});
      ASSERT_EQ(s.size(), 1u) << metric;
      EXPECT_EQ(s[0].labels.at("cluster"), c.want) << metric;
    }
  }
}

// Untrusted shapes read as absent: no throw, states read "Unknown", nameless entries skipped.
TEST(MetricsTest, MalformedStatusAndApplicationsReadAsAbsent) {
  struct Case {
    const char* name;
    Json status;
    std::vector<Json> applications;
  };
  const std::vector<Case> cases = {
      {"status not an object", Json::array({1, 2}), {}},
      {"fields of the wrong type",
       Json{{"applicationStatus", "x"}, {"conditions", 3}, {"rollout", {{"step", "two"}}}},
       {Json{{"metadata", {{"name", 5}}}}}},
      {"entries of the wrong type",
       Json{{"applicationStatus", Json::array({1, Json{{"application", "a"}, {"status", 7}}})},
            {"conditions", Json::array({Json{{"type", "X"}, {"status", true}}})}},
       {Json{{"metadata", {{"name", "a"}}}, {"status", {{"health", "bad"}}}}, Json("string")}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Metrics m;
    EXPECT_NO_THROW(m.AppSetObserved("s", c.status, c.applications, At("2026-03-01T12:00:00Z")));
    const auto all = Scrape(m);
    for (const auto& s : Find(all, "fleetwave_application_health")) {
      EXPECT_EQ(s.labels.at("health"), "Unknown");
    }
    for (const auto& s : Find(all, "fleetwave_application_rollout_status")) {
      EXPECT_EQ(s.labels.at("status"), "Unknown");
    }
    auto step = Find(all, "fleetwave_applicationset_rollout_step");
    ASSERT_EQ(step.size(), 1u);
    EXPECT_EQ(step[0].value, 0);
  }
}

// State sets: after each transition exactly one series of the identity exists, the new one.
TEST(MetricsTest, StateSetTransitionsDeleteTheOldSeries) {
  struct Case {
    const char* name;
    const char* metric;
    std::map<std::string, std::string> identity;
    std::string state_label;
    std::string before, after;
    std::function<void(Metrics&, const std::string& state)> apply;
  };
  auto observe_app = [](const std::string& health, const std::string& sync,
                        const std::string& rollout, const std::string& cluster) {
    return [=](Metrics& m) {
      m.AppSetObserved("web",
                       Status(Json::array({Entry("a", rollout, "2026-03-01T12:00:00Z")}),
                              Json::array(), Json::object()),
                       {App("a", cluster, health, sync)}, At("2026-03-01T12:00:00Z"));
    };
  };
  const std::vector<Case> cases = {
      {"application health",
       "fleetwave_application_health",
       {{"appset", "web"}, {"application", "a"}},
       "health",
       "Progressing",
       "Healthy",
       [&](Metrics& m, const std::string& s) { observe_app(s, "Synced", "Healthy", "east")(m); }},
      {"application sync status",
       "fleetwave_application_sync_status",
       {{"appset", "web"}, {"application", "a"}},
       "status",
       "OutOfSync",
       "Synced",
       [&](Metrics& m, const std::string& s) { observe_app("Healthy", s, "Healthy", "east")(m); }},
      {"application rollout status",
       "fleetwave_application_rollout_status",
       {{"appset", "web"}, {"application", "a"}},
       "status",
       "Pending",
       "Progressing",
       [&](Metrics& m, const std::string& s) { observe_app("Healthy", "Synced", s, "east")(m); }},
      {"application moved to another cluster",
       "fleetwave_application_health",
       {{"appset", "web"}, {"application", "a"}},
       "cluster",
       "east",
       "west",
       [&](Metrics& m, const std::string& s) {
         observe_app("Healthy", "Synced", "Healthy", s)(m);
       }},
      {"appset condition reason",
       "fleetwave_applicationset_condition",
       {{"appset", "web"}, {"type", "RolloutProgressing"}},
       "reason",
       "ApplicationSetModified",
       "ProgressDeadlineExceeded",
       [](Metrics& m, const std::string& s) {
         m.AppSetObserved(
             "web",
             Status(Json::array(), Json::array({Condition("RolloutProgressing", "False", s)}),
                    Json::object()),
             {}, At("2026-03-01T12:00:00Z"));
       }},
      {"appset condition status",
       "fleetwave_applicationset_condition",
       {{"appset", "web"}, {"type", "ErrorOccurred"}},
       "status",
       "True",
       "False",
       [](Metrics& m, const std::string& s) {
         m.AppSetObserved("web",
                          Status(Json::array(), Json::array({Condition("ErrorOccurred", s, "R")}),
                                 Json::object()),
                          {}, At("2026-03-01T12:00:00Z"));
       }},
      {"workload progressing reason",
       "fleetwave_workload_progressing",
       {{"cluster", "east"}, {"namespace", "ns"}, {"kind", "Deployment"}, {"name", "web"}},
       "reason",
       "ReplicaSetUpdated",
       "NewReplicaSetAvailable",
       [](Metrics& m, const std::string& s) {
         m.WorkloadCondition({"east", "ns", "Deployment", "web"}, s, false);
       }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Metrics m;
    c.apply(m, c.before);
    auto before = Find(Scrape(m), c.metric, c.identity);
    ASSERT_EQ(before.size(), 1u);
    EXPECT_EQ(before[0].labels.at(c.state_label), c.before);
    EXPECT_EQ(before[0].value, 1);
    c.apply(m, c.after);
    auto after = Find(Scrape(m), c.metric, c.identity);
    ASSERT_EQ(after.size(), 1u) << "the old state's series must be deleted";
    EXPECT_EQ(after[0].labels.at(c.state_label), c.after);
    EXPECT_EQ(after[0].value, 1);
    c.apply(m, c.after);  // unchanged: still exactly one
    EXPECT_EQ(Find(Scrape(m), c.metric, c.identity).size(), 1u);
  }
}

TEST(MetricsTest, WorkloadDeadlineGaugeFollowsTheCondition) {
  Metrics m;
  const WorkloadId w{"east", "ns", "CloneSet", "web"};
  m.WorkloadCondition(w, "ProgressDeadlineExceeded", true);
  auto s = Find(Scrape(m), "fleetwave_workload_progress_deadline_exceeded", {{"name", "web"}});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].value, 1);
  m.WorkloadCondition(w, "", false);
  const auto all = Scrape(m);
  s = Find(all, "fleetwave_workload_progress_deadline_exceeded", {{"name", "web"}});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].value, 0);
  auto p = Find(all, "fleetwave_workload_progressing", {{"name", "web"}});
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].labels.at("reason"), "Unknown");
}

// A watched object: workload kinds are reported from their Progressing condition, others ignored.
TEST(MetricsTest, WorkloadObservedReadsTheProgressingCondition) {
  struct Case {
    const char* name;
    Json object;
    bool reported;
    std::string kind, reason;
    double exceeded;
  };
  auto workload = [](const char* api_version, const char* kind, Json conditions) {
    return Json{{"apiVersion", api_version},
                {"kind", kind},
                {"metadata", {{"name", "web"}, {"namespace", "shop"}}},
                {"status", {{"conditions", std::move(conditions)}}}};
  };
  const std::vector<Case> cases = {
      {"CloneSet past its deadline",
       workload("apps.kruise.io/v1alpha1", "CloneSet",
                Json::array({{{"type", "Ready"}, {"reason", "x"}},
                             {{"type", "Progressing"},
                              {"status", "False"},
                              {"reason", "ProgressDeadlineExceeded"}}})),
       true, "CloneSet", "ProgressDeadlineExceeded", 1},
      {"Deployment progressing",
       workload(
           "apps/v1", "Deployment",
           Json::array(
               {{{"type", "Progressing"}, {"status", "True"}, {"reason", "ReplicaSetUpdated"}}})),
       true, "Deployment", "ReplicaSetUpdated", 0},
      {"StatefulSet without conditions", workload("apps/v1", "StatefulSet", Json::array()), true,
       "StatefulSet", "Unknown", 0},
      {"malformed conditions", workload("apps/v1", "DaemonSet", Json("broken")), true, "DaemonSet",
       "Unknown", 0},
      {"not a workload", workload("v1", "ConfigMap", Json::array()), false, "", "", 0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Metrics m;
    EXPECT_EQ(m.WorkloadObserved("east", c.object), c.reported);
    const auto all = Scrape(m);
    const auto exceeded = Find(all, "fleetwave_workload_progress_deadline_exceeded");
    const auto progressing = Find(all, "fleetwave_workload_progressing");
    if (!c.reported) {
      EXPECT_TRUE(exceeded.empty());
      EXPECT_TRUE(progressing.empty());
      continue;
    }
    ASSERT_EQ(exceeded.size(), 1u);
    EXPECT_EQ(exceeded[0].value, c.exceeded);
    EXPECT_EQ(exceeded[0].labels,
              (std::map<std::string, std::string>{
                  {"cluster", "east"}, {"namespace", "shop"}, {"kind", c.kind}, {"name", "web"}}));
    ASSERT_EQ(progressing.size(), 1u);
    EXPECT_EQ(progressing[0].labels.at("reason"), c.reason);
  }
}

// Everything an app, set, workload or cluster leaves behind is deleted when it goes.
TEST(MetricsTest, RemovedObjectsLeaveNoSeries) {
  auto populate = [](Metrics& m) {
    for (const char* set : {"web", "api"}) {
      m.AppSetObserved(
          set,
          Status(Json::array({Entry("a", "Healthy", "2026-03-01T12:00:00Z"),
                              Entry("b", "Pending", "2026-03-01T12:00:00Z")}),
                 Json::array({Condition("RolloutProgressing", "True", "ApplicationSetModified")}),
                 Json{{"generation", 1}, {"step", 1}, {"stepStartedAt", "2026-03-01T12:00:00Z"}}),
          {App("a", "east", "Healthy", "Synced"), App("b", "west", "Missing", "OutOfSync")},
          At("2026-03-01T12:00:00Z"));
      // A completed step, so the duration histograms have series too.
      m.AppSetObserved(
          set,
          Status(Json::array({Entry("a", "Healthy", "2026-03-01T12:00:00Z"),
                              Entry("b", "Pending", "2026-03-01T12:10:00Z")}),
                 Json::array({Condition("RolloutProgressing", "True", "ApplicationSetModified")}),
                 Json{{"generation", 1}, {"step", 2}, {"stepStartedAt", "2026-03-01T12:10:00Z"}}),
          {App("a", "east", "Healthy", "Synced"), App("b", "west", "Missing", "OutOfSync")},
          At("2026-03-01T12:10:00Z"));
      m.PendingDeletions(set, 2);
      m.SyncFinished(set, "rollout", "Succeeded");
    }
    for (const char* cluster : {"east", "west"}) {
      m.ClusterState(cluster, true);
      m.ClusterRequest(cluster, "GET", 200, 0.01);
      m.WatchRestart(cluster, "deployments");
      m.WorkloadCondition({cluster, "ns", "Deployment", "web"}, "NewReplicaSetAvailable", false);
      m.WorkloadCondition({cluster, "ns", "Deployment", "api"}, "ReplicaSetUpdated", false);
    }
    m.ConfigReload("/etc/fleetwave/a.yaml", true);
  };
  struct Case {
    const char* name;
    std::function<void(Metrics&)> remove;
    std::function<bool(const Sample&)> gone;   // must match no sample afterwards
    std::function<bool(const Sample&)> stays;  // must still match some sample
  };
  auto label = [](const Sample& s, const char* k, const char* v) {
    auto it = s.labels.find(k);
    return it != s.labels.end() && it->second == v;
  };
  const std::vector<Case> cases = {
      {"appset removed", [](Metrics& m) { m.AppSetRemoved("web"); },
       [&](const Sample& s) { return label(s, "appset", "web"); },
       [&](const Sample& s) { return label(s, "appset", "api"); }},
      {"app no longer generated",
       [](Metrics& m) {
         m.AppSetObserved("web",
                          Status(Json::array({Entry("a", "Healthy", "2026-03-01T12:00:00Z")}),
                                 Json::array(), Json::object()),
                          {App("a", "east", "Healthy", "Synced")}, At("2026-03-01T12:20:00Z"));
       },
       [&](const Sample& s) { return label(s, "appset", "web") && label(s, "application", "b"); },
       [&](const Sample& s) { return label(s, "appset", "api") && label(s, "application", "b"); }},
      {"condition no longer reported",
       [](Metrics& m) {
         m.AppSetObserved("web", Status(Json::array(), Json::array(), Json::object()), {},
                          At("2026-03-01T12:20:00Z"));
       },
       [&](const Sample& s) {
         return s.name == "fleetwave_applicationset_condition" && label(s, "appset", "web");
       },
       [&](const Sample& s) {
         return s.name == "fleetwave_applicationset_condition" && label(s, "appset", "api");
       }},
      {"workload removed",
       [](Metrics& m) {
         m.WorkloadRemoved({"east", "ns", "Deployment", "web"});
       },
       [&](const Sample& s) { return label(s, "cluster", "east") && label(s, "name", "web"); },
       [&](const Sample& s) { return label(s, "cluster", "east") && label(s, "name", "api"); }},
      {"cluster removed", [](Metrics& m) { m.ClusterRemoved("east"); },
       [&](const Sample& s) {
         // The cluster's own and its workloads' series; apps are the sets' (they move).
         return label(s, "cluster", "east") && !s.labels.count("application");
       },
       [&](const Sample& s) { return label(s, "cluster", "west") && s.labels.count("name"); }},
      {"config file removed", [](Metrics& m) { m.ConfigFileRemoved("/etc/fleetwave/a.yaml"); },
       [&](const Sample& s) { return s.name == "fleetwave_config_last_reload_success"; },
       [&](const Sample& s) { return s.name == "fleetwave_build_info"; }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Metrics m;
    populate(m);
    const auto before = Scrape(m);
    ASSERT_TRUE(std::any_of(before.begin(), before.end(), c.gone)) << "nothing to remove";
    c.remove(m);
    const auto after = Scrape(m);
    for (const auto& s : after) EXPECT_FALSE(c.gone(s)) << "left behind: " << s.name;
    EXPECT_TRUE(std::any_of(after.begin(), after.end(), c.stays)) << "removed too much";
  }
}

TEST(MetricsTest, RolloutAndStepDurationsFromTransitions) {
  Metrics m;
  auto observe = [&](long long generation, int step, const char* started, const char* reason,
                     const char* now) {
    Json rollout = Json{{"generation", generation}, {"step", step}};
    if (started) rollout["stepStartedAt"] = started;
    m.AppSetObserved(
        "web",
        Status(Json::array(),
               Json::array({Condition("RolloutProgressing", step ? "True" : "False", reason)}),
               rollout),
        {}, At(now));
  };
  auto sum = [&](const char* metric) {
    auto s = Find(Scrape(m), metric, {{"appset", "web"}});
    return s.empty() ? -1.0 : s[0].value;
  };
  // First sight, mid-rollout (e.g. after a restart): nothing is observed.
  observe(1, 1, "2026-03-01T12:00:00Z", "ApplicationSetModified", "2026-03-01T12:01:00Z");
  observe(1, 0, nullptr, "ApplicationSetRolloutComplete", "2026-03-01T12:02:00Z");
  // Step 1 completed (12:00 -> 12:02); the rollout's start was never seen.
  EXPECT_EQ(sum("fleetwave_rollout_step_duration_seconds_sum"), 120);
  EXPECT_EQ(sum("fleetwave_rollout_step_duration_seconds_count"), 1);
  EXPECT_EQ(sum("fleetwave_rollout_duration_seconds_count"), -1);

  // A full rollout: promoted at 13:00, step 2 at 13:10, complete at 13:30.
  observe(2, 1, "2026-03-01T13:00:00Z", "ApplicationSetModified", "2026-03-01T13:00:00Z");
  observe(2, 1, "2026-03-01T13:00:00Z", "ApplicationSetModified", "2026-03-01T13:05:00Z");
  EXPECT_EQ(sum("fleetwave_rollout_step_duration_seconds_count"), 1);
  observe(2, 2, "2026-03-01T13:10:00Z", "ApplicationSetModified", "2026-03-01T13:10:00Z");
  observe(2, 0, nullptr, "ApplicationSetRolloutComplete", "2026-03-01T13:30:00Z");
  EXPECT_EQ(sum("fleetwave_rollout_step_duration_seconds_count"), 3);
  EXPECT_EQ(sum("fleetwave_rollout_step_duration_seconds_sum"), 120 + 600 + 1200);
  EXPECT_EQ(sum("fleetwave_rollout_duration_seconds_count"), 1);
  EXPECT_EQ(sum("fleetwave_rollout_duration_seconds_sum"), 1800);

  // A new generation interrupting step 2 abandons it: no step observed; the rollout runs on
  // from its first promotion (14:00) to the completion (15:00).
  observe(3, 1, "2026-03-01T14:00:00Z", "ApplicationSetModified", "2026-03-01T14:00:00Z");
  observe(3, 2, "2026-03-01T14:10:00Z", "ApplicationSetModified", "2026-03-01T14:10:00Z");
  observe(4, 1, "2026-03-01T14:20:00Z", "ApplicationSetModified", "2026-03-01T14:20:00Z");
  EXPECT_EQ(sum("fleetwave_rollout_step_duration_seconds_count"), 4);
  observe(4, 0, nullptr, "ApplicationSetRolloutComplete", "2026-03-01T15:00:00Z");
  EXPECT_EQ(sum("fleetwave_rollout_step_duration_seconds_count"), 5);
  EXPECT_EQ(sum("fleetwave_rollout_duration_seconds_count"), 2);
  EXPECT_EQ(sum("fleetwave_rollout_duration_seconds_sum"), 1800 + 3600);

  // Step 0 without the completion reason (the strategy switched to AllAtOnce): not a rollout.
  observe(5, 1, "2026-03-01T16:00:00Z", "ApplicationSetModified", "2026-03-01T16:00:00Z");
  observe(5, 0, nullptr, "ApplicationSetModified", "2026-03-01T16:30:00Z");
  EXPECT_EQ(sum("fleetwave_rollout_duration_seconds_count"), 2);
  EXPECT_EQ(sum("fleetwave_rollout_step_duration_seconds_count"), 5);
}

TEST(MetricsTest, LabelValuesStayInTheirDocumentedSets) {
  Metrics m;
  m.SyncFinished("web", "rollout", "Succeeded");
  m.SyncFinished("web", "manual", "Failed");
  m.SyncFinished("web", "cron", "Exploded");
  m.ClusterRequest("east", "get", 404, 0.2);
  m.ClusterRequest("east", "BREW", 0, 0.2);
  const auto all = Scrape(m);
  EXPECT_EQ(
      Find(all, "fleetwave_syncs_total", {{"trigger", "rollout"}, {"result", "Succeeded"}}).size(),
      1u);
  EXPECT_EQ(
      Find(all, "fleetwave_syncs_total", {{"trigger", "manual"}, {"result", "Failed"}}).size(), 1u);
  EXPECT_EQ(Find(all, "fleetwave_syncs_total", {{"trigger", "other"}, {"result", "other"}}).size(),
            1u);
  EXPECT_EQ(
      Find(all, "fleetwave_cluster_requests_total", {{"verb", "GET"}, {"code", "4xx"}}).size(), 1u);
  EXPECT_EQ(
      Find(all, "fleetwave_cluster_requests_total", {{"verb", "other"}, {"code", "error"}}).size(),
      1u);
  EXPECT_EQ(
      Find(all, "fleetwave_cluster_request_duration_seconds_count", {{"verb", "GET"}})[0].value, 1);
}

// Per cluster, at most 5 (verb, code) pairs and 2 watched resources get their own series;
// the rest are counted, not lost, in the "other" series.
TEST(MetricsTest, ClusterSeriesFoldIntoOtherBeyondTheBudget) {
  Metrics m;
  const std::vector<std::pair<std::string, int>> requests = {
      {"GET", 200},   {"PATCH", 201}, {"PATCH", 200}, {"DELETE", 200}, {"GET", 404},
      {"PATCH", 409}, {"GET", 500},   {"PUT", 200},   {"GET", 0},      {"DELETE", 404}};
  for (const auto& [verb, code] : requests) m.ClusterRequest("east", verb, code, 0.01);
  for (const char* r : {"deployments", "namespaces", "statefulsets", "clonesets"}) {
    m.WatchRestart("east", r);
  }
  const auto all = Scrape(m);
  const auto req = Find(all, "fleetwave_cluster_requests_total", {{"cluster", "east"}});
  EXPECT_EQ(req.size(), 6u);
  double total = 0;
  for (const auto& s : req) total += s.value;
  EXPECT_EQ(total, 10);
  // PATCH 201 and 200 share 2xx: GET/2xx, PATCH/2xx, DELETE/2xx, GET/4xx, PATCH/4xx, then other.
  auto other =
      Find(all, "fleetwave_cluster_requests_total", {{"verb", "other"}, {"code", "other"}});
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0].value, 4);
  const auto watches = Find(all, "fleetwave_watch_restarts_total", {{"cluster", "east"}});
  EXPECT_EQ(watches.size(), 3u);
  EXPECT_EQ(Find(all, "fleetwave_watch_restarts_total", {{"resource", "other"}})[0].value, 2);
  // An existing series keeps counting after the budget is reached.
  m.ClusterRequest("east", "GET", 200, 0.01);
  EXPECT_EQ(
      Find(Scrape(m), "fleetwave_cluster_requests_total", {{"verb", "GET"}, {"code", "2xx"}})[0]
          .value,
      2);
}

// Scrapes run on the exposer's threads while actors update: a state set is never seen in two
// states at once (the old series goes before the new one appears).
TEST(MetricsTest, ConcurrentScrapesNeverSeeTwoStates) {
  Metrics m;
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int i = 0; !stop.load(); ++i) {
      m.WorkloadCondition({"east", "ns", "Deployment", "web"},
                          i % 2 ? "ReplicaSetUpdated" : "NewReplicaSetAvailable", false);
      m.ClusterRequest("east", "GET", 200, 0.01);
    }
  });
  int scrapes = 0, seen = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  while (std::chrono::steady_clock::now() < until || seen == 0) {
    const auto states = Find(Scrape(m), "fleetwave_workload_progressing");
    ASSERT_LE(states.size(), 1u);
    seen += static_cast<int>(states.size());
    ++scrapes;
  }
  stop = true;
  writer.join();
  EXPECT_GT(scrapes, 1);
}

// The product's budget: <= 10 series per app, <= 10 per cluster, <= 5 per workload, at
// 100 clusters and 1,000 apps with busy request and watch traffic.
TEST(MetricsTest, SeriesStayWithinBudgetAt100ClustersAnd1000Apps) {
  Metrics m;
  constexpr int kClusters = 100, kSets = 10, kAppsPerSet = 100;
  const std::vector<std::string> verbs = {"GET", "PATCH", "DELETE", "PUT", "POST"};
  const std::vector<int> codes = {200, 201, 404, 409, 500, 0, 429};
  const std::vector<std::string> resources = {"namespaces", "deployments", "statefulsets",
                                              "daemonsets", "clonesets",   "services"};
  for (int c = 0; c < kClusters; ++c) {
    const std::string cluster = "c" + std::to_string(c);
    m.ClusterState(cluster, c % 7 != 0);
    for (const auto& v : verbs)
      for (int code : codes) m.ClusterRequest(cluster, v, code, 0.05);
    for (const auto& r : resources) m.WatchRestart(cluster, r);
  }
  for (int s = 0; s < kSets; ++s) {
    const std::string set = "set" + std::to_string(s);
    Json entries = Json::array();
    std::vector<Json> apps;
    for (int a = 0; a < kAppsPerSet; ++a) {
      const std::string app = set + "-app" + std::to_string(a);
      const std::string cluster = "c" + std::to_string(a % kClusters);
      entries.push_back(Entry(app, a % 2 ? "Healthy" : "Progressing", "2026-03-01T12:00:00Z"));
      apps.push_back(
          App(app, cluster, a % 3 ? "Healthy" : "Degraded", a % 5 ? "Synced" : "OutOfSync"));
      // Two workloads per app, each through several reasons.
      for (const char* w : {"web", "worker"}) {
        const WorkloadId id{cluster, app, "Deployment", w};
        m.WorkloadCondition(id, "ReplicaSetUpdated", false);
        m.WorkloadCondition(id, "ProgressDeadlineExceeded", true);
      }
    }
    const Json status = Status(
        entries, Json::array({Condition("RolloutProgressing", "True", "ApplicationSetModified")}),
        Json{{"generation", 1}, {"step", 1}, {"stepStartedAt", "2026-03-01T12:00:00Z"}});
    // Every app moves through states: the budget holds after transitions, not only at rest.
    m.AppSetObserved(set, status, apps, At("2026-03-01T12:00:00Z"));
    for (auto& a : apps) a["status"]["health"]["status"] = "Healthy";
    m.AppSetObserved(set, status, apps, At("2026-03-01T12:01:00Z"));
    m.SyncFinished(set, "rollout", "Succeeded");
  }
  const auto all = Scrape(m);

  std::map<std::string, int> per_app, per_cluster, per_workload;
  for (const auto& s : all) {
    if (s.labels.count("application")) {
      ++per_app[s.labels.at("appset") + "/" + s.labels.at("application")];
    } else if (s.labels.count("name") && s.labels.count("cluster")) {
      ++per_workload[s.labels.at("cluster") + "/" + s.labels.at("namespace") + "/" +
                     s.labels.at("kind") + "/" + s.labels.at("name")];
    } else if (s.labels.count("cluster")) {
      ++per_cluster[s.labels.at("cluster")];
    }
  }
  EXPECT_EQ(per_app.size(), 1000u);
  EXPECT_EQ(per_cluster.size(), 100u);
  EXPECT_EQ(per_workload.size(), 2000u);
  auto max_of = [](const std::map<std::string, int>& m) {
    int mx = 0;
    for (const auto& [k, v] : m) mx = std::max(mx, v);
    return mx;
  };
  EXPECT_LE(max_of(per_app), 10);
  EXPECT_LE(max_of(per_cluster), 10);
  EXPECT_LE(max_of(per_workload), 5);
  RecordProperty("series_total", static_cast<int>(all.size()));

  // Everything removed: only what belongs to nothing stays (build info, request histogram).
  for (int s = 0; s < kSets; ++s) m.AppSetRemoved("set" + std::to_string(s));
  for (int c = 0; c < kClusters; ++c) m.ClusterRemoved("c" + std::to_string(c));
  for (const auto& s : Scrape(m)) {
    EXPECT_TRUE(s.labels.count("cluster") == 0 && s.labels.count("appset") == 0) << s.name;
  }
}

TEST(MetricsTest, ReportedDriftIsOneSeriesPerAppAndCorrectionsAreCounted) {
  Metrics m;
  m.AppSetDrift("web", {"web-east", "web-west"}, 0);
  auto samples = Scrape(m);
  EXPECT_EQ(Find(samples, "fleetwave_app_drifted").size(), 2u);
  EXPECT_EQ(Find(samples, "fleetwave_app_drifted", {{"appset", "web"}, {"application", "web-east"}})
                .at(0)
                .value,
            1);
  EXPECT_EQ(Find(samples, "fleetwave_drift_corrections_total", {{"appset", "web"}}).at(0).value, 0)
      << "the counter exists from the set's first reconcile";

  m.AppSetDrift("web", {"web-west"}, 2);  // east put back by hand; two healed
  m.AppSetDrift("web", {"web-west"}, 1);
  samples = Scrape(m);
  ASSERT_EQ(Find(samples, "fleetwave_app_drifted").size(), 1u) << "east's series is gone";
  EXPECT_EQ(Find(samples, "fleetwave_app_drifted")[0].labels.at("application"), "web-west");
  EXPECT_EQ(Find(samples, "fleetwave_drift_corrections_total", {{"appset", "web"}}).at(0).value, 3);

  m.AppSetRemoved("web");
  samples = Scrape(m);
  EXPECT_TRUE(Find(samples, "fleetwave_app_drifted").empty());
  EXPECT_TRUE(Find(samples, "fleetwave_drift_corrections_total").empty());
}

}  // namespace
}  // namespace fleetwave::metrics
