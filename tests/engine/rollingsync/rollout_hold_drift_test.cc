// Drift while a rollout is held (issue 29). A set that heals drift (selfHeal, issue 32) sends an
// app whose live objects another tool changed back to Waiting, which starts a new rollout
// generation; but an operator's abort and a failed step's halt hold the revision until a new
// revision or a resume, and drift must not undo them. Drift found while held is reported (the
// app stays Healthy, listed in `drifted`) and not synced; the hold and the generation stay. The
// first decision after a resume heals it; a new commit rolls every app out. Every decision goes
// through both deciders, the tracker kept across them (kept_deciders.h).
#include <string>
#include <vector>

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

// How the rollout comes to be held.
struct Hold {
  const char* name;
  std::vector<std::string> health;  // a, b, c's live health when the rollout is held
  bool abort;                       // an operator's abort; otherwise step 1 fails (maxFailures 0)
  const char* reason;               // RolloutProgressing's reason while held
};

const Hold kHolds[] = {
    {"Abort", {"Healthy", "Healthy", "Progressing"}, true, "RolloutAborted"},
    {"FailedStepHalt", {"Healthy", "Healthy", "Degraded"}, false, "RolloutFailed"},
};

// Step 1 = a, b, c, synced by this rollout (entries Progressing, live Synced at r1), with
// maxFailures 0; step 2 = d, Waiting. The set heals drift.
PlanScenario HealingSet(const Hold& hold) {
  PlanScenario s{
      RollingSet({StepIn("step", {"1"}), StepIn("step", {"2"})}),
      {Live("a", "1", "Synced", hold.health[0]), Live("b", "1", "Synced", hold.health[1]),
       Live("c", "1", "Synced", hold.health[2]), Live("d", "2", "OutOfSync")}};
  s.set.drift_policy = "heal";
  s.set.strategy.steps[0].max_failures = Int(0);
  s.Entries({Entry("a", S::kProgressing, "1"), Entry("b", S::kProgressing, "1"),
             Entry("c", S::kProgressing, "1"), Entry("d", S::kWaiting, "2")});
  RolloutState st;
  st.generation = 1;
  st.step = 1;
  st.step_started_at = T("2026-03-01T11:50:00Z");
  s.Rollout(st);
  return s;
}

// Decides once, holds the rollout as `hold` says, then a's live objects drift (OutOfSync at its
// pinned revision r1). Returns the first decision after the drift; `held` the one before it.
PlanResult HeldThenDrifted(KeptDeciders& k, const Hold& hold, PlanResult& held) {
  held = k.Decide(kNow);
  if (hold.abort) {
    k.Abort(kNow + seconds(10), "10.0.0.7:51000");
    held = k.Decide(kNow + seconds(10));
  }
  EXPECT_EQ(ConditionOf(held, "RolloutProgressing").reason, hold.reason)
      << "the scenario must hold the rollout before the drift";
  EXPECT_EQ(EntryOf(held, "a").status, S::kHealthy);
  k.scenario().App("a").sync_status = "OutOfSync";
  k.scenario().App("a").reconciled_at = kNow + seconds(30);
  return k.Decide(kNow + seconds(30));
}

TEST(DriftWhileHeld, IsReportedNotSyncedAndTheHoldAndGenerationStay) {
  for (const Hold& hold : kHolds) {
    SCOPED_TRACE(hold.name);
    KeptDeciders k(HealingSet(hold));
    PlanResult held;
    PlanResult r = HeldThenDrifted(k, hold, held);
    // A poll later finds the same drift: still only reported.
    for (int poll = 0; poll < 2; ++poll) {
      SCOPED_TRACE(poll == 0 ? "the decision after the drift" : "a later poll");
      EXPECT_EQ(r.drifted, std::vector<std::string>{"a"});
      EXPECT_TRUE(r.healed.empty());
      EXPECT_EQ(EntryOf(r, "a").status, S::kHealthy);
      EXPECT_EQ(EntryOf(r, "d").status, S::kWaiting);
      EXPECT_TRUE(r.apps_to_sync.empty());
      EXPECT_EQ(r.rollout->generation, held.rollout->generation);
      EXPECT_EQ(r.rollout->aborted, hold.abort);
      EXPECT_EQ(r.rollout->failed_step, hold.abort ? 0 : 1);
      EXPECT_EQ(ConditionOf(r, "RolloutProgressing").reason, hold.reason);
      r = k.Decide(kNow + seconds(90));
    }
  }
}

TEST(DriftWhileHeld, AResumeHealsTheDriftInStepOrder) {
  for (const Hold& hold : kHolds) {
    SCOPED_TRACE(hold.name);
    KeptDeciders k(HealingSet(hold));
    PlanResult held;
    HeldThenDrifted(k, hold, held);
    k.scenario().App("c").health_status = "Healthy";  // the failed (or running) app recovers
    k.Decide(kNow + seconds(60));
    k.Resume(kNow + seconds(90));
    const PlanResult r = k.Decide(kNow + seconds(90));
    EXPECT_FALSE(r.rollout->aborted);
    EXPECT_EQ(r.rollout->failed_step, 0);
    EXPECT_EQ(r.healed, std::vector<std::string>{"a"});
    EXPECT_TRUE(r.drifted.empty());
    EXPECT_EQ(r.rollout->step, 1) << "a's step holds the rollout until a is synced again";
    EXPECT_EQ(EntryOf(r, "a").status, S::kPending);
    EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"a"});
    EXPECT_EQ(EntryOf(r, "d").status, S::kWaiting);
  }
}

TEST(DriftWhileHeld, ANewCommitClearsTheHoldAndRollsEveryAppOut) {
  for (const Hold& hold : kHolds) {
    SCOPED_TRACE(hold.name);
    KeptDeciders k(HealingSet(hold));
    PlanResult held;
    HeldThenDrifted(k, hold, held);
    for (auto& a : k.scenario().live) {
      a.revisions = {"r2"};
      a.sync_status = "OutOfSync";
      a.reconciled_at = kNow + seconds(60);
    }
    const PlanResult r = k.Decide(kNow + seconds(60));
    EXPECT_FALSE(r.rollout->aborted);
    EXPECT_EQ(r.rollout->failed_step, 0);
    EXPECT_EQ(r.rollout->generation, held.rollout->generation + 1);
    EXPECT_EQ(r.apps_to_sync, (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(ConditionOf(r, "RolloutProgressing").reason, "ApplicationSetModified");
  }
}

}  // namespace
}  // namespace fleetwave::engine
