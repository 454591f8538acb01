// The rollout-safety rules of issue 29 as tables, each decision through both deciders
// (PlanChecked: Plan, the oracle, and a RolloutTracker loaded from the same stored status; or
// KeptDeciders, a tracker kept across decisions): the failure budget (maxFailures), the halt of
// a failed step and its resume, and the soak (minSuccessTime) with its clock stored in
// status.rollout.
#include <functional>

#include <gtest/gtest.h>

#include "engine/rollingsync/max_failures.h"
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
using Scenario = PlanScenario;

RolloutState AtStep(int step) {
  RolloutState st;
  st.generation = 1;
  st.step = step;
  st.step_started_at = T("2026-03-01T11:50:00Z");
  return st;
}

// Step 1 = a, b, c (synced by this rollout: Progressing entries, live Synced at r1), with
// `max_failures`; step 2 = d, Waiting. `health` is each of a, b, c's live health.
Scenario Budget(std::optional<IntOrString> max_failures, const std::vector<std::string>& health) {
  Scenario s{RollingSet({StepIn("step", {"1"}), StepIn("step", {"2"})}),
             {Live("a", "1", "Synced", health[0]), Live("b", "1", "Synced", health[1]),
              Live("c", "1", "Synced", health[2]), Live("d", "2", "OutOfSync")}};
  s.set.strategy.steps[0].max_failures = max_failures;
  s.Entries({Entry("a", S::kProgressing, "1"), Entry("b", S::kProgressing, "1"),
             Entry("c", S::kProgressing, "1"), Entry("d", S::kWaiting, "2")});
  s.Rollout(AtStep(1));
  return s;
}

TEST(MaxFailuresLimit, IntegersAsWrittenPercentagesRoundDown) {
  struct Case {
    std::optional<IntOrString> value;
    long long total;
    std::optional<long long> want;
  };
  const Case cases[] = {
      {std::nullopt, 5, std::nullopt},
      {Int(0), 5, 0},
      {Int(2), 5, 2},
      {Int(9), 5, 9},
      {Str("10%"), 5, 0},
      {Str("20%"), 5, 1},
      {Str("34%"), 3, 1},
      {Str("0%"), 5, 0},
      {Str("100%"), 7, 7},
      {Str("99999999999999999999%"), 3, 3},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(
        c.value ? (c.value->is_int ? std::to_string(c.value->int_value) : c.value->string_value)
                : "absent");
    EXPECT_EQ(MaxFailuresLimit(c.value, c.total), c.want);
  }
}

const std::string kDegradedMessage =
    "Application failed (health is Degraded), counted against the step's maxFailures";

TEST(FailureBudget, UpToMaxFailuresFailedAppsTheStepCompletesOnceTheRestAreHealthy) {
  struct Case {
    const char* name;
    std::optional<IntOrString> max_failures;
    std::vector<std::string> health;
    bool completes;
  };
  const Case cases[] = {
      {"OneFailedOfABudgetOfOne", Int(1), {"Healthy", "Healthy", "Degraded"}, true},
      {"NoneFailedOfABudgetOfOne", Int(1), {"Healthy", "Healthy", "Healthy"}, true},
      {"OneFailedTheRestNotYetHealthy", Int(1), {"Healthy", "Progressing", "Degraded"}, false},
      {"PercentOfTheStepRoundsDown34Of3Is1", Str("34%"), {"Healthy", "Healthy", "Degraded"}, true},
      {"TwoFailedOfABudgetOfTwo", Int(2), {"Degraded", "Healthy", "Degraded"}, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const PlanResult r = Budget(c.max_failures, c.health).Run();
    if (c.completes) {
      EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"d"});
      EXPECT_EQ(r.rollout->step, 2);
    } else {
      EXPECT_TRUE(r.apps_to_sync.empty());
      EXPECT_EQ(r.rollout->step, 1);
    }
    EXPECT_EQ(r.rollout->failed_step, 0);
    EXPECT_EQ(Progressing(r).reason, "ApplicationSetModified");
  }
}

