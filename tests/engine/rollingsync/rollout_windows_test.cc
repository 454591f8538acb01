// Sync windows in a RollingSync rollout (engine/rollingsync/rollout_windows.h, issue 29) as tables,
// each decision through both deciders (PlanChecked: Plan and a tracker loaded from the same stored
// status; KeptDeciders: a tracker kept across decisions, whose window clock moves on at the
// window's edges): a deny window holds the next syncs and shows in SyncWindowHold, an app
// already syncing goes on, lifting the window resumes, and the decision returns the next edge.
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "engine/appset/app_project.h"
#include "engine/rollingsync/rollout_plan.h"
#include "engine/rollingsync/rollout_windows.h"
#include "tests/engine/rollingsync/builders.h"
#include "tests/engine/rollingsync/kept_deciders.h"
#include "tests/engine/rollingsync/plan_scenario.h"

namespace fleetwave::engine {
namespace {

using namespace testing_builders;
using S = RolloutAppState;
using std::chrono::seconds;

SyncWindow Window(bool deny, const char* schedule, long long secs, const char* duration) {
  SyncWindow w;
  w.deny = deny;
  w.schedule_text = schedule;
  std::string why;
  w.schedule = *ParseCron(schedule, &why);
  w.duration_seconds = secs;
  w.duration_text = duration;
  w.clusters = {"https://prod-*"};
  return w;
}

std::shared_ptr<const AppProjects> Prod(std::vector<SyncWindow> windows) {
  auto projects = std::make_shared<AppProjects>();
  AppProject p;
  p.name = "prod";
  p.file = "projects.yaml";
  p.sync_windows = std::move(windows);
  projects->projects.push_back(std::move(p));
  return projects;
}

Application OnCluster(Application a, const std::string& server) {
  a.spec["project"] = "prod";
  a.spec["destination"] = {{"server", server}, {"namespace", "web"}};
  return a;
}

// Step 1 = a (done, staging); step 2 = b, c on prod clusters and d on staging, all Waiting.
PlanScenario TwoSteps(std::vector<SyncWindow> windows) {
  PlanScenario s{RollingSet({StepIn("step", {"1"}), StepIn("step", {"2"})}),
                 {OnCluster(Live("a", "1"), "https://staging"),
                  OnCluster(Live("b", "2", "OutOfSync"), "https://prod-1"),
                  OnCluster(Live("c", "2", "OutOfSync"), "https://prod-2"),
                  OnCluster(Live("d", "2", "OutOfSync"), "https://staging")}};
  s.set.projects = Prod(std::move(windows));
  s.Entries({Entry("a", S::kHealthy, "1"), Entry("b", S::kWaiting, "2"),
             Entry("c", S::kWaiting, "2"), Entry("d", S::kWaiting, "2")});
  RolloutState st;
  st.generation = 1;
  st.step = 2;
  st.step_started_at = T("2026-03-01T11:50:00Z");
  s.Rollout(st);
  return s;
}

const char* kDenyHeld =
    "ApplicationSet rollout step 2: 2 applications held (b: sync window deny '0 12 * * *' 1h "
    "(UTC) of project 'prod' is active)";

bool HasCondition(const PlanResult& r, const std::string& type) {
  for (const auto& c : r.conditions) {
    if (c.type == type) return true;
  }
  return false;
}

TEST(RolloutSyncWindows, AnActiveDenyWindowHoldsTheNextSyncsOfTheAppsItAppliesTo) {
  const PlanScenario s = TwoSteps({Window(true, "0 12 * * *", 3600, "1h")});
  const PlanResult r = s.Run(T("2026-03-01T12:00:30Z"));
  EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"d"}) << "staging is outside the window";
  EXPECT_EQ(EntryOf(r, "b").status, S::kWaiting);
  EXPECT_EQ(EntryOf(r, "c").status, S::kWaiting);
  EXPECT_EQ(EntryOf(r, "d").status, S::kPending);
  EXPECT_EQ(r.rollout->step, 2);
  const AppSetCondition& held = ConditionOf(r, kSyncWindowHoldCondition);
  EXPECT_EQ(held.status, "True");
  EXPECT_EQ(held.reason, "SyncWindowDenied");
  EXPECT_EQ(held.message, kDenyHeld);
  ASSERT_TRUE(r.window_edge_at);
  EXPECT_EQ(FormatRfc3339(*r.window_edge_at), "2026-03-01T13:00:00Z") << "the window's end";
}

TEST(RolloutSyncWindows, OutsideTheWindowNothingIsHeld) {
  const PlanScenario s = TwoSteps({Window(true, "0 12 * * *", 3600, "1h")});
  const PlanResult r = s.Run(T("2026-03-01T13:00:00Z"));
  EXPECT_EQ(r.apps_to_sync, (std::vector<std::string>{"b", "c", "d"}));
  EXPECT_FALSE(HasCondition(r, kSyncWindowHoldCondition));
  ASSERT_TRUE(r.window_edge_at);
  EXPECT_EQ(FormatRfc3339(*r.window_edge_at), "2026-03-02T12:00:00Z") << "its next start";
}

