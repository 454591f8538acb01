// Plan-level RollingSync rules that the conformance vectors do not reach: pause, skip,
// step deadline, rollout generation, the live-health gate, idempotence, condition priority
// and lastTransitionTime, AllAtOnce and zero-step sets, pinned operations.
#include "engine/rollingsync/rollout_plan.h"

#include <gtest/gtest.h>

#include "engine/rollingsync/rollout_steps.h"
#include "tests/engine/rollingsync/builders.h"
#include "tests/engine/rollingsync/plan_scenario.h"

namespace fleetwave::engine {
namespace {

using namespace testing_builders;
using S = RolloutAppState;

const Time kNow = kPlanNow;
using Scenario = PlanScenario;

// Two steps; step 1 = a, b; step 2 = c.
Scenario TwoSteps() {
  Scenario s{
      RollingSet({StepIn("step", {"1"}), StepIn("step", {"2"})}),
      {Live("a", "1", "OutOfSync"), Live("b", "1", "OutOfSync"), Live("c", "2", "OutOfSync")}};
  s.Entries(
      {Entry("a", S::kWaiting, "1"), Entry("b", S::kWaiting, "1"), Entry("c", S::kWaiting, "2")});
  return s;
}

TEST(Pause, BlocksPromotionsAndSyncStartsAndReportsTheStep) {
  Scenario s = TwoSteps();
  RolloutState st;
  st.generation = 1;
  st.step = 1;
  st.step_started_at = T("2026-03-01T11:50:00Z");
  PauseRollout(st, T("2026-03-01T11:55:00Z"));
  s.Rollout(st);
  const PlanResult r = s.Run();
  EXPECT_TRUE(r.apps_to_sync.empty());
  EXPECT_EQ(EntryOf(r, "a").status, S::kWaiting);
  const auto& c = ConditionOf(r, "RolloutProgressing");
  EXPECT_EQ(c.status, "False");
  EXPECT_EQ(c.reason, "ApplicationSetPaused");
  EXPECT_EQ(c.message, "ApplicationSet rollout is paused at step 1");
  ASSERT_TRUE(r.rollout);
  EXPECT_TRUE(r.rollout->paused);
}

TEST(Pause, ResumePromotesAgain) {
  Scenario s = TwoSteps();
  RolloutState st;
  PauseRollout(st, T("2026-03-01T11:55:00Z"));
  ResumeRollout(st, T("2026-03-01T11:58:00Z"));
  s.Rollout(st);
  EXPECT_EQ(s.Run().apps_to_sync, (std::vector<std::string>{"a", "b"}));
}

TEST(Pause, PausedTimeNeverCountsTowardTheStepDeadline) {
  struct Case {
    const char* name;
    const char* paused_at;  // nullptr: not paused
    long long earlier_paused_seconds;
    bool exceeded;
  };
  // Step 1 started 11:50 with a 600 s deadline; now is 12:00 (600 s later).
  const Case cases[] = {
      {"NoPauseExpiresAtTheDeadline", nullptr, 0, true},
      {"RunningPauseStopsTheClock", "2026-03-01T11:55:00Z", 0, false},
      {"CompletedPauseIsSubtracted", nullptr, 60, false},
      {"PauseFromBeforeTheStepCountsFromTheStepStart", "2026-03-01T11:40:00Z", 0, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Scenario s = TwoSteps();
    s.set.strategy.steps[0].progress_deadline_seconds = 600;
    s.Entries({Entry("a", S::kProgressing, "1"), Entry("b", S::kProgressing, "1"),
               Entry("c", S::kWaiting, "2")});
    RolloutState st;
    st.generation = 1;
    st.step = 1;
    st.step_started_at = T("2026-03-01T11:50:00Z");
    st.paused_seconds = c.earlier_paused_seconds;
    if (c.paused_at) {
      st.paused = true;
      st.paused_at = T(c.paused_at);
    }
    s.Rollout(st);
    const PlanResult r = s.Run();
    EXPECT_EQ(r.rollout->step_deadline_exceeded, c.exceeded);
  }
}

TEST(StepDeadline, ExpiryReportsButPromotionsContinue) {
  Scenario s = TwoSteps();
  s.set.strategy.steps[0].progress_deadline_seconds = 300;
  s.set.strategy.steps[0].max_update = Int(1);
  RolloutState st;
  st.generation = 1;
  st.step = 1;
  st.step_started_at = T("2026-03-01T11:55:00Z");
  s.Rollout(st);
  const PlanResult r = s.Run();
  EXPECT_TRUE(r.rollout->step_deadline_exceeded);
  const auto& c = ConditionOf(r, "RolloutProgressing");
  EXPECT_EQ(c.reason, "ProgressDeadlineExceeded");
  EXPECT_EQ(c.message, "ApplicationSet rollout step 1 has timed out progressing");
  EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"a"});
}

TEST(StepDeadline, NotYetExpiredGivesTheExpiryTimeForATimer) {
  Scenario s = TwoSteps();
  s.set.strategy.steps[0].progress_deadline_seconds = 900;
  RolloutState st;
  st.generation = 1;
  st.step = 1;
  st.step_started_at = T("2026-03-01T11:55:00Z");
  s.Rollout(st);
  const PlanResult r = s.Run();
  EXPECT_FALSE(r.rollout->step_deadline_exceeded);
  EXPECT_EQ(r.step_deadline, T("2026-03-01T12:10:00Z"));
  EXPECT_EQ(ConditionOf(r, "RolloutProgressing").reason, "ApplicationSetModified");
}

TEST(StepDeadline, ClearsWhenTheStepCompletes) {
  Scenario s = TwoSteps();
  s.live[0].sync_status = s.live[1].sync_status = "Synced";
  s.Entries(
      {Entry("a", S::kHealthy, "1"), Entry("b", S::kHealthy, "1"), Entry("c", S::kWaiting, "2")});
  RolloutState st;
  st.generation = 1;
  st.step = 1;
  st.step_started_at = T("2026-03-01T11:00:00Z");
  st.step_deadline_exceeded = true;
  s.Rollout(st);
  const PlanResult r = s.Run();
  EXPECT_EQ(r.rollout->step, 2);
  EXPECT_EQ(r.rollout->step_started_at, kNow);
  EXPECT_FALSE(r.rollout->step_deadline_exceeded);
  EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"c"});
}