TEST(FailureBudget, AFailedAppIsReportedKeepsItsRevisionAndNeverCountsAsHealthy) {
  const PlanResult r = Budget(Int(1), {"Healthy", "Healthy", "Degraded"}).Run();
  const AppRolloutStatus& c = EntryOf(r, "c");
  EXPECT_EQ(c.status, S::kProgressing);
  EXPECT_EQ(c.message, kDegradedMessage);
  EXPECT_EQ(c.target_revisions, std::vector<std::string>{"r1"});
  EXPECT_EQ(EntryOf(r, "a").status, S::kHealthy);
  EXPECT_EQ(r.operations.count("c"), 0u) << "a failed app is not synced again";
}

TEST(FailureBudget, ARecoveredAppNoLongerSaysItFailed) {
  // A Healthy entry whose live health went Degraded and came back: no transition moves its
  // message on, so the failure's message is replaced.
  Scenario s = Budget(Int(1), {"Healthy", "Healthy", "Degraded"});
  s.Entries({Entry("a", S::kHealthy, "1"), Entry("b", S::kHealthy, "1"),
             Entry("c", S::kHealthy, "1"), Entry("d", S::kWaiting, "2")});
  PlanResult r = s.Run();
  EXPECT_EQ(EntryOf(r, "c").message, kDegradedMessage);
  s.Continue(r);
  s.App("c").health_status = "Healthy";
  r = s.Run(kNow + seconds(10));
  EXPECT_EQ(EntryOf(r, "c").message, kRecoveredAppMessage);
  EXPECT_EQ(EntryOf(r, "c").status, S::kHealthy);
}

TEST(FailureBudget, ASyncThatFailedAfterItsRetriesCounts) {
  Scenario s = Budget(Int(1), {"Healthy", "Healthy", "Progressing"});
  s.App("c").operation_state = OperationState{"Failed", T("2026-03-01T11:56:00Z"), Json::object()};
  const PlanResult r = s.Run();
  EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"d"});
  EXPECT_EQ(EntryOf(r, "c").message,
            "Application failed (sync Failed), counted against the step's maxFailures");
}

TEST(FailureBudget, ASyncStillRetryingIsNotFailed) {
  Scenario s = Budget(Int(0), {"Healthy", "Healthy", "Progressing"});
  s.App("c").operation_state = OperationState{"Running", T("2026-03-01T11:56:00Z"), Json::object()};
  const PlanResult r = s.Run();
  EXPECT_EQ(r.rollout->failed_step, 0);
  EXPECT_EQ(r.rollout->step, 1);
  EXPECT_EQ(Progressing(r).reason, "ApplicationSetModified");
}

