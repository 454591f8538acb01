// engine/appset/measure_rules.h: when a step's analysis is measured, against which Prometheus,
// and what is logged of the measurement, or of one the rollout no longer wants.
#include "engine/appset/measure_rules.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace fleetwave::engine {
namespace {

using std::chrono::seconds;

const Time kT0 = Time(seconds(1'000'000));

AnalysisRequest Request() {
  AnalysisRequest r;
  r.generation = 2;
  r.step = 1;
  r.due = kT0;
  r.spec.query = "error_rate";
  r.spec.success.written = "result < 0.05";
  return r;
}

TEST(MeasureStepOf, MeasuresWhenDueWaitsBeforeAndNeverTwiceOrWhileDeleting) {
  struct Case {
    std::string name;
    std::optional<AnalysisRequest> due;
    bool measuring, deleting;
    Time now;
    MeasureStep step;
  };
  const std::vector<Case> cases = {
      {"nothing asked", std::nullopt, false, false, kT0, MeasureStep::kNothing},
      {"due now", Request(), false, false, kT0, MeasureStep::kMeasureNow},
      {"overdue", Request(), false, false, kT0 + seconds(30), MeasureStep::kMeasureNow},
      {"due later", Request(), false, false, kT0 - seconds(1), MeasureStep::kWaitUntilDue},
      {"one in flight", Request(), true, false, kT0, MeasureStep::kNothing},
      {"deleting", Request(), false, true, kT0, MeasureStep::kNothing},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(MeasureStepOf(c.due, c.measuring, c.deleting, c.now), c.step) << c.name;
  }
}

TEST(AnalysisPrometheusOf, TheStepsOwnElseTheSets) {
  AnalysisSpec step;
  EXPECT_EQ(AnalysisPrometheusOf(step, "http://prom:9090"), "http://prom:9090");
  step.prometheus = "http://step-prom:9090";
  EXPECT_EQ(AnalysisPrometheusOf(step, "http://prom:9090"), "http://step-prom:9090");
}

TEST(MeasurementLogLine, NamesTheStepValueVerdictConditionAndQuery) {
  const std::string url = "http://prom:9090/api/v1/query?query=error_rate";
  EXPECT_EQ(MeasurementLogLine(Request(), {kT0, 0.01, true, ""}, url),
            "step=1 analysis measurement 0.01 passed \"result < 0.05\" (GET " + url + ")");
  EXPECT_EQ(MeasurementLogLine(Request(), {kT0, std::nullopt, false, "connection refused"}, url),
            "step=1 analysis measurement no value (connection refused) failed \"result < 0.05\" "
            "(GET " +
                url + ")");
  EXPECT_EQ(MeasurementDroppedLine("step=1 analysis measurement 0.01 passed"),
            "step=1 analysis measurement 0.01 passed dropped: the rollout moved on since it was "
            "asked for");
}

TEST(RolloutWithMeasurement, RecordedForItsStepOfItsGenerationElseDropped) {
  RolloutState running;
  running.generation = 2;
  running.step = 1;
  const Json stored = EncodeRolloutState(running);
  const AnalysisMeasurement m{kT0, 0.01, true, ""};

  const auto recorded = RolloutWithMeasurement(stored, Request(), m);
  ASSERT_TRUE(recorded.has_value());
  ASSERT_TRUE(recorded->analysis.has_value());
  EXPECT_EQ(recorded->analysis->step, 1);
  EXPECT_EQ(recorded->analysis->measurements, std::vector<AnalysisMeasurement>{m});

  RolloutState moved_on = running;
  moved_on.step = 2;
  EXPECT_FALSE(RolloutWithMeasurement(EncodeRolloutState(moved_on), Request(), m))
      << "another step";
  EXPECT_FALSE(RolloutWithMeasurement(std::nullopt, Request(), m)) << "no rollout stored";
  Json undecodable = stored;
  undecodable["paused"] = "yes";
  EXPECT_FALSE(RolloutWithMeasurement(undecodable, Request(), m))
      << "a stored state that does not decode is not acted on";
}

}  // namespace
}  // namespace fleetwave::engine
