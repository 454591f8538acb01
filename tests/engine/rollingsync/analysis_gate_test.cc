// Issue 29's analysis as a gate of a RollingSync step, each decision through both deciders
// (PlanChecked: Plan, the oracle, and a RolloutTracker loaded from the same stored status;
// KeptDeciders: a tracker kept across decisions, fed the same measurements): while a step soaks,
// or once its apps are complete without a soak, the decision asks for a measurement (the query
// and when it is due); the next step opens only after `count` passing measurements; more than
// `failureLimit` failed ones fail the step, which halts the rollout with RolloutFailed naming
// the step, the values and the condition.
#include <gtest/gtest.h>

#include "engine/rollingsync/rollout_plan.h"
#include "engine/rollingsync/rollout_safety.h"
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

AnalysisSpec Analysis(long long count, long long failure_limit, long long interval = 30) {
  Issues issues;
  auto spec = DecodeAnalysis({{"prometheus", "http://prom:9090"},
                              {"query", "sum(rate(errors[5m]))"},
                              {"successCondition", "< 0.5"},
                              {"interval", std::to_string(interval) + "s"},
                              {"count", count},
                              {"failureLimit", failure_limit}},
                             "analysis", issues);
  EXPECT_TRUE(issues.empty());
  return *spec;
}

RolloutState AtStep(int step) {
  RolloutState st;
  st.generation = 1;
  st.step = step;
  st.step_started_at = T("2026-03-01T11:50:00Z");
  return st;
}

// Step 1 = a, b Healthy (entries and live) with an analysis (count 2, failureLimit 1, every
// 30 s) and, when `soak` > 0, that minSuccessTime; step 2 = c, Waiting.
Scenario Analysed(const RolloutState& state, long long soak = 0) {
  Scenario s{RollingSet({StepIn("step", {"1"}), StepIn("step", {"2"})}),
             {Live("a", "1"), Live("b", "1"), Live("c", "2", "OutOfSync")}};
  s.set.strategy.steps[0].analysis = Analysis(2, 1);
  if (soak > 0) s.set.strategy.steps[0].min_success_seconds = soak;
  s.Entries(
      {Entry("a", S::kHealthy, "1"), Entry("b", S::kHealthy, "1"), Entry("c", S::kWaiting, "2")});
  s.Rollout(state);
  return s;
}

AnalysisMeasurement M(Time at, double value) { return {at, value, value < 0.5, ""}; }

RolloutState Measured(std::vector<AnalysisMeasurement> measurements) {
  RolloutState st = AtStep(1);
  st.analysis = StepAnalysisRecord{1, std::move(measurements)};
  return st;
}