TEST(RolloutGeneration, StartsOnChangeDetectionOnly) {
  struct Case {
    const char* name;
    std::string live_revision;
    long long generation;
    int step;
  };
  const Case cases[] = {
      {"NoChangeKeepsGenerationAndStepClock", "r1", 4, 2},
      {"NewRevisionStartsAGenerationAtStepOne", "r2", 5, 1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Scenario s = TwoSteps();
    for (auto& a : s.live) {
      // A new revision leaves the apps OutOfSync until the rollout syncs them.
      a.sync_status = c.live_revision == "r1" ? "Synced" : "OutOfSync";
      a.revisions = {c.live_revision};
    }
    s.live[2].sync_status = "OutOfSync";
    s.Entries(
        {Entry("a", S::kHealthy, "1"), Entry("b", S::kHealthy, "1"), Entry("c", S::kPending, "2")});
    RolloutState st;
    st.generation = 4;
    st.step = 2;
    st.step_started_at = T("2026-03-01T11:30:00Z");
    s.Rollout(st);
    const PlanResult r = s.Run();
    EXPECT_EQ(r.rollout->generation, c.generation);
    EXPECT_EQ(r.rollout->step, c.step);
    EXPECT_EQ(r.rollout->step_started_at, c.generation == 4 ? T("2026-03-01T11:30:00Z") : kNow);
  }
}

TEST(Skip, SkippedAppCountsAsCompleteAndIsLeftAlone) {
  Scenario s = TwoSteps();
  s.live[0].health_status = "Unknown";  // a's cluster is gone
  s.live[1].sync_status = "Synced";
  s.Entries(
      {Entry("a", S::kPending, "1"), Entry("b", S::kHealthy, "1"), Entry("c", S::kWaiting, "2")});
  RolloutState st;
  SkipApplication(st, "a", "cluster eu-1 decommissioned");
  s.Rollout(st);
  const PlanResult r = s.Run();
  EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"c"});
  EXPECT_EQ(EntryOf(r, "a").message, "Application skipped: cluster eu-1 decommissioned");
  EXPECT_EQ(r.rollout->skipped.count("a"), 1u);
  EXPECT_EQ(r.rollout->step, 2);
}