TEST(RolloutSyncWindows, AllowWindowsAllowOnlyWhileOneIsActive) {
  PlanScenario s = TwoSteps({Window(false, "0 2 * * *", 7200, "2h")});
  PlanResult r = s.Run(T("2026-03-01T12:00:00Z"));
  EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"d"});
  EXPECT_EQ(ConditionOf(r, kSyncWindowHoldCondition).message,
            "ApplicationSet rollout step 2: 2 applications held (b: no allow sync window of "
            "project 'prod' is active (allow '0 2 * * *' 2h (UTC)))");
  r = s.Run(T("2026-03-02T03:00:00Z"));
  EXPECT_EQ(r.apps_to_sync, (std::vector<std::string>{"b", "c", "d"}));
}

TEST(RolloutSyncWindows, AHeldPendingAppIsNotListedAndAProgressingOneGoesOn) {
  PlanScenario s = TwoSteps({Window(true, "0 12 * * *", 3600, "1h")});
  s.App("c").operation_state = OperationState{"Running", T("2026-03-01T11:56:00Z"), Json::object()};
  s.Entries({Entry("a", S::kHealthy, "1"), Entry("b", S::kPending, "2"),
             Entry("c", S::kProgressing, "2"), Entry("d", S::kWaiting, "2")});
  const PlanResult r = s.Run(T("2026-03-01T12:10:00Z"));
  EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"d"});
  EXPECT_EQ(EntryOf(r, "b").status, S::kPending);
  EXPECT_EQ(EntryOf(r, "c").status, S::kProgressing) << "an app already syncing finishes";
  EXPECT_EQ(ConditionOf(r, kSyncWindowHoldCondition).message,
            "ApplicationSet rollout step 2: 1 application held (b: sync window deny '0 12 * * *' "
            "1h (UTC) of project 'prod' is active)");
}

TEST(RolloutSyncWindows, WithoutProjectsOrWindowsNothingChanges) {
  PlanScenario s = TwoSteps({});
  PlanResult r = s.Run(T("2026-03-01T12:00:30Z"));
  EXPECT_EQ(r.apps_to_sync, (std::vector<std::string>{"b", "c", "d"}));
  EXPECT_FALSE(r.window_edge_at);
  s.set.projects = nullptr;
  r = s.Run(T("2026-03-01T12:00:30Z"));
  EXPECT_EQ(r.apps_to_sync, (std::vector<std::string>{"b", "c", "d"}));
  EXPECT_FALSE(HasCondition(r, kSyncWindowHoldCondition));
}

TEST(RolloutSyncWindows, AKeptTrackerHoldsAtTheWindowsStartAndResumesAtItsEnd) {
  // maxUpdate 1: b is promoted before the window; the window starts while b syncs; c waits for
  // the window's end; d (staging) is never held.
  PlanScenario s = TwoSteps({Window(true, "0 12 * * *", 3600, "1h")});
  s.set.strategy.steps[1].max_update = Int(1);
  KeptDeciders deciders(s);
  PlanResult r = deciders.Decide(T("2026-03-01T11:59:00Z"));
  EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"b"});
  EXPECT_EQ(FormatRfc3339(*r.window_edge_at), "2026-03-01T12:00:00Z");
  deciders.scenario().App("b").operation_state =
      OperationState{"Running", T("2026-03-01T11:59:00Z"), Json::object()};
  deciders.scenario().App("b").health_status = "Progressing";
  r = deciders.Decide(T("2026-03-01T12:00:00Z"));
  EXPECT_EQ(EntryOf(r, "b").status, S::kProgressing) << "an app already syncing finishes";
  EXPECT_EQ(ConditionOf(r, kSyncWindowHoldCondition).message,
            "ApplicationSet rollout step 2: 1 application held (c: sync window deny '0 12 * * *' "
            "1h (UTC) of project 'prod' is active)");
  deciders.scenario().App("b").operation_state =
      OperationState{"Succeeded", T("2026-03-01T12:01:00Z"), Json::object()};
  deciders.scenario().App("b").sync_status = "Synced";
  deciders.scenario().App("b").health_status = "Healthy";
  r = deciders.Decide(T("2026-03-01T12:10:00Z"));
  EXPECT_EQ(EntryOf(r, "b").status, S::kHealthy);
  EXPECT_EQ(EntryOf(r, "c").status, S::kWaiting) << "held: not promoted";
  EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"d"}) << "the budget goes past held c";
  Application& d = deciders.scenario().App("d");
  d.operation_state = OperationState{"Succeeded", T("2026-03-01T12:11:00Z"), Json::object()};
  d.sync_status = "Synced";
  d.reconciled_at = T("2026-03-01T12:15:00Z");
  r = deciders.Decide(T("2026-03-01T12:20:00Z"));
  EXPECT_EQ(EntryOf(r, "d").status, S::kHealthy);
  EXPECT_TRUE(r.apps_to_sync.empty());
  r = deciders.Decide(T("2026-03-01T13:00:00Z"));
  EXPECT_EQ(EntryOf(r, "c").status, S::kPending);
  EXPECT_FALSE(HasCondition(r, kSyncWindowHoldCondition));
  EXPECT_EQ(FormatRfc3339(*r.window_edge_at), "2026-03-02T12:00:00Z");
}

}  // namespace
}  // namespace fleetwave::engine
