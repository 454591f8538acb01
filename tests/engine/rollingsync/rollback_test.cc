// Rollback (issue 29: `onFailure: Rollback` and `fleetwave rollback SET [--to REVISION]`): every
// app the failed rollout synced returns to the revisions it was last Healthy at, last step
// first, within each step's maxUpdate; the failed revision is held against polls; the next
// commit rolls out again. Every decision through both deciders (kept_deciders.h: Plan, the
// oracle, against a tracker kept across decisions, and PlanChecked against one loaded from the
// stored status, as after a restart).
#include <gtest/gtest.h>

#include "engine/rollingsync/rollback.h"
#include "engine/rollingsync/rollout_plan.h"
#include "tests/engine/rollingsync/builders.h"
#include "tests/engine/rollingsync/kept_deciders.h"
#include "tests/engine/rollingsync/plan_scenario.h"

namespace fleetwave::engine {
namespace {

using namespace testing_builders;
using S = RolloutAppState;
using P = RollbackAppPhase;
using std::chrono::seconds;

const Time kNow = kPlanNow;

// Step 1 = a; step 2 = b, c with maxUpdate 1; step 3 = d with a failure budget of 0 (a failed
// app fails the step) and `on_failure`. Generation 1 completed at r1; the apps now resolve to
// r2 (a new commit), their live objects still r1's.
PlanScenario NewCommitOverACompletedRollout(RolloutStep::OnFailure on_failure) {
  RolloutStep step3 = StepIn("step", {"3"});
  step3.max_failures = Int(0);
  step3.on_failure = on_failure;
  PlanScenario s{
      RollingSet({StepIn("step", {"1"}), StepIn("step", {"2"}, Int(1)), step3}),
      {Live("a", "1", "OutOfSync", "Healthy", "r2"), Live("b", "2", "OutOfSync", "Healthy", "r2"),
       Live("c", "2", "OutOfSync", "Healthy", "r2"), Live("d", "3", "OutOfSync", "Healthy", "r2")}};
  s.Entries({Entry("a", S::kHealthy, "1"), Entry("b", S::kHealthy, "2"),
             Entry("c", S::kHealthy, "2"), Entry("d", S::kHealthy, "3")});
  RolloutState st;
  st.generation = 1;
  st.step = 0;
  st.step_started_at = T("2026-03-01T11:00:00Z");
  s.Rollout(st);
  return s;
}

// The app's sync (started at `at`) ended `phase`; its live objects now match its desired
// revision when `in_sync`, with `health`.
void Synced(PlanScenario& s, const std::string& app, Time at, const std::string& health,
            bool in_sync = true, const std::string& phase = "Succeeded") {
  Application& a = s.App(app);
  a.operation_state = OperationState{phase, at, Json::object()};
  a.sync_status = in_sync ? "Synced" : "OutOfSync";
  a.health_status = health;
  a.reconciled_at = at;
}

// The app's sync back, as the last decision `r` listed it, started at `at` and ended `phase`:
// the app runs its earlier revision (OutOfSync with the held one) with `health`.
void SyncedBack(PlanScenario& s, const PlanResult& r, const std::string& app, Time at,
                const std::string& health = "Healthy", const std::string& phase = "Succeeded") {
  for (const auto& back : r.rollback_syncs) {
    if (back.app != app) continue;
    Synced(s, app, at, health, false, phase);
    s.App(app).operation_state->operation = back.operation;
    return;
  }
  ADD_FAILURE() << app << " is not listed to sync back";
}

std::vector<std::string> Apps(const std::vector<RollbackSync>& syncs) {
  std::vector<std::string> out;
  for (const auto& s : syncs) out.push_back(s.app);
  return out;
}

P PhaseOf(const PlanResult& r, const std::string& app) {
  for (const auto& a : r.rollout->rollback->apps) {
    if (a.app == app) return a.phase;
  }
  ADD_FAILURE() << "no rollback app " << app;
  return P::kWaiting;
}

// Rolls generation 2 (r2) through steps 1 and 2 and syncs d, which comes up Degraded: the
// decision at the returned time finds step 3 failed.
Time RollOutUntilStep3Fails(KeptDeciders& k) {
  Time t = kNow;
  PlanResult r = k.Decide(t);
  EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"a"});
  for (const char* app : {"a", "b", "c", "d"}) {
    Synced(k.scenario(), app, t + seconds(1), std::string(app) == "d" ? "Degraded" : "Healthy");
    t += seconds(10);
    r = k.Decide(t);
  }
  EXPECT_EQ(r.rollout->failed_step, 3);
  return t;
}