TEST(AnalysisGate, TheNextStepWaitsForCountPassingMeasurements) {
  struct Case {
    const char* name;
    RolloutState stored;
    bool opens;               // step 2's app is synced in this decision
    std::optional<Time> due;  // the measurement asked for
    const char* reason;       // RolloutProgressing's
  };
  const Time t0 = T("2026-03-01T11:59:00Z");
  const Case cases[] = {
      {"CompleteAppsAskForAFirstMeasurementAtOnce", AtStep(1), false, kNow,
       "ApplicationSetModified"},
      {"OnePassedTheNextIsDueAnIntervalLater", Measured({M(t0, 0.1)}), false, t0 + seconds(30),
       "ApplicationSetModified"},
      {"AnIntervalLaterItIsDueNow", Measured({M(kNow - seconds(30), 0.1)}), false, kNow,
       "ApplicationSetModified"},
      {"CountPassedOpensTheNextStep", Measured({M(t0, 0.1), M(t0 + seconds(30), 0.2)}), true,
       std::nullopt, "ApplicationSetModified"},
      {"AFailureWithinTheLimitWaitsForMore", Measured({M(t0, 0.9), M(t0 + seconds(30), 0.1)}),
       false, t0 + seconds(60), "ApplicationSetModified"},
      {"AStepAlreadyPassedIsNotAnalysedAgain", AtStep(2), true, std::nullopt,
       "ApplicationSetModified"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const PlanResult r = Analysed(c.stored).Run();
    EXPECT_EQ(r.apps_to_sync, c.opens ? std::vector<std::string>{"c"} : std::vector<std::string>{});
    EXPECT_EQ(r.rollout->step, c.opens ? 2 : 1);
    ASSERT_EQ(r.analysis_due.has_value(), c.due.has_value());
    if (c.due) {
      EXPECT_EQ(r.analysis_due->due, *c.due);
      EXPECT_EQ(r.analysis_due->step, 1);
      EXPECT_EQ(r.analysis_due->generation, 1);
      EXPECT_EQ(r.analysis_due->spec.query, "sum(rate(errors[5m]))");
      EXPECT_EQ(r.analysis_due->spec.prometheus, "http://prom:9090");
    }
    EXPECT_EQ(ConditionOf(r, "RolloutProgressing").reason, c.reason);
  }
}

TEST(AnalysisGate, IncompleteAppsAskForNoMeasurement) {
  Scenario s = Analysed(AtStep(1));
  s.App("b").health_status = "Degraded";
  const PlanResult r = s.Run();
  EXPECT_FALSE(r.analysis_due) << "analysis starts once the step's apps are complete";
  EXPECT_TRUE(r.apps_to_sync.empty());
}

TEST(AnalysisGate, OneFailureOverTheLimitHaltsNamingTheStepValuesAndCondition) {
  const Time t0 = T("2026-03-01T11:59:00Z");
  const PlanResult r = Analysed(Measured({M(t0, 0.9), M(t0 + seconds(30), 0.73)})).Run();
  EXPECT_TRUE(r.apps_to_sync.empty());
  EXPECT_FALSE(r.analysis_due) << "a failed analysis takes no more measurements";
  EXPECT_EQ(r.rollout->failed_step, 1);
  EXPECT_TRUE(r.rollout->failed_apps.empty());
  const AppSetCondition& c = ConditionOf(r, "RolloutProgressing");
  EXPECT_EQ(c.status, "False");
  EXPECT_EQ(c.reason, "RolloutFailed");
  EXPECT_EQ(c.message,
            "ApplicationSet rollout step 1 failed: analysis failed: 2 measurements did not meet "
            "\"< 0.5\", more than its failureLimit 1 allows: 0.9 at 2026-03-01T11:59:00Z, 0.73 "
            "at 2026-03-01T11:59:30Z (query: sum(rate(errors[5m]))); promotion is halted until "
            "a new revision or a resume");
}

TEST(AnalysisGate, AnUnreachablePrometheusFailsTheMeasurementNeverPasses) {
  const AnalysisSpec spec = Analysis(1, 0);
  const AnalysisMeasurement m = Measure(spec, {std::nullopt, "connection refused"}, kNow);
  EXPECT_FALSE(m.passed);
  RolloutState st = AtStep(1);
  st.analysis = StepAnalysisRecord{1, {m}};
  Scenario s = Analysed(st);
  s.set.strategy.steps[0].analysis = spec;
  const PlanResult r = s.Run();
  EXPECT_EQ(r.rollout->failed_step, 1);
  EXPECT_NE(ConditionOf(r, "RolloutProgressing")
                .message.find("no value (Prometheus did not answer: connection refused)"),
            std::string::npos)
      << ConditionOf(r, "RolloutProgressing").message;
}

TEST(AnalysisGate, WithASoakMeasurementsRunWhileItSoaksAndBothMustPass) {
  // Soak 600 s; the analysis passes after two measurements 30 s apart, long before the soak
  // ends: the step waits for the soak. The other way round, a soak that ended keeps its clock
  // while the analysis still runs.
  KeptDeciders k(Analysed(AtStep(1), 600));
  PlanResult r = k.Decide(kNow);
  ASSERT_TRUE(r.analysis_due);
  EXPECT_EQ(r.analysis_due->due, kNow);
  EXPECT_EQ(r.soak_ends_at, kNow + seconds(601));
  k.Measure(*r.analysis_due, M(kNow, 0.1));
  r = k.Decide(kNow);
  ASSERT_TRUE(r.analysis_due);
  EXPECT_EQ(r.analysis_due->due, kNow + seconds(30));
  k.Measure(*r.analysis_due, M(kNow + seconds(30), 0.2));
  r = k.Decide(kNow + seconds(30));
  EXPECT_FALSE(r.analysis_due) << "passed";
  EXPECT_TRUE(r.apps_to_sync.empty()) << "still soaking";
  r = k.Decide(kNow + seconds(601));
  EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"c"});

  KeptDeciders slow(Analysed(AtStep(1), 10));
  r = slow.Decide(kNow);
  slow.Measure(*r.analysis_due, M(kNow, 0.1));
  r = slow.Decide(kNow + seconds(11));
  EXPECT_TRUE(r.apps_to_sync.empty()) << "soaked, the analysis still runs";
  EXPECT_EQ(r.rollout->soak_started_at, kNow) << "the soak clock stays";
  ASSERT_TRUE(r.analysis_due);
  slow.Measure(*r.analysis_due, M(kNow + seconds(30), 0.1));
  r = slow.Decide(kNow + seconds(30));
  EXPECT_EQ(r.apps_to_sync, std::vector<std::string>{"c"});
}