TEST(Skip, ClearedWhenThePinnedRevisionChangesOrTheAppIsGone) {
  Scenario s = TwoSteps();
  s.live[0].revisions = {"r2"};
  s.Entries(
      {Entry("a", S::kHealthy, "1"), Entry("b", S::kWaiting, "1"), Entry("c", S::kWaiting, "2")});
  RolloutState st;
  SkipApplication(st, "a", "flaky");
  SkipApplication(st, "gone", "removed");
  s.Rollout(st);
  const PlanResult r = s.Run();
  EXPECT_TRUE(r.rollout->skipped.empty());
  EXPECT_EQ(EntryOf(r, "a").status, S::kPending);  // no longer skipped: promoted again
  EXPECT_EQ(EntryOf(r, "a").target_revisions, std::vector<std::string>{"r2"});
  EXPECT_EQ(r.apps_to_sync, (std::vector<std::string>{"a", "b"}));
}

TEST(LiveHealthGate, RegressionHoldsLaterStepsWithoutDemotingOrResyncing) {
  for (const char* health : {"Degraded", "Missing", "Unknown"}) {
    SCOPED_TRACE(health);
    Scenario s = TwoSteps();
    s.live[0].sync_status = s.live[1].sync_status = "Synced";
    s.live[1].health_status = health;
    s.Entries(
        {Entry("a", S::kHealthy, "1"), Entry("b", S::kHealthy, "1"), Entry("c", S::kWaiting, "2")});
    const PlanResult r = s.Run();
    EXPECT_EQ(EntryOf(r, "b").status, S::kHealthy);
    EXPECT_TRUE(r.apps_to_sync.empty());
    EXPECT_EQ(EntryOf(r, "c").status, S::kWaiting);
    EXPECT_EQ(ConditionOf(r, "RolloutProgressing").message,
              "ApplicationSet is performing rollout of step 1");
  }
}

TEST(LiveHealthGate, ProgressingOrSuspendedLiveHealthDoesNotHold) {
  Scenario s = TwoSteps();
  s.live[0].sync_status = s.live[1].sync_status = "Synced";
  s.live[1].health_status = "Suspended";
  s.Entries(
      {Entry("a", S::kHealthy, "1"), Entry("b", S::kHealthy, "1"), Entry("c", S::kWaiting, "2")});
  EXPECT_EQ(s.Run().apps_to_sync, std::vector<std::string>{"c"});
}

TEST(Eligibility, DesiredAppNotYetCreatedHoldsItsStep) {
  Scenario s = TwoSteps();
  s.live[0].sync_status = s.live[1].sync_status = "Synced";
  s.Entries(
      {Entry("a", S::kHealthy, "1"), Entry("b", S::kHealthy, "1"), Entry("c", S::kWaiting, "2")});
  std::vector<GeneratedApplication> desired = DesiredOf(s.live);
  Application missing = Live("a2", "1");
  desired.push_back(Desired(missing));
  const PlanResult r = PlanChecked(s.set, desired, s.live, kNow);
  EXPECT_TRUE(r.apps_to_sync.empty());
  EXPECT_EQ(r.steps.at("a2"), 1);
  EXPECT_EQ(r.application_status.size(), 3u);  // entries only for existing apps
}

TEST(Eligibility, AppAddedToACompletedStepReopensIt) {
  Scenario s = TwoSteps();
  s.live[0].sync_status = s.live[1].sync_status = "Synced";
  s.live.push_back(Live("a3", "1", "OutOfSync"));
  s.Entries(
      {Entry("a", S::kHealthy, "1"), Entry("b", S::kHealthy, "1"), Entry("c", S::kHealthy, "2")});
  s.live[2].sync_status = "Synced";
  const PlanResult r = s.Run();
  EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"a3"});
  EXPECT_EQ(ConditionOf(r, "RolloutProgressing").message,
            "ApplicationSet is performing rollout of step 1");
}

TEST(Promotion, JustPromotedAppsSyncInTheSameReconcile) {
  Scenario s = TwoSteps();
  s.set.strategy.steps[0].max_update = Int(1);
  const PlanResult r = s.Run();
  EXPECT_EQ(EntryOf(r, "a").status, S::kPending);
  EXPECT_EQ(EntryOf(r, "b").status, S::kWaiting);
  EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"a"});
  EXPECT_EQ(r.operations.at("a")["sync"]["revision"], "r1");
}

