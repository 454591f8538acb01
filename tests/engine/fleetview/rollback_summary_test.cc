// Issue 29: a rollback as the web view's summary and `fleetwave get appset` show it: why, who,
// when, each phase's count and a few named apps, read from status.rollout.rollback.
#include "engine/rollingsync/rollback_summary.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/appset/appset_summary.h"
#include "engine/rollingsync/rollback_state.h"
#include "engine/time.h"
#include "tests/engine/fleetview/fleet_builders.h"

namespace fleetwave::engine {
namespace {

const Time kT0 = *ParseRfc3339("2026-03-01T12:00:00Z");

RollbackApp App(const std::string& name, RollbackAppPhase phase, const std::string& message = "") {
  return RollbackApp{name, 2, {"b2"}, {"a1"}, phase, kT0, message};
}

// A set at step 2 whose rollout holds `rollback`.
Json SetWith(const RollbackState& rollback) {
  Json set = fleetview_testing::RollingSet("web", 2, 2, {});
  set["status"]["rollout"]["rollback"] = EncodeRollbackState(rollback);
  return set;
}

RollbackState AfterStep2Failed() {
  RollbackState r;
  r.reason = kRollbackStepFailed;
  r.failed_step = 2;
  r.started_at = kT0;
  r.apps = {App("web-dev", RollbackAppPhase::kRolledBack),
            App("web-eu", RollbackAppPhase::kSyncing), App("web-us", RollbackAppPhase::kWaiting),
            App("web-ap", RollbackAppPhase::kWaiting),
            App("web-qa", RollbackAppPhase::kFailed, "sync failed: forbidden")};
  r.kept = {"web-new"};
  return r;
}

TEST(RollbackSummaryTest, CountsEachPhaseAndNamesTheFailedAndKeptApps) {
  const Json s = RollbackSummaryOf(SetWith(AfterStep2Failed()));
  EXPECT_EQ(s, Json::parse(R"({
    "reason": "StepFailed", "failedStep": 2, "startedAt": "2026-03-01T12:00:00Z", "total": 5,
    "counts": {"Waiting": 2, "Syncing": 1, "RolledBack": 1, "Failed": 1},
    "failed": [{"application": "web-qa", "message": "sync failed: forbidden"}],
    "kept": ["web-new"], "keptTotal": 1})"));
  EXPECT_EQ(RollbackLine(s),
            "Rollback after step 2 failed, started 2026-03-01T12:00:00Z, in progress: 1 rolled "
            "back, 1 syncing, 2 waiting, 1 failed of 5; kept at their revision: web-new");
}

TEST(RollbackSummaryTest, AnOperatorsFinishedRollbackNamesTheCallerAndTheRevision) {
  RollbackState r;
  r.reason = kRollbackOperator;
  r.by = "alice@10.0.0.7";
  r.to = "v1.4.2";
  r.started_at = kT0;
  r.finished_at = kT0 + std::chrono::minutes(3);
  r.apps = {App("web-dev", RollbackAppPhase::kRolledBack)};
  const Json s = RollbackSummaryOf(SetWith(r));
  EXPECT_EQ(s["by"], "alice@10.0.0.7");
  EXPECT_EQ(s["to"], "v1.4.2");
  EXPECT_EQ(s["finishedAt"], "2026-03-01T12:03:00Z");
  EXPECT_FALSE(s.contains("failedStep"));
  EXPECT_EQ(s["counts"], Json::parse(R"({"Waiting": 0, "Syncing": 0, "RolledBack": 1,
                                         "Failed": 0})"));
  EXPECT_EQ(RollbackLine(s),
            "Rollback by alice@10.0.0.7 to revision v1.4.2, started 2026-03-01T12:00:00Z, "
            "finished 2026-03-01T12:03:00Z: 1 rolled back, 0 syncing, 0 waiting, 0 failed of 1");
}

// A rollback of thousands of apps stays small: the counts cover every app, the names a few.
TEST(RollbackSummaryTest, ALargeRollbackNamesOnlyAFewApps) {
  RollbackState r = AfterStep2Failed();
  r.apps.clear();
  r.kept.clear();
  for (int i = 0; i < 2000; ++i) {
    const std::string name = "web-" + std::to_string(10000 + i);
    r.apps.push_back(App(name, RollbackAppPhase::kFailed, "unreachable"));
    r.kept.push_back(name + "-new");
  }
  const Json s = RollbackSummaryOf(SetWith(r));
  EXPECT_EQ(s["total"], 2000);
  EXPECT_EQ(s["counts"]["Failed"], 2000);
  EXPECT_EQ(s["failed"].size(), kRollbackNamedApps);
  EXPECT_EQ(s["kept"].size(), kRollbackNamedApps);
  EXPECT_EQ(s["keptTotal"], 2000);
  EXPECT_LT(s.dump().size(), 2000u);
  const std::string line = RollbackLine(s);
  EXPECT_NE(line.find("web-10009-new and 1990 more"), std::string::npos) << line;
}

TEST(RollbackSummaryTest, NoneOrOneThatDoesNotDecodeShowsNothing) {
  Json set = fleetview_testing::RollingSet("web", 2, 2, {});
  EXPECT_TRUE(RollbackSummaryOf(set).is_null());
  set["status"]["rollout"]["rollback"] = {{"reason", 7}};
  EXPECT_TRUE(RollbackSummaryOf(set).is_null());
  EXPECT_EQ(RollbackLine(Json()), "");
}

// The web view reads it from the set's summary.
TEST(RollbackSummaryTest, TheSetsSummaryCarriesIt) {
  const Json set = SetWith(AfterStep2Failed());
  const Json summary = SummaryJson(Summarize(set, {}, 10));
  EXPECT_EQ(summary["rollback"], RollbackSummaryOf(set));
  EXPECT_FALSE(SummaryJson(Summarize(fleetview_testing::RollingSet("web", 2, 2, {}), {}, 10))
                   .contains("rollback"));
}

}  // namespace
}  // namespace fleetwave::engine
