// Issue 29's Prometheus analysis as pure rules (engine/rollingsync/analysis.h): the `analysis`
// field, one measurement from Prometheus' answer, the step's verdict and the stored measurements.
#include "engine/rollingsync/analysis.h"

#include <gtest/gtest.h>

#include "engine/rollingsync/rollout_state.h"
#include "tests/engine/rollingsync/builders.h"

namespace fleetwave::engine {
namespace {

using std::chrono::seconds;
using testing_builders::T;
using State = AnalysisVerdict::State;

const std::string kPath = "spec.strategy.rollingSync.steps[1].analysis";

AnalysisSpec Spec(const std::string& condition, long long count = 3, long long failure_limit = 1) {
  Issues issues;
  auto spec = DecodeAnalysis({{"query", "sum(rate(errors[5m]))"},
                              {"successCondition", condition},
                              {"interval", "30s"},
                              {"count", count},
                              {"failureLimit", failure_limit}},
                             kPath, issues);
  EXPECT_TRUE(issues.empty()) << issues[0].path << ": " << issues[0].message;
  return *spec;
}

TEST(SuccessCondition, EachOperatorAgainstTheSingleValue) {
  struct Case {
    const char* text;
    double value;
    bool holds;
  };
  const Case cases[] = {
      {"< 0.5", 0.49, true},   {"< 0.5", 0.5, false},    {"<=0.5", 0.5, true},
      {"<= 0.5", 0.51, false}, {"> 99", 99.5, true},     {">99", 99, false},
      {">= 99", 99, true},     {">= 99", 98.9, false},   {"== 0", 0, true},
      {"==0", 0.1, false},     {"  <  1e3 ", 999, true}, {"> -1", -0.5, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    std::string why;
    const auto parsed = ParseSuccessCondition(c.text, &why);
    ASSERT_TRUE(parsed) << why;
    EXPECT_EQ(parsed->Holds(c.value), c.holds);
  }
}

TEST(SuccessCondition, AnythingElseIsRefusedWithWhy) {
  struct Case {
    const char* text;
    const char* why;
  };
  const Case cases[] = {
      {"0.5", "expected an operator (<, <=, >, >=, ==) and a number, e.g. \"< 0.5\""},
      {"!= 1", "expected an operator (<, <=, >, >=, ==) and a number, e.g. \"< 0.5\""},
      {"= 1", "expected an operator (<, <=, >, >=, ==) and a number, e.g. \"< 0.5\""},
      {"< half", "\"half\" is not a number"},
      {"<", "\"\" is not a number"},
      {"< NaN", "\"NaN\" is not a number"},
      {"< inf", "\"inf\" is not a number"},
      {"< 1 2", "\"1 2\" is not a number"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    std::string why;
    EXPECT_FALSE(ParseSuccessCondition(c.text, &why));
    EXPECT_EQ(why, c.why);
  }
}

TEST(DecodeAnalysis, TheIssueFieldsWithTheirDefaults) {
  Issues issues;
  const auto spec = DecodeAnalysis(
      {{"prometheus", "http://prometheus:9090"}, {"query", "up"}, {"successCondition", "== 1"}},
      kPath, issues);
  ASSERT_TRUE(spec);
  EXPECT_TRUE(issues.empty());
  EXPECT_EQ(spec->prometheus, "http://prometheus:9090");
  EXPECT_EQ(spec->query, "up");
  EXPECT_EQ(spec->success.written, "== 1");
  EXPECT_EQ(spec->interval_seconds, 60);
  EXPECT_EQ(spec->count, 1);
  EXPECT_EQ(spec->failure_limit, 0);

  const AnalysisSpec full = Spec("< 0.5", 5, 2);
  EXPECT_EQ(full.interval_seconds, 30);
  EXPECT_EQ(full.count, 5);
  EXPECT_EQ(full.failure_limit, 2);
  EXPECT_TRUE(full.prometheus.empty()) << "the default comes from fleetwave.yaml";
}

TEST(DecodeAnalysis, EveryProblemNamesItsField) {
  struct Case {
    const char* name;
    Json analysis;
    std::string path;
    std::string message;
  };
  const Json ok = {{"query", "up"}, {"successCondition", "== 1"}};
  auto with = [&](const char* key, Json value) {
    Json j = ok;
    j[key] = std::move(value);
    return j;
  };
  auto without = [&](const char* key) {
    Json j = ok;
    j.erase(key);
    return j;
  };
  const std::vector<Case> cases = {
      {"NotAnObject", Json::array(), kPath, "wrong type: expected an object"},
      {"NoQuery", without("query"), kPath + ".query", "required field is missing"},
      {"NoCondition", without("successCondition"), kPath + ".successCondition",
       "required field is missing"},
      {"EmptyQuery", with("query", ""), kPath + ".query", "expected a non-empty string"},
      {"BadCondition", with("successCondition", "~ 1"), kPath + ".successCondition",
       "invalid \"~ 1\": expected an operator (<, <=, >, >=, ==) and a number, e.g. \"< 0.5\""},
      {"BadInterval", with("interval", "soon"), kPath + ".interval",
       "invalid duration \"soon\" (at least 1s; examples: 30s, 1m)"},
      {"ZeroCount", with("count", 0), kPath + ".count", "must be at least 1"},
      {"CountAsText", with("count", "5"), kPath + ".count", "wrong type: expected an integer"},
      {"NegativeFailureLimit", with("failureLimit", -1), kPath + ".failureLimit",
       "must be 0 or more"},
      {"NotAURL", with("prometheus", "prometheus:9090"), kPath + ".prometheus",
       "\"prometheus:9090\" is not an http:// or https:// URL"},
      {"UnknownField", with("threshold", 1), kPath + ".threshold",
       "unknown field (known: prometheus, query, successCondition, interval, count, "
       "failureLimit)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Issues issues;
    EXPECT_FALSE(DecodeAnalysis(c.analysis, kPath, issues));
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0].path, c.path);
    EXPECT_EQ(issues[0].message, c.message);
  }
}

Json Vector(const std::vector<std::string>& values) {
  Json result = Json::array();
  for (const auto& v : values) {
    result.push_back({{"metric", Json::object()}, {"value", Json::array({1772366400.0, v})}});
  }
  return {{"status", "success"}, {"data", {{"resultType", "vector"}, {"result", result}}}};
}

TEST(Measure, OnlyASingleFiniteValueMeetingTheConditionPasses) {
  const AnalysisSpec spec = Spec("< 0.5");
  const Time at = T("2026-03-01T12:00:00Z");
  struct Case {
    const char* name;
    PrometheusAnswer answer;
    bool passed;
    std::optional<double> value;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"Passes", {Vector({"0.25"}), ""}, true, 0.25, ""},
      {"FailsTheCondition", {Vector({"0.73"}), ""}, false, 0.73, ""},
      {"Scalar",
       {Json{{"status", "success"},
             {"data", {{"resultType", "scalar"}, {"result", Json::array({1772366400.0, "0.1"})}}}},
        ""},
       true,
       0.1,
       ""},
      {"Unreachable",
       {std::nullopt, "connection refused"},
       false,
       std::nullopt,
       "Prometheus did not answer: connection refused"},
      {"QueryError",
       {Json{{"status", "error"}, {"errorType", "bad_data"}, {"error", "parse error at char 4"}},
        ""},
       false,
       std::nullopt,
       "the query failed: parse error at char 4"},
      {"NoSeries",
       {Vector({}), ""},
       false,
       std::nullopt,
       "the query returned 0 series; exactly one value is needed"},
      {"TwoSeries",
       {Vector({"0.1", "0.2"}), ""},
       false,
       std::nullopt,
       "the query returned 2 series; exactly one value is needed"},
      {"NaN",
       {Vector({"NaN"}), ""},
       false,
       std::nullopt,
       "the value \"NaN\" is not a finite number"},
      {"Matrix",
       {Json{{"status", "success"},
             {"data", {{"resultType", "matrix"}, {"result", Json::array()}}}},
        ""},
       false,
       std::nullopt,
       "the query returned a matrix; a single value (vector of one series, or scalar) is needed"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const AnalysisMeasurement m = Measure(spec, c.answer, at + std::chrono::milliseconds(400));
    EXPECT_EQ(m.at, at) << "measurements are kept in whole seconds";
    EXPECT_EQ(m.passed, c.passed);
    EXPECT_EQ(m.value, c.value);
    EXPECT_EQ(m.error, c.error);
  }
}

AnalysisMeasurement M(const char* at, bool passed, std::optional<double> value = std::nullopt,
                      std::string error = "") {
  return {T(at), value, passed, std::move(error)};
}

TEST(JudgeAnalysis, PassesAfterCountPassingFailsOneOverTheLimitElseWaitsAnInterval) {
  const AnalysisSpec spec = Spec("< 0.5", /*count=*/3, /*failure_limit=*/1);
  const Time now = T("2026-03-01T12:05:00Z");
  struct Case {
    const char* name;
    std::vector<AnalysisMeasurement> measurements;
    State state;
    std::optional<Time> next_at;
  };
  const std::vector<Case> cases = {
      {"NoneYetMeasuresNow", {}, State::kRunning, now},
      {"TwoPassedNeedsAThird",
       {M("2026-03-01T12:00:00Z", true, 0.1), M("2026-03-01T12:00:30Z", true, 0.2)},
       State::kRunning,
       T("2026-03-01T12:01:00Z")},
      {"ThreePassed",
       {M("2026-03-01T12:00:00Z", true, 0.1), M("2026-03-01T12:00:30Z", true, 0.2),
        M("2026-03-01T12:01:00Z", true, 0.3)},
       State::kPassed,
       std::nullopt},
      {"OneFailureIsTolerated",
       {M("2026-03-01T12:00:00Z", true, 0.1), M("2026-03-01T12:00:30Z", false, 0.9),
        M("2026-03-01T12:01:00Z", true, 0.3)},
       State::kRunning,
       T("2026-03-01T12:01:30Z")},
      {"TwoFailuresFail",
       {M("2026-03-01T12:00:00Z", false, 0.7), M("2026-03-01T12:00:30Z", true, 0.2),
        M("2026-03-01T12:01:00Z", false, std::nullopt, "Prometheus did not answer: timeout")},
       State::kFailed,
       std::nullopt},
      {"WhicheverComesFirst",
       {M("2026-03-01T12:00:00Z", true, 0.1), M("2026-03-01T12:00:30Z", true, 0.2),
        M("2026-03-01T12:01:00Z", true, 0.3), M("2026-03-01T12:01:30Z", false, 0.8),
        M("2026-03-01T12:02:00Z", false, 0.9)},
       State::kPassed,
       std::nullopt},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const AnalysisVerdict v = JudgeAnalysis(spec, c.measurements, now);
    EXPECT_EQ(v.state, c.state);
    EXPECT_EQ(v.next_at, c.next_at);
  }
}

TEST(JudgeAnalysis, AFailedAnalysisNamesItsValuesAndWhy) {
  const AnalysisSpec spec = Spec("< 0.5", 3, 1);
  const AnalysisVerdict v = JudgeAnalysis(
      spec,
      {M("2026-03-01T12:00:00Z", false, 0.73),
       M("2026-03-01T12:00:30Z", false, std::nullopt, "Prometheus did not answer: timeout")},
      T("2026-03-01T12:01:00Z"));
  ASSERT_EQ(v.state, State::kFailed);
  EXPECT_EQ(v.message,
            "analysis failed: 2 measurements did not meet \"< 0.5\", more than its failureLimit "
            "1 allows: 0.73 at 2026-03-01T12:00:00Z, no value (Prometheus did not answer: "
            "timeout) at 2026-03-01T12:00:30Z");
}

TEST(StepAnalysisRecord, MeasurementsAreStoredAndReadBack) {
  const StepAnalysisRecord record{
      2,
      {M("2026-03-01T12:00:00Z", true, 0.25), M("2026-03-01T12:00:30Z", false, 0.75),
       M("2026-03-01T12:01:00Z", false, std::nullopt, "the query failed: timeout")}};
  const Json j = EncodeStepAnalysisRecord(record);
  EXPECT_EQ(j["step"], 2);
  EXPECT_EQ(j["measurements"][0],
            (Json{{"time", "2026-03-01T12:00:00Z"}, {"passed", true}, {"value", 0.25}}));
  EXPECT_EQ(j["measurements"][2], (Json{{"time", "2026-03-01T12:01:00Z"},
                                        {"passed", false},
                                        {"error", "the query failed: timeout"}}));
  Issues issues;
  EXPECT_EQ(DecodeStepAnalysisRecord(j, issues), record);
  EXPECT_TRUE(issues.empty());
}

TEST(StepAnalysisRecord, AWrongFieldIsAnIssueNamingIt) {
  Json j = EncodeStepAnalysisRecord({1, {M("2026-03-01T12:00:00Z", true, 0.25)}});
  j["measurements"][0]["passed"] = "yes";
  Issues issues;
  const StepAnalysisRecord r = DecodeStepAnalysisRecord(j, issues);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "status.rollout.analysis.measurements[0].passed");
  EXPECT_TRUE(r.measurements.empty()) << "a measurement that cannot be read is not counted";
}

TEST(StepAnalysisRecord, LivesInStatusRolloutForItsStepOfItsGeneration) {
  RolloutState st;
  st.generation = 2;
  st.step = 2;
  st.step_started_at = T("2026-03-01T11:59:00Z");
  st.analysis = StepAnalysisRecord{2, {M("2026-03-01T12:00:00Z", true, 0.25)}};
  const Json j = EncodeRolloutState(st);
  EXPECT_EQ(j["analysis"], EncodeStepAnalysisRecord(*st.analysis));
  Issues issues;
  EXPECT_EQ(DecodeRolloutState(j, issues), st) << "a restart goes on with the measurements";
  EXPECT_TRUE(issues.empty());

  Strategy strategy;
  strategy.steps.resize(3);
  const Time now = T("2026-03-01T12:01:00Z");
  EXPECT_EQ(AdvanceRolloutState(st, strategy, false, 2, now).analysis, st.analysis);
  EXPECT_FALSE(AdvanceRolloutState(st, strategy, false, 3, now).analysis) << "another step";
  EXPECT_FALSE(AdvanceRolloutState(st, strategy, true, 2, now).analysis) << "a new generation";

  Json wrong = j;
  wrong["analysis"]["measurements"][0]["time"] = "noon";
  DecodeRolloutState(wrong, issues);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "status.rollout.analysis.measurements[0].time");
}

}  // namespace
}  // namespace fleetwave::engine