TEST(ConditionPriority, RolloutProgressingTable) {
  struct Case {
    const char* name;
    RolloutProgress progress;
    const char* reason;
  };
  const Case cases[] = {
      // Issue 29: a halted rollout reports RolloutFailed whatever else holds; an aborted one
      // RolloutAborted unless its running syncs completed every step.
      {"FailedBeatsPaused",
       {2, true, true, 2, "step 2 failed", false, "", false, ""},
       "RolloutFailed"},
      {"FailedBeatsAborted",
       {2, false, false, 2, "step 2 failed", true, "aborted", false, ""},
       "RolloutFailed"},
      {"AbortedBeatsPaused", {2, true, true, 0, "", true, "aborted", false, ""}, "RolloutAborted"},
      {"CompleteBeatsAborted",
       {0, false, false, 0, "", true, "aborted", false, ""},
       "ApplicationSetRolloutComplete"},
      {"PausedBeatsDeadline", {2, true, true, 0, "", false, "", false, ""}, "ApplicationSetPaused"},
      {"DeadlineBeatsModified",
       {2, false, true, 0, "", false, "", false, ""},
       "ProgressDeadlineExceeded"},
      {"ModifiedWhileAStepIsIncomplete",
       {2, false, false, 0, "", false, "", false, ""},
       "ApplicationSetModified"},
      // A rollback (issue 29): after a failed step's message, or alone for an operator's.
      {"FailedWithARollbackStaysFailed",
       {3, false, false, 3, "step 3 failed", false, "", true, "rolling back"},
       "RolloutFailed"},
      {"RolledBackBeatsComplete",
       {0, false, false, 0, "", false, "", true, "rolled back"},
       "RolloutRolledBack"},
      {"RolledBackBeatsAbortedAndPaused",
       {2, true, false, 0, "", true, "aborted", true, "rolling back"},
       "RolloutRolledBack"},
      {"CompleteWhenEveryStepIsComplete",
       {0, false, false, 0, "", false, "", false, ""},
       "ApplicationSetRolloutComplete"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(RolloutProgressingCondition(c.progress).reason, c.reason);
  }
}

TEST(Conditions, LastTransitionTimeKeptOnlyWhileUnchanged) {
  Scenario s = TwoSteps();
  s.set.status["conditions"] =
      Json::array({{{"type", "RolloutProgressing"},
                    {"status", "True"},
                    {"reason", "ApplicationSetModified"},
                    {"message", "ApplicationSet is performing rollout of step 1"},
                    {"lastTransitionTime", "2026-03-01T10:00:00Z"}},
                   {{"type", "InvalidRolloutConfig"},
                    {"status", "True"},
                    {"reason", "ApplicationSetInvalidRolloutConfig"},
                    {"message", "Steps [2] have no applications matching their criteria"},
                    {"lastTransitionTime", "2026-03-01T10:00:00Z"}},
                   {{"type", "ParametersGenerated"},
                    {"status", "True"},
                    {"reason", "ParametersGenerated"},
                    {"message", "kept as it is"},
                    {"lastTransitionTime", "2026-03-01T09:00:00Z"}}});
  const PlanResult r = s.Run();
  EXPECT_EQ(ConditionOf(r, "RolloutProgressing").last_transition_time, T("2026-03-01T10:00:00Z"));
  EXPECT_EQ(ConditionOf(r, "InvalidRolloutConfig").last_transition_time, kNow);
  EXPECT_EQ(ConditionOf(r, "ParametersGenerated").message, "kept as it is");
  ASSERT_EQ(r.conditions.size(), 4u);
  EXPECT_EQ(r.conditions[0].type, "InvalidRolloutConfig");  // sorted by type
}

TEST(Strategy, AllAtOnceClearsEntriesAndRolloutConditions) {
  Scenario s = TwoSteps();
  s.set.strategy.type = "AllAtOnce";
  s.set.status["conditions"] = Json::array({{{"type", "RolloutProgressing"},
                                             {"status", "True"},
                                             {"reason", "ApplicationSetModified"},
                                             {"message", "x"}}});
  const PlanResult r = s.Run();
  EXPECT_TRUE(r.application_status.empty());
  EXPECT_TRUE(r.apps_to_sync.empty());
  EXPECT_FALSE(r.rollout);
  ASSERT_EQ(r.conditions.size(), 1u);
  EXPECT_EQ(r.conditions[0].type, "ResourcesUpToDate");
  EXPECT_EQ(r.steps.at("a"), -1);
}

TEST(Strategy, RollingSyncWithoutStepsIsAnErrorAndTouchesNothing) {
  Scenario s = TwoSteps();
  s.set.strategy.steps.clear();
  const PlanResult r = s.Run();
  EXPECT_TRUE(r.apps_to_sync.empty());
  EXPECT_EQ(r.application_status.size(), 3u);
  EXPECT_EQ(EntryOf(r, "a").message, "earlier message");
  const auto& c = ConditionOf(r, "ErrorOccurred");
  EXPECT_EQ(c.status, "True");
  EXPECT_EQ(c.reason, "ApplicationSetRolloutError");
  EXPECT_EQ(c.message, "No steps defined for rollout");
}

TEST(Strategy, UnsupportedTypeIsNotPlanned) {
  Scenario s = TwoSteps();
  s.set.strategy.type = "RollingUpdate";
  const PlanResult r = s.Run();
  EXPECT_FALSE(r.planned);
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].message,
            "unsupported value \"RollingUpdate\" (supported: AllAtOnce, RollingSync)");
}