TEST(FailureBudget, OneMoreFailsTheStepAndHaltsTheRollout) {
  struct Case {
    const char* name;
    std::optional<IntOrString> max_failures;
    std::vector<std::string> health;
    std::vector<std::string> failed;
    std::string message;
  };
  const Case cases[] = {
      {"TwoFailedOfABudgetOfOne",
       Int(1),
       {"Healthy", "Degraded", "Degraded"},
       {"b", "c"},
       "ApplicationSet rollout step 1 failed: 2 applications failed, more than its maxFailures 1 "
       "allows: b, c; promotion is halted until a new revision or a resume"},
      {"OneFailedOfABudgetOfZero",
       Int(0),
       {"Healthy", "Healthy", "Degraded"},
       {"c"},
       "ApplicationSet rollout step 1 failed: 1 application failed, more than its maxFailures 0 "
       "allows: c; promotion is halted until a new revision or a resume"},
      {"PercentOfTheStepRoundsDown10Of3Is0",
       Str("10%"),
       {"Degraded", "Healthy", "Progressing"},
       {"a"},
       "ApplicationSet rollout step 1 failed: 1 application failed, more than its maxFailures "
       "10% allows: a; promotion is halted until a new revision or a resume"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const PlanResult r = Budget(c.max_failures, c.health).Run();
    EXPECT_TRUE(r.apps_to_sync.empty());
    EXPECT_EQ(r.rollout->failed_step, 1);
    EXPECT_EQ(r.rollout->failed_apps, c.failed);
    const AppSetCondition& p = Progressing(r);
    EXPECT_EQ(p.status, "False");
    EXPECT_EQ(p.reason, "RolloutFailed");
    EXPECT_EQ(p.message, c.message);
  }
}

TEST(FailureBudget, WithoutMaxFailuresAFailedAppHoldsTheStepAsToday) {
  const PlanResult r = Budget(std::nullopt, {"Healthy", "Healthy", "Degraded"}).Run();
  EXPECT_TRUE(r.apps_to_sync.empty());
  EXPECT_EQ(r.rollout->step, 1);
  EXPECT_EQ(r.rollout->failed_step, 0);
  EXPECT_EQ(Progressing(r).reason, "ApplicationSetModified");
  EXPECT_EQ(EntryOf(r, "c").message, "earlier message") << "Argo CD's messages stay exact";
}

TEST(FailureBudget, AFailedStepPromotesAndStartsNothingOfItsOwn) {
  // a failed, b Waiting: with the step failed, b is neither promoted nor synced.
  Scenario s{RollingSet({StepIn("step", {"1"})}),
             {Live("a", "1", "Synced", "Degraded"), Live("b", "1", "OutOfSync")}};
  s.set.strategy.steps[0].max_failures = Int(0);
  s.Entries({Entry("a", S::kProgressing, "1"), Entry("b", S::kWaiting, "1")});
  s.Rollout(AtStep(1));
  const PlanResult r = s.Run();
  EXPECT_TRUE(r.apps_to_sync.empty());
  EXPECT_EQ(EntryOf(r, "b").status, S::kWaiting);
  EXPECT_EQ(r.rollout->failed_step, 1);
}

// An app promoted in this decision can be failed at once: its sync is already running (started
// at the promotion) and it is Degraded. The step is judged after the promotion, so planning
// again over the same facts changes nothing.
TEST(FailureBudget, AnAppFailedByItsOwnPromotionFailsTheStepInThatDecision) {
  Scenario s{RollingSet({StepIn("step", {"1"}), StepIn("step", {"2"})}),
             {Live("a", "1", "OutOfSync", "Degraded"), Live("d", "2", "OutOfSync")}};
  s.set.strategy.steps[0].max_failures = Int(0);
  s.App("a").operation_state = OperationState{"Running", kNow, Json::object()};
  s.Entries({Entry("a", S::kWaiting, "1"), Entry("d", S::kWaiting, "2")});
  s.Rollout(AtStep(1));
  const PlanResult r = s.Run();
  EXPECT_EQ(EntryOf(r, "a").status, S::kProgressing);
  EXPECT_EQ(r.rollout->failed_step, 1);
  EXPECT_EQ(r.rollout->failed_apps, std::vector<std::string>{"a"});
  EXPECT_EQ(Progressing(r).reason, "RolloutFailed");
  s.Continue(r);
  const PlanResult again = s.Run();
  EXPECT_EQ(again.rollout, r.rollout);
  EXPECT_EQ(Progressing(again).reason, "RolloutFailed");
}

TEST(FailureBudget, AppsNotYetSyncedBySkippedOrNotFailed) {
  // A Waiting app that is Degraded on its old revision has not been synced by this rollout;
  // a skipped app never counts.
  Scenario s{RollingSet({StepIn("step", {"1"})}),
             {Live("a", "1", "OutOfSync", "Degraded"), Live("b", "1", "Synced", "Degraded")}};
  s.set.strategy.steps[0].max_failures = Int(0);
  s.Entries({Entry("a", S::kWaiting, "1"), Entry("b", S::kProgressing, "1")});
  RolloutState st = AtStep(1);
  SkipApplication(st, "b", "known bad cluster");
  s.Rollout(st);
  const PlanResult r = s.Run();
  EXPECT_EQ(r.rollout->failed_step, 0);
  EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"a"});
  EXPECT_EQ(EntryOf(r, "b").message, "Application skipped: known bad cluster");
}