TEST(Rollback, AFailedStepReturnsEverySyncedAppLastStepFirstWithinMaxUpdate) {
  KeptDeciders k(NewCommitOverACompletedRollout(RolloutStep::OnFailure::kRollback));
  Time t = RollOutUntilStep3Fails(k);
  // The decision that found step 3 failed started the rollback and its first sync back.
  PlanResult r = k.Decide(t);
  ASSERT_TRUE(r.rollout->rollback);
  EXPECT_EQ(r.rollout->rollback->reason, kRollbackStepFailed);
  EXPECT_EQ(r.rollout->rollback->failed_step, 3);
  EXPECT_EQ(r.rollout->rollback->apps.size(), 4u);
  ASSERT_EQ(Apps(r.rollback_syncs), std::vector<std::string>{"d"}) << "last step first";
  EXPECT_EQ(r.rollback_syncs[0].to, std::vector<std::string>{"r1"});
  EXPECT_EQ(r.rollback_syncs[0].operation["sync"]["revision"], "r1");
  EXPECT_EQ(r.rollback_syncs[0].operation["initiatedBy"]["username"], "fleetwave-rollback");
  EXPECT_TRUE(r.apps_to_sync.empty());
  EXPECT_EQ(Progressing(r).reason, "RolloutFailed");
  EXPECT_NE(Progressing(r).message.find("rolling back to each app's last healthy revisions, "
                                        "last step first: 0 of 4 apps returned; syncing back: d"),
            std::string::npos)
      << Progressing(r).message;

  // d is back (Healthy, out of sync with the held r2): step 2 next, one at a time (maxUpdate 1).
  SyncedBack(k.scenario(), r, "d", t + seconds(1));
  t += seconds(10);
  r = k.Decide(t);
  EXPECT_EQ(PhaseOf(r, "d"), P::kRolledBack);
  EXPECT_EQ(Apps(r.rollback_syncs), std::vector<std::string>{"b"});
  SyncedBack(k.scenario(), r, "b", t + seconds(1));
  t += seconds(10);
  r = k.Decide(t);
  EXPECT_EQ(Apps(r.rollback_syncs), std::vector<std::string>{"c"});
  SyncedBack(k.scenario(), r, "c", t + seconds(1));
  t += seconds(10);
  r = k.Decide(t);
  EXPECT_EQ(Apps(r.rollback_syncs), std::vector<std::string>{"a"}) << "step 1 last";
  SyncedBack(k.scenario(), r, "a", t + seconds(1));
  t += seconds(10);
  r = k.Decide(t);
  EXPECT_TRUE(r.rollback_syncs.empty());
  EXPECT_EQ(r.rollout->rollback->finished_at, t);
  EXPECT_NE(Progressing(r).message.find("rolled back to each app's last healthy revisions, last "
                                        "step first: 4 of 4 apps returned. The revision is held "
                                        "until a new commit."),
            std::string::npos)
      << Progressing(r).message;
  EXPECT_TRUE(r.drifted.empty()) << "out of sync with the held revision is the rollback's doing";
}

