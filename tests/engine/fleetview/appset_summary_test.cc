#include "engine/appset/appset_summary.h"

#include <gtest/gtest.h>

#include "tests/engine/fleetview/fleet_builders.h"

namespace fleetwave::engine {
namespace {

using fleetview_testing::App;
using fleetview_testing::AppSpec;
using fleetview_testing::Names;
using fleetview_testing::Pointers;
using fleetview_testing::RollingSet;

constexpr size_t Index(AppDisplayStatus s) { return static_cast<size_t>(s); }

struct Built {
  Json set;
  std::vector<Json> apps;
  std::vector<AppRow> rows;
};

Built Build(const std::string& name, int steps, int current, const std::vector<AppSpec>& specs) {
  Built b;
  b.set = RollingSet(name, steps, current, specs);
  for (const AppSpec& s : specs) b.apps.push_back(App(s));
  b.rows = AppRowsOf(b.set, Pointers(b.apps));
  return b;
}

TEST(AppSetSummaryTest, CountsEachStepByStatusWithAStripOrderedByCluster) {
  const Built b = Build(
      "web", 3, 2,
      {
          {.name = "a-dev", .cluster = "dev", .health = "Healthy", .rollout = "Healthy", .step = 1},
          {.name = "z-eu2",
           .cluster = "eu2",
           .health = "Degraded",
           .rollout = "Progressing",
           .step = 2},
          {.name = "b-eu1",
           .cluster = "eu1",
           .health = "Progressing",
           .rollout = "Progressing",
           .step = 2},
          {.name = "c-us1",
           .cluster = "us1",
           .operation = "Failed",
           .rollout = "Pending",
           .step = 2},
      });
  const AppSetSummary s = Summarize(b.set, b.rows, 10);
  EXPECT_EQ(s.name, "web");
  EXPECT_EQ(s.current_step, 2);
  EXPECT_EQ(s.total, 4u);
  ASSERT_EQ(s.steps.size(), 3u);  // the empty third step is listed too
  EXPECT_EQ(s.steps[0].step, 1);
  EXPECT_EQ(s.steps[0].total, 1u);
  EXPECT_EQ(s.steps[0].counts[Index(AppDisplayStatus::kHealthy)], 1u);
  EXPECT_EQ(s.steps[0].strip, "7");
  EXPECT_EQ(s.steps[1].step, 2);
  EXPECT_EQ(s.steps[1].total, 3u);
  EXPECT_EQ(s.steps[1].counts[Index(AppDisplayStatus::kDegraded)], 1u);
  EXPECT_EQ(s.steps[1].counts[Index(AppDisplayStatus::kProgressing)], 1u);
  EXPECT_EQ(s.steps[1].counts[Index(AppDisplayStatus::kFailed)], 1u);
  EXPECT_EQ(s.steps[1].strip, "410");  // eu1 Progressing, eu2 Degraded, us1 Failed
  EXPECT_EQ(s.steps[2].step, 3);
  EXPECT_EQ(s.steps[2].total, 0u);
  EXPECT_EQ(s.steps[2].strip, "");
  EXPECT_EQ(s.counts[Index(AppDisplayStatus::kHealthy)], 1u);
  // Failed before Degraded, whatever the names say.
  EXPECT_EQ(Names(s.attention), (std::vector<std::string>{"c-us1", "z-eu2"}));
  EXPECT_EQ(s.attention_total, 2u);
}

TEST(AppSetSummaryTest, TheAttentionListIsCappedAndCountsTheRest) {
  std::vector<AppSpec> specs;
  for (int i = 0; i < 7; ++i) {
    specs.push_back({.name = "app-" + std::to_string(i),
                     .cluster = "c" + std::to_string(i),
                     .health = i % 2 ? "Degraded" : "Healthy",
                     .rollout = "Progressing",
                     .step = 1});
  }
  specs.push_back(
      {.name = "app-late", .health = "Progressing", .rollout = "Progressing", .step = 1});
  Built b = Build("web", 1, 1, specs);
  b.set["status"]["rollout"]["stepDeadlineExceeded"] = true;
  b.set["status"]["rollout"]["skipped"] = Json{{"app-0", "rebuilt"}};
  b.rows = AppRowsOf(b.set, Pointers(b.apps));
  const AppSetSummary s = Summarize(b.set, b.rows, 3);
  // Degraded: app-1, 3, 5; Late: app-2, 4, 6, app-late; Skipped: app-0.
  EXPECT_EQ(s.attention_total, 8u);
  EXPECT_EQ(Names(s.attention), (std::vector<std::string>{"app-1", "app-3", "app-5"}));
  EXPECT_EQ(s.counts[Index(AppDisplayStatus::kLate)], 4u);
  EXPECT_EQ(s.counts[Index(AppDisplayStatus::kSkipped)], 1u);
}

TEST(AppSetSummaryTest, AppsNoStepSelectsCollectAfterTheDeclaredSteps) {
  const Built b = Build("web", 2, 1,
                        {{.name = "a", .health = "Healthy", .rollout = "Waiting", .step = -1},
                         {.name = "b", .health = "Healthy", .rollout = "Healthy", .step = 1},
                         {.name = "c", .health = "Healthy", .rollout = "Healthy", .step = 9}});
  const AppSetSummary s = Summarize(b.set, b.rows, 10);
  ASSERT_EQ(s.steps.size(), 3u);
  EXPECT_EQ(s.steps[0].step, 1);
  EXPECT_EQ(s.steps[1].step, 2);
  EXPECT_EQ(s.steps[2].step, 0);
  EXPECT_EQ(s.steps[2].total, 2u);  // "-1" and a step beyond the declared ones
}

TEST(AppSetSummaryTest, ASetWithoutStrategyIsOneGroup) {
  const Built b = Build("api", 0, 0,
                        {{.name = "a", .health = "Healthy", .sync = "Synced"},
                         {.name = "b", .health = "Missing", .sync = "OutOfSync"}});
  const AppSetSummary s = Summarize(b.set, b.rows, 10);
  ASSERT_EQ(s.steps.size(), 1u);
  EXPECT_EQ(s.steps[0].step, 0);
  EXPECT_EQ(s.steps[0].strip, "75");
  EXPECT_EQ(s.rollout_status, "-");
}

TEST(AppSetSummaryTest, JsonCarriesEveryStatusCountAndTheRolloutWord) {
  Built b = Build("web", 1, 1,
                  {{.name = "a",
                    .cluster = "dev",
                    .health = "Degraded",
                    .sync = "Synced",
                    .rollout = "Progressing",
                    .step = 1}});
  b.set["status"]["conditions"] =
      Json::array({Json{{"type", "RolloutProgressing"},
                        {"status", "True"},
                        {"reason", "ApplicationSetModified"},
                        {"message", "ApplicationSet is performing rollout of step 1"}}});
  const Json j = SummaryJson(Summarize(b.set, AppRowsOf(b.set, Pointers(b.apps)), 10));
  EXPECT_EQ(j["kind"], "ApplicationSetSummary");
  EXPECT_EQ(j["metadata"]["name"], "web");
  EXPECT_EQ(j["rollout"]["status"], "Progressing");
  EXPECT_EQ(j["rollout"]["message"], "ApplicationSet is performing rollout of step 1");
  EXPECT_EQ(j["statuses"].size(), kDisplayStatusCount);
  EXPECT_EQ(j["statuses"][1], "Degraded");
  EXPECT_EQ(j["counts"].size(), kDisplayStatusCount);
  EXPECT_EQ(j["counts"]["Degraded"], 1);
  EXPECT_EQ(j["counts"]["Healthy"], 0);
  EXPECT_EQ(j["steps"][0]["strip"], "1");
  EXPECT_EQ(j["attention"][0], (Json{{"name", "a"},
                                     {"appset", "web"},
                                     {"cluster", "dev"},
                                     {"step", 1},
                                     {"status", "Degraded"},
                                     {"health", "Degraded"},
                                     {"sync", "Synced"},
                                     {"rollout", "Progressing"},
                                     {"message", "entry of a"}}));
  EXPECT_EQ(j["attentionTotal"], 1);
}

}  // namespace
}  // namespace fleetwave::engine

