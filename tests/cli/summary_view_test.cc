// `fleetwave get appset NAME` from the set's summary and rows (summary_view.h): hand-written
// output for a small set, and a 2,000-app set that still fits in 40 lines with its two failing
// apps listed first. The summaries and rows are made by the engine's own derivation, as the
// daemon's board makes them.
#include "tools/fleetwave/summary_view.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/appset/app_query.h"
#include "engine/appset/appset_summary.h"

namespace fleetwave::cli {
namespace {

using engine::Json;

Json StepOf(const std::string& env, const Json& max_update = Json()) {
  Json s = {{"matchExpressions", {{{"key", "env"}, {"operator", "In"}, {"values", {env}}}}}};
  if (!max_update.is_null()) s["maxUpdate"] = max_update;
  return s;
}

struct FleetApp {
  std::string name;
  std::string cluster;
  int step;
  std::string rollout;
  std::string health;
  std::string operation;
};

// The state `get appset NAME` reads: the set's summary and its rows, derived from `apps`.
FleetState StateOf(const std::string& set_name, const std::vector<Json>& steps, int current,
                   const std::vector<FleetApp>& apps, const Json& analysis = Json()) {
  Json set = {
      {"metadata", {{"name", set_name}}},
      {"spec", {{"strategy", {{"type", "RollingSync"}, {"rollingSync", {{"steps", steps}}}}}}},
      {"status",
       {{"rollout", {{"step", current}}},
        {"conditions",
         {{{"type", "RolloutProgressing"},
           {"status", "True"},
           {"reason", "ApplicationSetModified"},
           {"message",
            "ApplicationSet is performing rollout of step " + std::to_string(current)}}}}}}};
  if (!analysis.is_null()) set["status"]["rollout"]["analysis"] = analysis;
  std::vector<Json> objects;
  for (const FleetApp& a : apps) {
    set["status"]["applicationStatus"].push_back(
        Json{{"application", a.name}, {"status", a.rollout}, {"step", std::to_string(a.step)}});
    Json app = {{"metadata", {{"name", a.name}}},
                {"spec", {{"destination", {{"name", a.cluster}}}}},
                {"status", {{"health", {{"status", a.health}}}, {"sync", {{"status", "Synced"}}}}}};
    if (!a.operation.empty()) {
      app["status"]["operationState"] = {{"phase", a.operation},
                                         {"message", "one or more objects failed to apply"}};
    }
    objects.push_back(std::move(app));
  }
  std::vector<const Json*> pointers;
  for (const Json& o : objects) pointers.push_back(&o);
  const auto rows = engine::AppRowsOf(set, pointers);
  FleetState state;
  state.collections["summaries"][set_name] = engine::SummaryJson(engine::Summarize(set, rows, 50));
  for (const auto& row : rows) state.collections["rows"][row.name] = engine::AppRowJson(row);
  return state;
}

ViewOptions Plain() { return ViewOptions{false, false, {}}; }

TEST(SummaryViewTest, ASmallSetShowsItsStepsCountsAndCurrentApps) {
  const FleetState state =
      StateOf("guestbook", {StepOf("dev"), StepOf("qa", 1), StepOf("prod", 0)}, 2,
              {{"dev-eu", "dev-eu", 1, "Healthy", "Healthy", ""},
               {"qa-eu", "qa-eu", 2, "Progressing", "Degraded", ""},
               {"qa-us", "qa-us", 2, "Pending", "Healthy", ""},
               {"prod-eu", "prod-eu", 3, "Waiting", "Missing", ""}});
  const View view = AppSetSummaryView(state, "guestbook", Plain());
  EXPECT_EQ(view.text,
            "NAME        STRATEGY      STEP   APPS   STATUS\n"
            "guestbook   RollingSync   2/3    1/4    Progressing\n"
            "\n"
            "STEP   SELECTOR        APPS   PROGRESS       MAXUPDATE    STATE         BREAKDOWN\n"
            "1      env in (dev)    1/1    [##########]   100%         Complete      1 healthy\n"
            "2      env in (qa)     0/2    [----------]   1            Progressing   1 degraded, "
            "1 pending\n"
            "3      env in (prod)   0/1    [----------]   0 (manual)   Waiting       1 waiting\n"
            "\n"
            "Needs attention (1):\n"
            "APPLICATION   CLUSTER   STEP   STATUS     HEALTH     SYNC     MESSAGE\n"
            "qa-eu         qa-eu     2      Degraded   Degraded   Synced\n"
            "\n"
            "Step 2 applications:\n"
            "APPLICATION   CLUSTER   STEP   STATUS     HEALTH     SYNC     MESSAGE\n"
            "qa-eu         qa-eu     2      Degraded   Degraded   Synced\n"
            "qa-us         qa-us     2      Pending    Healthy    Synced\n"
            "\n"
            "ApplicationSet is performing rollout of step 2\n");
  // The lines a watch on a pipe prints: the set, each step, each app.
  ASSERT_GE(view.lines.size(), 8u);
  EXPECT_EQ(view.lines[0].second, "appset guestbook: step 2/3 Progressing, 1/4 apps complete");
  EXPECT_EQ(view.lines[2].second, "step 2 (env in (qa)): 0/2 [----------] maxUpdate 1 Progressing");
  EXPECT_EQ(view.lines[4].second, "app dev-eu (step 1): Healthy Synced on dev-eu, Healthy");
}

// Issue 29: the current step's analysis measurements, from the summary, under the step table.
TEST(SummaryViewTest, TheCurrentStepsAnalysisIsListed) {
  Json qa = StepOf("qa");
  qa["analysis"] = {{"query", "sum(errors)"}, {"successCondition", "< 0.5"}, {"count", 2}};
  const FleetState state = StateOf(
      "guestbook", {StepOf("dev"), qa}, 2, {{"qa-eu", "qa-eu", 2, "Healthy", "Healthy", ""}},
      {{"step", 2},
       {"measurements",
        Json::array({{{"time", "2026-03-01T12:00:00Z"}, {"value", 0.25}, {"passed", true}}})}});
  const View view = AppSetSummaryView(state, "guestbook", Plain());
  EXPECT_NE(view.text.find("\nStep 2 analysis: 1/2 passed, 0 failed; sum(errors) < 0.5\n"
                           "TIME                   VALUE   RESULT   ERROR\n"
                           "2026-03-01T12:00:00Z   0.25    Passed\n"),
            std::string::npos)
      << view.text;
  const FleetState none = StateOf("guestbook", {StepOf("dev"), qa}, 2,
                                  {{"qa-eu", "qa-eu", 2, "Healthy", "Healthy", ""}});
  EXPECT_EQ(AppSetSummaryView(none, "guestbook", Plain()).text.find("analysis"), std::string::npos);
}

TEST(SummaryViewTest, TwoThousandAppsFitInFortyLinesWithTheFailuresFirst) {
  std::vector<Json> steps;
  for (int i = 1; i <= 5; ++i) steps.push_back(StepOf("wave" + std::to_string(i), "10%"));
  std::vector<FleetApp> apps;
  for (int i = 0; i < 2000; ++i) {
    const int step = i / 400 + 1;
    char name[32];
    std::snprintf(name, sizeof(name), "web-c%04d", i);
    const std::string rollout = step < 3 ? "Healthy" : step == 3 ? "Progressing" : "Waiting";
    apps.push_back({name, std::string(name).substr(4), step, rollout,
                    step < 3    ? "Healthy"
                    : step == 3 ? "Progressing"
                                : "Missing",
                    ""});
  }
  apps[1234].operation = "Failed";  // in step 4: its failure shows whatever its step
  apps[877].operation = "Error";    // in step 3
  const View view = AppSetSummaryView(StateOf("web", steps, 3, apps), "web", Plain());
  const size_t lines = static_cast<size_t>(std::count(view.text.begin(), view.text.end(), '\n'));
  EXPECT_LE(lines, 40u) << view.text;
  const size_t attention = view.text.find("Needs attention (2):");
  ASSERT_NE(attention, std::string::npos) << view.text;
  const size_t first = view.text.find("web-c0877", attention);
  const size_t second = view.text.find("web-c1234", attention);
  EXPECT_NE(first, std::string::npos);
  EXPECT_NE(second, std::string::npos);
  EXPECT_LT(first, second);  // both Failed: in name order
  EXPECT_NE(view.text.find("Step 3: 400 applications (fleetwave get appset web --step 3 lists "
                           "them)"),
            std::string::npos)
      << view.text;
  EXPECT_NE(view.text.find("3      env in (wave3)   0/400     [----------]   10%         "
                           "Progressing   1 failed, 399 progressing\n"),
            std::string::npos)
      << view.text;
}

TEST(SummaryViewTest, AMissingSetSaysSo) {
  const View view = AppSetSummaryView(FleetState{}, "nope", Plain());
  EXPECT_EQ(view.text, "applicationset \"nope\" not found\n");
  EXPECT_FALSE(view.found);  // a watch on a pipe waits for it (get_watch.cc)
  EXPECT_TRUE(AppSetSummaryView(StateOf("web", {StepOf("dev")}, 1, {}), "web", Plain()).found);
}

TEST(SummaryViewTest, RowsListTheFilteredApps) {
  FleetState state;
  state.collections["rows"]["a"] =
      Json{{"name", "a"},      {"appset", "web"},         {"cluster", "c1"}, {"step", 2},
           {"status", "Late"}, {"health", "Progressing"}, {"sync", "Synced"}};
  EXPECT_EQ(RowsView(state, Plain()).text,
            "NAME   APPSET   CLUSTER   STEP   STATUS   HEALTH        SYNC\n"
            "a      web      c1        2      Late     Progressing   Synced\n");
}

}  // namespace
}  // namespace fleetwave::cli