TEST(Rollback, PollsOfTheHeldRevisionRollNothingOutAndTheNextCommitDoes) {
  KeptDeciders k(NewCommitOverACompletedRollout(RolloutStep::OnFailure::kRollback));
  Time t = RollOutUntilStep3Fails(k);
  PlanResult r = k.Decide(t);
  for (const char* app : {"d", "b", "c", "a"}) {
    SyncedBack(k.scenario(), r, app, t + seconds(1));
    t += seconds(10);
    r = k.Decide(t);
  }
  ASSERT_TRUE(r.rollout->rollback && r.rollout->rollback->finished_at);
  // Polls an hour apart find r2 again: nothing is synced, nothing changes.
  const PlanResult poll = k.Decide(t + seconds(3600));
  EXPECT_TRUE(poll.apps_to_sync.empty());
  EXPECT_TRUE(poll.rollback_syncs.empty());
  EXPECT_EQ(poll.rollout->generation, 2);

  // A new commit (r3): a new generation rolls out from step 1, the rollback's state gone, and
  // a's revision to return to is still r1 (r2 was rolled back, never its healthy revision).
  for (auto& a : k.scenario().live) a.revisions = {"r3"};
  r = k.Decide(t + seconds(3700));
  EXPECT_EQ(r.rollout->generation, 3);
  EXPECT_FALSE(r.rollout->rollback);
  EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"a"});
  EXPECT_EQ(EntryOf(r, "a").previous_healthy_revisions, std::vector<std::string>{"r1"});
  EXPECT_EQ(EntryOf(r, "a").pinned_in_generation, 3);
}

TEST(Rollback, OnlyItsOwnSyncBackReturnsAnAppNotASyncOfTheSameSecond) {
  KeptDeciders k(NewCommitOverACompletedRollout(RolloutStep::OnFailure::kRollback));
  const Time t = RollOutUntilStep3Fails(k);
  // d's rollout sync ends in the very second the rollback began (times have whole seconds):
  // Healthy and Succeeded, it is still not back.
  Synced(k.scenario(), "d", t, "Healthy");
  PlanResult r = k.Decide(t);
  EXPECT_EQ(PhaseOf(r, "d"), P::kSyncing);
  EXPECT_EQ(Apps(r.rollback_syncs), std::vector<std::string>{"d"}) << "still to sync back";
  SyncedBack(k.scenario(), r, "d", t);
  r = k.Decide(t + seconds(1));
  EXPECT_EQ(PhaseOf(r, "d"), P::kRolledBack);
}

TEST(Rollback, HaltIsTheDefaultAndRollsNothingBack) {
  KeptDeciders k(NewCommitOverACompletedRollout(RolloutStep::OnFailure::kHalt));
  const Time t = RollOutUntilStep3Fails(k);
  const PlanResult r = k.Decide(t + seconds(10));
  EXPECT_FALSE(r.rollout->rollback);
  EXPECT_TRUE(r.rollback_syncs.empty());
  EXPECT_EQ(Progressing(r).reason, "RolloutFailed");
}

TEST(Rollback, AFailedSyncBackFailsThatAppAndTheRollbackGoesOn) {
  KeptDeciders k(NewCommitOverACompletedRollout(RolloutStep::OnFailure::kRollback));
  Time t = RollOutUntilStep3Fails(k);
  PlanResult listed = k.Decide(t);
  SyncedBack(k.scenario(), listed, "d", t + seconds(1), "Degraded", "Failed");
  t += seconds(10);
  const PlanResult r = k.Decide(t);
  EXPECT_EQ(PhaseOf(r, "d"), P::kFailed);
  EXPECT_EQ(Apps(r.rollback_syncs), std::vector<std::string>{"b"});
  EXPECT_NE(Progressing(r).message.find("failed: d"), std::string::npos) << Progressing(r).message;
}

// Generation 2 completed: every app Healthy at r2, each remembering r1.
PlanScenario CompletedAtR2() {
  PlanScenario s = NewCommitOverACompletedRollout(RolloutStep::OnFailure::kHalt);
  s.set.strategy.steps[2].max_failures.reset();
  std::vector<AppRolloutStatus> entries;
  for (const char* app : {"a", "b", "c", "d"}) {
    const std::string step = app == std::string("a") ? "1" : app == std::string("d") ? "3" : "2";
    AppRolloutStatus e = Entry(app, S::kHealthy, step, "r2");
    e.previous_healthy_revisions = {"r1"};
    e.pinned_in_generation = 2;
    entries.push_back(e);
    s.App(app).sync_status = "Synced";
  }
  s.Entries(entries);
  RolloutState st;
  st.generation = 2;
  s.Rollout(st);
  return s;
}