TEST(FailureBudget, TheHaltIsDurableUntilANewRevision) {
  Scenario s = Budget(Int(0), {"Healthy", "Healthy", "Degraded"});
  PlanResult r = s.Run();
  ASSERT_EQ(r.rollout->failed_step, 1);
  // c recovers: the step would complete, but a halted rollout stays halted.
  s.Continue(r);
  s.App("c").health_status = "Healthy";
  r = s.Run(kNow + seconds(60));
  EXPECT_TRUE(r.apps_to_sync.empty());
  EXPECT_EQ(EntryOf(r, "d").status, S::kWaiting);
  EXPECT_EQ(Progressing(r).reason, "RolloutFailed");
  EXPECT_EQ(r.rollout->failed_apps, std::vector<std::string>{"c"});
  // A new commit is a new generation: the halt goes and the rollout starts over.
  s.Continue(r);
  for (auto& a : s.live) {
    a.revisions = {"r2"};
    a.sync_status = "OutOfSync";
  }
  r = s.Run(kNow + seconds(120));
  EXPECT_EQ(r.rollout->failed_step, 0);
  EXPECT_EQ(r.rollout->generation, 2);
  EXPECT_EQ(r.apps_to_sync, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(Progressing(r).reason, "ApplicationSetModified");
}

// A halted rollout that an operator resumes, decided by Plan and by a tracker kept across the
// decisions and told Resume, as the daemon keeps it (KeptDeciders). `meanwhile` changes the
// live apps while the rollout is halted. Returns the decision right after the resume.
PlanResult HaltedThenResumed(Scenario s, const std::function<void(Scenario&)>& meanwhile,
                             Time resumed_at = kNow + seconds(120)) {
  KeptDeciders k(std::move(s));
  PlanResult r = k.Decide(kNow);
  EXPECT_NE(r.rollout->failed_step, 0) << "the scenario must start with a failed step";
  meanwhile(k.scenario());
  r = k.Decide(kNow + seconds(60));
  EXPECT_EQ(Progressing(r).reason, "RolloutFailed") << "the halt holds until the resume";
  k.Resume(resumed_at);
  return k.Decide(resumed_at);
}

TEST(ResumeAfterAHalt, ARecoveredAppCountsAgainAndTheRolloutGoesOn) {
  const PlanResult r = HaltedThenResumed(Budget(Int(0), {"Healthy", "Healthy", "Degraded"}),
                                         [](Scenario& s) { s.App("c").health_status = "Healthy"; });
  EXPECT_EQ(r.rollout->failed_step, 0);
  EXPECT_TRUE(r.rollout->failed_apps.empty());
  EXPECT_EQ(r.rollout->step, 2);
  EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"d"});
  EXPECT_EQ(Progressing(r).reason, "ApplicationSetModified");
}

TEST(ResumeAfterAHalt, TheBudgetIsCheckedAgainstTheAppsStillFailed) {
  struct Case {
    const char* name;
    std::optional<IntOrString> max_failures;
    std::vector<std::string> health;               // a, b, c when the step failed
    std::vector<std::string> health_at_resume;     // a, b, c when the operator resumes
    std::vector<std::string> failed_after_resume;  // empty: the step completes
  };
  const Case cases[] = {
      {"StillFailedHaltsAgainAtOnce",
       Int(0),
       {"Healthy", "Healthy", "Degraded"},
       {"Healthy", "Healthy", "Degraded"},
       {"c"}},
      {"OneOfTwoRecoveredIsWithinABudgetOfOne",
       Int(1),
       {"Healthy", "Degraded", "Degraded"},
       {"Healthy", "Healthy", "Degraded"},
       {}},
      {"AnotherAppFailedMeanwhile",
       Int(0),
       {"Healthy", "Healthy", "Degraded"},
       {"Degraded", "Healthy", "Healthy"},
       {"a"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const PlanResult r = HaltedThenResumed(Budget(c.max_failures, c.health), [&](Scenario& s) {
      for (size_t i = 0; i < 3; ++i) s.live[i].health_status = c.health_at_resume[i];
    });
    EXPECT_EQ(r.rollout->failed_apps, c.failed_after_resume);
    if (c.failed_after_resume.empty()) {
      EXPECT_EQ(r.rollout->failed_step, 0);
      EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"d"});
    } else {
      EXPECT_EQ(r.rollout->failed_step, 1);
      EXPECT_TRUE(r.apps_to_sync.empty());
      EXPECT_EQ(EntryOf(r, "d").status, S::kWaiting);
      EXPECT_EQ(Progressing(r).reason, "RolloutFailed");
    }
  }
}