TEST(AnalysisGate, AStaleMeasurementIsRefused) {
  RolloutState st = AtStep(1);
  const AnalysisRequest request{1, 1, kNow, Analysis(2, 1)};
  AnalysisRequest other_step = request;
  other_step.step = 2;
  AnalysisRequest other_generation = request;
  other_generation.generation = 2;
  EXPECT_FALSE(RecordAnalysisMeasurement(st, other_step, M(kNow, 0.1)));
  EXPECT_FALSE(RecordAnalysisMeasurement(st, other_generation, M(kNow, 0.1)));
  EXPECT_FALSE(st.analysis);
  st.aborted = true;
  EXPECT_FALSE(RecordAnalysisMeasurement(st, request, M(kNow, 0.1))) << "held";
  st.aborted = false;
  EXPECT_TRUE(RecordAnalysisMeasurement(st, request, M(kNow + seconds(5), 0.1)));
  EXPECT_TRUE(RecordAnalysisMeasurement(st, request, M(kNow, 0.2)));
  ASSERT_TRUE(st.analysis);
  EXPECT_EQ(st.analysis->step, 1);
  ASSERT_EQ(st.analysis->measurements.size(), 2u);
  EXPECT_EQ(st.analysis->measurements[0].at, kNow) << "in time order";
}

TEST(AnalysisGate, APauseOrAnAbortTakesNoMeasurement) {
  RolloutState paused = AtStep(1);
  paused.paused = true;
  paused.paused_at = kNow - seconds(5);
  EXPECT_FALSE(Analysed(paused).Run().analysis_due);
  RolloutState aborted = AtStep(1);
  aborted.aborted = true;
  EXPECT_FALSE(Analysed(aborted).Run().analysis_due);
}

TEST(AnalysisGate, AResumeRunsAFailedAnalysisAgain) {
  const Time t0 = T("2026-03-01T11:59:00Z");
  KeptDeciders k(Analysed(Measured({M(t0, 0.9), M(t0 + seconds(30), 0.8)})));
  PlanResult r = k.Decide(kNow);
  EXPECT_EQ(r.rollout->failed_step, 1);
  k.Resume(kNow + seconds(5));
  r = k.Decide(kNow + seconds(5));
  EXPECT_EQ(r.rollout->failed_step, 0);
  EXPECT_FALSE(r.rollout->analysis) << "the failed measurements went with the halt";
  ASSERT_TRUE(r.analysis_due);
  EXPECT_EQ(r.analysis_due->due, kNow + seconds(5));
}

TEST(AnalysisGate, ANewGenerationAnalysesAgain) {
  Scenario s = Analysed(AtStep(2));
  for (auto& a : s.live) a.revisions = {"r2"};
  s.App("a").sync_status = "OutOfSync";
  const PlanResult r = s.Run();
  EXPECT_EQ(r.rollout->generation, 2);
  EXPECT_EQ(r.rollout->step, 1);
  EXPECT_FALSE(r.rollout->analysis);
}

}  // namespace
}  // namespace fleetwave::engine