TEST(Rollback, AnOperatorRollsACompletedRolloutBackToItsLastHealthyRevisions) {
  KeptDeciders k(CompletedAtR2());
  PlanResult r = k.Decide(kNow);
  EXPECT_EQ(Progressing(r).reason, "ApplicationSetRolloutComplete");
  k.Rollback(kNow + seconds(5), "alice");
  r = k.Decide(kNow + seconds(5));
  ASSERT_TRUE(r.rollout->rollback);
  EXPECT_FALSE(r.rollout->rollback_requested);
  EXPECT_EQ(r.rollout->rollback->reason, kRollbackOperator);
  EXPECT_EQ(r.rollout->rollback->by, "alice");
  EXPECT_EQ(Apps(r.rollback_syncs), std::vector<std::string>{"d"});
  EXPECT_EQ(r.rollback_syncs[0].operation["initiatedBy"]["username"], "alice");
  EXPECT_EQ(Progressing(r).reason, "RolloutRolledBack");
  EXPECT_EQ(Progressing(r).message,
            "rolling back by alice to each app's last healthy revisions, last step first: 0 of 4 "
            "apps returned; syncing back: d. The revision is held until a new commit.");
}

TEST(Rollback, ToARevisionSendsEverySyncedAppThere) {
  KeptDeciders k(CompletedAtR2());
  k.Decide(kNow);
  k.Rollback(kNow + seconds(5), "alice", "v1.4.0");
  const PlanResult r = k.Decide(kNow + seconds(5));
  ASSERT_TRUE(r.rollout->rollback);
  for (const auto& a : r.rollout->rollback->apps) {
    EXPECT_EQ(a.to, std::vector<std::string>{"v1.4.0"}) << a.app;
  }
  EXPECT_EQ(r.rollback_syncs.at(0).operation["sync"]["revision"], "v1.4.0");
}

TEST(Rollback, OnlyAppsThisGenerationSyncedGoBackAndThoseWithNothingToReturnToAreKept) {
  PlanScenario s = CompletedAtR2();
  std::vector<AppRolloutStatus> entries;
  // a: pinned by an earlier generation (r2 came with generation 1): not this rollout's.
  AppRolloutStatus a = Entry("a", S::kHealthy, "1", "r2");
  a.previous_healthy_revisions = {"r1"};
  a.pinned_in_generation = 1;
  // b: this generation's first revision (never Healthy before): nothing to return to.
  AppRolloutStatus b = Entry("b", S::kHealthy, "2", "r2");
  b.pinned_in_generation = 2;
  // c: this generation's, not synced yet.
  AppRolloutStatus c = Entry("c", S::kWaiting, "2", "r2");
  c.previous_healthy_revisions = {"r1"};
  c.pinned_in_generation = 2;
  // d: this generation's, synced.
  AppRolloutStatus d = Entry("d", S::kProgressing, "3", "r2");
  d.previous_healthy_revisions = {"r1"};
  d.pinned_in_generation = 2;
  s.Entries({a, b, c, d});
  s.App("c").sync_status = "OutOfSync";
  RolloutState st;
  st.generation = 2;
  st.step = 2;
  st.step_started_at = T("2026-03-01T11:50:00Z");
  s.Rollout(st);
  KeptDeciders k(s);
  k.Rollback(kNow, "alice");
  const PlanResult r = k.Decide(kNow);
  ASSERT_TRUE(r.rollout->rollback);
  ASSERT_EQ(r.rollout->rollback->apps.size(), 1u);
  EXPECT_EQ(r.rollout->rollback->apps[0].app, "d");
  EXPECT_EQ(r.rollout->rollback->kept, std::vector<std::string>{"b"});
  EXPECT_TRUE(r.apps_to_sync.empty()) << "the rollback holds the rollout";
}