// The soak measures how long the apps have been Healthy, so its clock starts when the last
// failed app recovered, halt or not; the resume does not restart it.
TEST(ResumeAfterAHalt, ARecoveredStepSoaksFromTheRecoveryBeforeTheNextStep) {
  Scenario halted = Budget(Int(0), {"Healthy", "Healthy", "Degraded"});
  halted.set.strategy.steps[0].min_success_seconds = 600;
  const Time resumed_at = kNow + seconds(120);
  const PlanResult r = HaltedThenResumed(
      halted, [](Scenario& s) { s.App("c").health_status = "Healthy"; }, resumed_at);
  EXPECT_EQ(r.rollout->failed_step, 0);
  EXPECT_EQ(r.rollout->step, 1);
  EXPECT_TRUE(r.apps_to_sync.empty()) << "the step soaks before the next one starts";
  const Time recovered_at = kNow + seconds(60);  // HaltedThenResumed's second decision
  EXPECT_EQ(r.rollout->soak_started_at, recovered_at);
  EXPECT_EQ(r.soak_ends_at, recovered_at + seconds(601));
}

TEST(ResumeAfterAHalt, ResumeEndsAPauseAndTheHaltTogether) {
  RolloutState st = AtStep(1);
  st.failed_step = 1;
  st.failed_apps = {"c"};
  PauseRollout(st, kNow);
  ResumeRollout(st, kNow + seconds(30));
  EXPECT_FALSE(st.paused);
  EXPECT_EQ(st.failed_step, 0);
  EXPECT_TRUE(st.failed_apps.empty());
  EXPECT_EQ(st.paused_seconds, 30);
}

// Step 1 = a, b Healthy (entries and live) with minSuccessTime 600 s; step 2 = c, Waiting.
Scenario Soak(const RolloutState& state) {
  Scenario s{RollingSet({StepIn("step", {"1"}), StepIn("step", {"2"})}),
             {Live("a", "1"), Live("b", "1"), Live("c", "2", "OutOfSync")}};
  s.set.strategy.steps[0].min_success_seconds = 600;
  s.Entries(
      {Entry("a", S::kHealthy, "1"), Entry("b", S::kHealthy, "1"), Entry("c", S::kWaiting, "2")});
  s.Rollout(state);
  return s;
}

RolloutState Soaking(const char* since) {
  RolloutState st = AtStep(1);
  st.soak_step = 1;
  st.soak_started_at = T(since);
  return st;
}