TEST(SpecChange, IgnoredPointersAndControllerWrittenAutomatedEnabled) {
  const Json desired = {{"source", {{"targetRevision", "v2"}, {"path", "p"}}},
                        {"syncPolicy", {{"automated", {{"prune", true}}}}}};
  Json live = desired;
  live["syncPolicy"]["automated"]["enabled"] = false;
  EXPECT_FALSE(SpecDiffers(desired, live, {}));
  live["source"]["targetRevision"] = "v1";
  EXPECT_TRUE(SpecDiffers(desired, live, {}));
  EXPECT_FALSE(SpecDiffers(desired, live, {"/spec/source/targetRevision"}));
  live["syncPolicy"]["automated"]["enabled"] = true;
  EXPECT_TRUE(SpecDiffers(desired, live, {"/spec/source/targetRevision"}));
}

TEST(SyncOperation, MultiSourceAppsPinEveryRevision) {
  Scenario s = TwoSteps();
  s.live[0].spec = {{"sources", Json::array({{{"repoURL", "a"}}, {{"repoURL", "b"}}})},
                    {"syncPolicy",
                     {{"automated", {{"prune", true}, {"enabled", false}}},
                      {"retry", {{"limit", 2}, {"backoff", {{"duration", "5s"}}}}}}}};
  s.live[0].revisions = {"r1", "s1"};
  s.Entries({Entry("b", S::kWaiting, "1"), Entry("c", S::kWaiting, "2")});
  const PlanResult r = s.Run();
  const Json& op = r.operations.at("a");
  EXPECT_EQ(op["sync"]["revisions"], Json::array({"r1", "s1"}));
  EXPECT_FALSE(op["sync"].contains("revision"));
  EXPECT_EQ(op["sync"]["prune"], true);
  EXPECT_EQ(op["retry"]["backoff"]["duration"], "5s");
  EXPECT_FALSE(r.operations.at("b")["sync"].contains("prune"));
  EXPECT_FALSE(r.operations.at("b")["sync"].contains("syncOptions"));
}

TEST(Idempotence, PlanningAgainOnItsOwnOutputChangesNothing) {
  struct Case {
    const char* name;
    Scenario scenario;
  };
  Scenario paused = TwoSteps();
  RolloutState st;
  PauseRollout(st, T("2026-03-01T11:00:00Z"));
  paused.Rollout(st);
  Scenario chained = TwoSteps();  // a promoted app whose live data is already Healthy
  chained.live[0].sync_status = "Synced";
  chained.live[0].operation_state = OperationState{"Succeeded", kNow, Json::object()};
  Scenario fresh = TwoSteps();
  fresh.set.status = Json::object();
  const Case cases[] = {
      {"Waiting", TwoSteps()}, {"Paused", paused}, {"Chained", chained}, {"NoStatusYet", fresh}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const PlanResult first = c.scenario.Run();
    Scenario again = c.scenario;
    again.set.status = PlanStatusJson(first);
    const PlanResult second = again.Run();
    EXPECT_EQ(PlanOutputJson(second), PlanOutputJson(first));
  }
}

}  // namespace
}  // namespace fleetwave::engine
