// An operator's abort of a rollout (issue 29: `fleetwave abort SET`): it halts now — nothing is
// promoted, no new sync starts, syncs already running finish — and holds the revision: later
// decisions over the same revision (every poll) keep it held; the next commit (a new
// generation) rolls out again, and so does a resume. Every decision through both deciders, the
// tracker kept across them (kept_deciders.h).
#include <gtest/gtest.h>

#include "engine/rollingsync/rollout_plan.h"
#include "tests/engine/rollingsync/builders.h"
#include "tests/engine/rollingsync/kept_deciders.h"
#include "tests/engine/rollingsync/plan_scenario.h"

namespace fleetwave::engine {
namespace {

using namespace testing_builders;
using S = RolloutAppState;
using std::chrono::seconds;

const Time kNow = kPlanNow;
const std::string kCaller = "10.0.0.7:51000";

// Step 1 = a (its sync running: entry Progressing, live Synced and Progressing) and b (Pending:
// listed to sync, not started); step 2 = c, Waiting.
PlanScenario Mid() {
  PlanScenario s{RollingSet({StepIn("step", {"1"}), StepIn("step", {"2"})}),
                 {Live("a", "1", "Synced", "Progressing"), Live("b", "1", "OutOfSync"),
                  Live("c", "2", "OutOfSync")}};
  s.Entries({Entry("a", S::kProgressing, "1"), Entry("b", S::kPending, "1"),
             Entry("c", S::kWaiting, "2")});
  RolloutState st;
  st.generation = 1;
  st.step = 1;
  st.step_started_at = T("2026-03-01T11:50:00Z");
  s.Rollout(st);
  return s;
}

TEST(Abort, NoNewSyncStartsAndNothingIsPromotedWhileARunningSyncFinishes) {
  KeptDeciders k(Mid());
  PlanResult r = k.Decide(kNow);
  ASSERT_EQ(r.apps_to_sync, std::vector<std::string>{"b"}) << "before the abort b is synced";

  k.Abort(kNow + seconds(10), kCaller);
  r = k.Decide(kNow + seconds(10));
  EXPECT_TRUE(r.apps_to_sync.empty());
  EXPECT_EQ(EntryOf(r, "b").status, S::kPending);
  EXPECT_TRUE(r.rollout->aborted);
  EXPECT_EQ(r.rollout->aborted_by, kCaller);
  const AppSetCondition& p = Progressing(r);
  EXPECT_EQ(p.status, "False");
  EXPECT_EQ(p.reason, "RolloutAborted");
  EXPECT_EQ(p.message,
            "ApplicationSet rollout was aborted at step 1 by 10.0.0.7:51000 at "
            "2026-03-01T12:00:10Z: nothing more is promoted or synced and its revision is held "
            "until a new revision or a resume");

  // a's running sync finishes: its entry follows, nothing else moves.
  k.scenario().App("a").health_status = "Healthy";
  r = k.Decide(kNow + seconds(20));
  EXPECT_EQ(EntryOf(r, "a").status, S::kHealthy);
  EXPECT_TRUE(r.apps_to_sync.empty());
  EXPECT_EQ(EntryOf(r, "c").status, S::kWaiting);
}

TEST(Abort, AStepCompletedByItsRunningSyncsDoesNotOpenTheNext) {
  PlanScenario s{RollingSet({StepIn("step", {"1"}), StepIn("step", {"2"})}),
                 {Live("a", "1", "Synced", "Progressing"), Live("c", "2", "OutOfSync")}};
  s.Entries({Entry("a", S::kProgressing, "1"), Entry("c", S::kWaiting, "2")});
  KeptDeciders k(s);
  k.Decide(kNow);
  k.Abort(kNow + seconds(5), kCaller);
  k.Decide(kNow + seconds(5));
  k.scenario().App("a").health_status = "Healthy";
  const PlanResult r = k.Decide(kNow + seconds(30));
  EXPECT_EQ(EntryOf(r, "a").status, S::kHealthy);
  EXPECT_EQ(EntryOf(r, "c").status, S::kWaiting) << "the abort holds step 2";
  EXPECT_TRUE(r.apps_to_sync.empty());
  EXPECT_EQ(Progressing(r).reason, "RolloutAborted");
}

TEST(Abort, PollsOfTheSameRevisionKeepItHeld) {
  KeptDeciders k(Mid());
  k.Decide(kNow);
  k.Abort(kNow + seconds(10), kCaller);
  PlanResult r = k.Decide(kNow + seconds(10));
  const long long generation = r.rollout->generation;
  for (int poll = 1; poll <= 3; ++poll) {
    // Every poll finds the same commit; the apps are compared again.
    for (auto& a : k.scenario().live) a.reconciled_at = kNow + seconds(10 + 60 * poll);
    r = k.Decide(kNow + seconds(10 + 60 * poll));
    EXPECT_TRUE(r.apps_to_sync.empty()) << "poll " << poll;
    EXPECT_TRUE(r.rollout->aborted);
    EXPECT_EQ(r.rollout->generation, generation);
    EXPECT_EQ(EntryOf(r, "c").status, S::kWaiting);
  }
}

TEST(Abort, TheNextCommitRollsOutAgain) {
  KeptDeciders k(Mid());
  k.Decide(kNow);
  k.Abort(kNow + seconds(10), kCaller);
  PlanResult r = k.Decide(kNow + seconds(10));
  for (auto& a : k.scenario().live) {
    a.revisions = {"r2"};
    a.sync_status = "OutOfSync";
  }
  r = k.Decide(kNow + seconds(60));
  EXPECT_FALSE(r.rollout->aborted);
  EXPECT_FALSE(r.rollout->aborted_at);
  EXPECT_TRUE(r.rollout->aborted_by.empty());
  EXPECT_EQ(r.rollout->generation, 2);
  EXPECT_EQ(r.rollout->step, 1);
  EXPECT_EQ(r.apps_to_sync, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Progressing(r).reason, "ApplicationSetModified");
}

TEST(Abort, AResumeRollsTheHeldRevisionOut) {
  KeptDeciders k(Mid());
  k.Decide(kNow);
  k.Abort(kNow + seconds(10), kCaller);
  k.Decide(kNow + seconds(10));
  k.Resume(kNow + seconds(40));
  const PlanResult r = k.Decide(kNow + seconds(40));
  EXPECT_FALSE(r.rollout->aborted);
  EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"b"});
  EXPECT_EQ(Progressing(r).reason, "ApplicationSetModified");
}

TEST(Abort, IsStoredInStatusRolloutAndReadBack) {
  RolloutState st;
  st.generation = 3;
  st.step = 2;
  AbortRollout(st, T("2026-03-01T12:00:10.700Z"), kCaller);
  const Json j = EncodeRolloutState(st);
  EXPECT_EQ(j["aborted"], true);
  EXPECT_EQ(j["abortedAt"], "2026-03-01T12:00:10Z");
  EXPECT_EQ(j["abortedBy"], kCaller);
  Issues issues;
  EXPECT_EQ(DecodeRolloutState(j, issues), st);
  EXPECT_TRUE(issues.empty());
  // Aborting again changes nothing: the first abort's time and caller stay.
  RolloutState again = st;
  AbortRollout(again, T("2026-03-01T12:30:00Z"), "someone-else");
  EXPECT_EQ(again, st);

  Json wrong = j;
  wrong["abortedBy"] = 7;
  DecodeRolloutState(wrong, issues);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "status.rollout.abortedBy");
}

}  // namespace
}  // namespace fleetwave::engine