TEST(Soak, AStepCompletesOnlyAfterItsAppsStayedHealthyForMinSuccessTime) {
  struct Case {
    const char* name;
    RolloutState stored;
    bool completes;
    std::optional<Time> soak_started_at;  // after the decision
    std::optional<Time> soak_ends_at;
  };
  const Case cases[] = {
      // The clock has whole seconds: a soak ends a second after start + minSuccessTime, so it
      // never ends early.
      {"HealthyStartsTheClock", AtStep(1), false, kNow, kNow + seconds(601)},
      {"ExactlyMinSuccessTimeIsASecondShort", Soaking("2026-03-01T11:50:00Z"), false,
       T("2026-03-01T11:50:00Z"), T("2026-03-01T12:00:01Z")},
      {"SoakedOpensTheNextStep", Soaking("2026-03-01T11:49:59Z"), true, std::nullopt, std::nullopt},
      {"AStepAlreadyPassedIsNotSoakedAgain", AtStep(2), true, std::nullopt, std::nullopt},
      {"AFirstDecisionSoaks", RolloutState{}, false, kNow, kNow + seconds(601)},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const PlanResult r = Soak(c.stored).Run();
    EXPECT_EQ(r.apps_to_sync,
              c.completes ? std::vector<std::string>{"c"} : std::vector<std::string>{});
    EXPECT_EQ(r.rollout->step, c.completes ? 2 : 1);
    EXPECT_EQ(r.rollout->soak_started_at, c.soak_started_at);
    EXPECT_EQ(r.rollout->soak_step, c.soak_started_at ? 1 : 0);
    EXPECT_EQ(r.soak_ends_at, c.soak_ends_at) << "the wake-up timer at the soak's end";
    EXPECT_EQ(Progressing(r).reason, "ApplicationSetModified");
  }
}

TEST(Soak, AFlapRestartsTheClock) {
  Scenario s = Soak(Soaking("2026-03-01T11:55:00Z"));
  s.App("b").health_status = "Degraded";
  PlanResult r = s.Run();
  EXPECT_FALSE(r.rollout->soak_started_at);
  EXPECT_FALSE(r.soak_ends_at);
  s.Continue(r);
  s.App("b").health_status = "Healthy";
  r = s.Run(kNow + seconds(30));
  EXPECT_EQ(r.rollout->soak_started_at, kNow + seconds(30));
  EXPECT_EQ(r.soak_ends_at, kNow + seconds(631));
  s.Continue(r);
  r = s.Run(kNow + seconds(630));
  EXPECT_TRUE(r.apps_to_sync.empty()) << "the soak counts from the recovery";
  s.Continue(r);
  r = s.Run(kNow + seconds(631));
  EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"c"});
}

TEST(Soak, TheClockSurvivesARestartBeforeEveryClusterIsObserved) {
  // After a restart an app of the soaking step is not observed yet (health Unknown): the
  // stored clock stays, and once observed the soak ends when it would have.
  Scenario s = Soak(Soaking("2026-03-01T11:55:00Z"));
  s.App("b").health_status = "Unknown";
  Issues issues;
  PlanResult r = PlanChecked(s.set, DecodeStoredRolloutStatus(s.set.status, issues),
                             DesiredOf(s.live), s.live, kNow, /*observation_complete=*/false);
  EXPECT_EQ(r.rollout->soak_started_at, T("2026-03-01T11:55:00Z"));
  s.Continue(r);
  s.App("b").health_status = "Healthy";
  r = s.Run(T("2026-03-01T12:05:01Z"));
  EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"c"});
}

TEST(Soak, FailedAppsWithinTheBudgetAreNotCounted) {
  Scenario s = Soak(AtStep(1));
  s.set.strategy.steps[0].max_failures = Int(1);
  s.App("b").health_status = "Degraded";
  PlanResult r = s.Run();
  EXPECT_EQ(r.rollout->soak_started_at, kNow);
  s.Continue(r);
  r = s.Run(kNow + seconds(601));
  EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"c"});
}

TEST(Soak, ANewGenerationSoaksAgain) {
  Scenario s = Soak(AtStep(2));
  for (auto& a : s.live) a.revisions = {"r2"};
  s.App("a").sync_status = "OutOfSync";
  const PlanResult r = s.Run();
  EXPECT_EQ(r.rollout->generation, 2);
  EXPECT_EQ(r.rollout->step, 1);
  EXPECT_TRUE(r.apps_to_sync.empty() ||
              r.apps_to_sync == std::vector<std::string>{"a"});  // only step 1 is open
}

}  // namespace
}  // namespace fleetwave::engine