TEST(Rollback, ANewRevisionRemembersTheLastHealthyOneAndCarriesItOverAnUnfinishedPin) {
  Application live = Live("a", "1", "OutOfSync", "Healthy", "r2");
  AppRolloutStatus healthy = Entry("a", S::kHealthy, "1", "r1");
  AppStatusUpdate u = UpdateAppRolloutStatus(&healthy, live, false, "1", kNow, false, {5, false});
  EXPECT_EQ(u.entry.previous_healthy_revisions, std::vector<std::string>{"r1"});
  EXPECT_EQ(u.entry.pinned_in_generation, 5);

  // r2 never became Healthy; r3 arrives: r1 is still what a rollback returns to.
  AppRolloutStatus waiting = u.entry;
  live.revisions = {"r3"};
  u = UpdateAppRolloutStatus(&waiting, live, false, "1", kNow, false, {6, false});
  EXPECT_EQ(u.entry.previous_healthy_revisions, std::vector<std::string>{"r1"});
  EXPECT_EQ(u.entry.pinned_in_generation, 6);

  // A rolled-back app Healthy at its held pin: that pin is not remembered.
  AppRolloutStatus rolled_back = Entry("a", S::kHealthy, "1", "r3");
  rolled_back.previous_healthy_revisions = {"r1"};
  live.revisions = {"r4"};
  u = UpdateAppRolloutStatus(&rolled_back, live, false, "1", kNow, false, {7, true});
  EXPECT_EQ(u.entry.previous_healthy_revisions, std::vector<std::string>{"r1"});
}

// The Application's operation state keeps what the rollback reads of an operation, not its
// JSON: the info values (a rollback's Reason) and the revisions of its sync.
TEST(Rollback, AnOperationIsReadForItsReasonAndRevisionsOnly) {
  const Json single = Json::parse(R"({"initiatedBy":{"username":"ops"},
      "info":[{"name":"Reason","value":"rollback (step 2 failed) from a to b, step 2"},{"x":1}],
      "sync":{"revision":"abc","syncOptions":["ServerSideApply=true"]},"retry":{"limit":5}})");
  const OperationSummary s(single);
  EXPECT_EQ(s.info_values,
            std::vector<std::string>{"rollback (step 2 failed) from a to b, step 2"});
  EXPECT_TRUE(s.has_sync);
  EXPECT_EQ(s.sync_revisions, std::vector<std::string>{"abc"});
  EXPECT_TRUE(IsRollbackOperation(s));
  EXPECT_TRUE(IsRollbackOperation(single));

  const OperationSummary multi(
      Json::parse(R"({"sync":{"revisions":["r1",7,"r3"],"revision":"x"}})"));
  EXPECT_EQ(multi.sync_revisions, (std::vector<std::string>{"r1", "", "r3"}));
  EXPECT_FALSE(IsRollbackOperation(multi));

  const OperationSummary automated(
      Json::parse(R"({"info":[{"name":"Reason","value":"rolling sync"}],"sync":"no"})"));
  EXPECT_FALSE(IsRollbackOperation(automated));
  EXPECT_FALSE(automated.has_sync);
  EXPECT_TRUE(automated.sync_revisions.empty());
  EXPECT_EQ(OperationSummary(Json::array()), OperationSummary());
}

TEST(Rollback, TheStateRoundTripsThroughItsJson) {
  RollbackState s;
  s.reason = kRollbackStepFailed;
  s.failed_step = 3;
  s.started_at = kNow;
  s.finished_at = kNow + seconds(60);
  s.apps.push_back({"a", 1, {"r2"}, {"r1"}, P::kRolledBack, kNow + seconds(60), ""});
  s.apps.push_back({"d", 3, {"r2"}, {"r1"}, P::kFailed, kNow + seconds(9), "its sync ended"});
  s.kept = {"b"};
  Issues issues;
  EXPECT_EQ(DecodeRollbackState(EncodeRollbackState(s), "r", issues), s);
  EXPECT_TRUE(issues.empty());

  Json bad = EncodeRollbackState(s);
  bad["applications"][1]["phase"] = "Sideways";
  EXPECT_FALSE(DecodeRollbackState(bad, "status.rollout.rollback", issues));
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "status.rollout.rollback.applications[1].phase");
}

}  // namespace
}  // namespace fleetwave::engine