// Issue 29: a rollout a sync window holds says so, with SyncWindowHold's message; once the
// hold is gone (or the rollout is not progressing anyway) the usual word stands.
namespace fleetwave::engine {
namespace {

TEST(RolloutStatusWordTest, HeldBySyncWindowWhileItWouldProgress) {
  const Json progressing = {{"type", "RolloutProgressing"},
                            {"status", "True"},
                            {"reason", "ApplicationSetModified"},
                            {"message", "ApplicationSet is performing rollout of step 2"}};
  const Json held = {{"type", "SyncWindowHold"},
                     {"status", "True"},
                     {"reason", "SyncWindowDenied"},
                     {"message", "ApplicationSet rollout step 2: 1 application held (x: ...)"}};
  std::string message;
  EXPECT_EQ(RolloutStatusWord({{"status", {{"conditions", {progressing, held}}}}}, &message),
            "Held by sync window");
  EXPECT_EQ(message, "ApplicationSet rollout step 2: 1 application held (x: ...)");
  EXPECT_EQ(RolloutStatusWord({{"status", {{"conditions", {progressing}}}}}, &message),
            "Progressing");
  Json paused = progressing;
  paused["reason"] = "ApplicationSetPaused";
  EXPECT_EQ(RolloutStatusWord({{"status", {{"conditions", {paused, held}}}}}, &message), "Paused");
}

// Issue 29: an operator's rollback is "Rolled back" with its condition's message.
TEST(RolloutStatusWordTest, AnOperatorsRollbackIsRolledBack) {
  const Json rolled_back = {{"type", "RolloutProgressing"},
                            {"status", "False"},
                            {"reason", "RolloutRolledBack"},
                            {"message", "ApplicationSet rollout was rolled back by alice"}};
  std::string message;
  EXPECT_EQ(RolloutStatusWord({{"status", {{"conditions", {rolled_back}}}}}, &message),
            "Rolled back");
  EXPECT_EQ(message, "ApplicationSet rollout was rolled back by alice");
}

}  // namespace
}  // namespace fleetwave::engine
