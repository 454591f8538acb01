// Decoding the rollout-safety fields of a RollingSync step (issue 29): maxFailures,
// minSuccessTime, onFailure, analysis. fleetwave extensions: a step without them decodes as
// before, and a wrong value refuses the set with the file, position and field.
#include <gtest/gtest.h>

#include "engine/appset/appset.h"
#include "engine/rollingsync/strategy_json.h"
#include "engine/yaml_json.h"
#include "tests/engine/appset/decode_testing.h"

namespace fleetwave::engine {
namespace {

// A valid set whose only step gets `fields` (each line indented as a step field); the step's
// first field is on line 21.
std::string Set(const std::string& fields) {
  return "apiVersion: argoproj.io/v1alpha1\n"  // 1
         "kind: ApplicationSet\n"              // 2
         "metadata:\n"                         // 3
         "  name: web\n"                       // 4
         "spec:\n"                             // 5
         "  generators:\n"                     // 6
         "    - list:\n"                       // 7
         "        elements:\n"                 // 8
         "          - cluster: a\n"            // 9
         "  template:\n"                       // 10
         "    metadata:\n"                     // 11
         "      name: '{{cluster}}-web'\n"     // 12
         "    spec:\n"                         // 13
         "      project: default\n"            // 14
         "      source: {repoURL: https://git.example.com/r.git, path: web, "
         "targetRevision: HEAD}\n"                                                     // 15
         "      destination: {server: https://k.example.com, namespace: web}\n"        // 16
         "  strategy:\n"                                                               // 17
         "    type: RollingSync\n"                                                     // 18
         "    rollingSync:\n"                                                          // 19
         "      steps:\n"                                                              // 20
         "        - matchExpressions: [{key: env, operator: In, values: [prod]}]\n" +  // 21
         fields;
}

DecodedApplicationSet Decode(const std::string& text) { return testing::DecodeSetYaml(text); }
std::vector<std::string> Messages(const Issues& issues) { return testing::IssueMessages(issues); }

TEST(RolloutSafetyDecode, AStepWithoutTheFieldsHasNoBudgetAndNoSoak) {
  auto r = Decode(Set(""));
  ASSERT_TRUE(r.issues.empty()) << Messages(r.issues)[0];
  const RolloutStep& step = r.appset->strategy.steps.at(0);
  EXPECT_FALSE(step.max_failures);
  EXPECT_FALSE(step.min_success_seconds);
  EXPECT_EQ(StrategyJson(r.appset->strategy)["rollingSync"]["steps"][0],
            Json::parse(R"({"matchExpressions": [{"key": "env", "operator": "In",
                            "values": ["prod"]}]})"));
}

TEST(RolloutSafetyDecode, TheFieldsAreDecoded) {
  struct Case {
    std::string name;
    std::string fields;
    std::optional<IntOrString> max_failures;
    std::optional<long long> min_success_seconds;
  };
  const std::vector<Case> cases = {
      {"IntegerBudget", "          maxFailures: 1\n", IntOrString{true, 1, ""}, std::nullopt},
      {"ZeroBudget", "          maxFailures: 0\n", IntOrString{true, 0, ""}, std::nullopt},
      {"PercentBudget", "          maxFailures: 34%\n", IntOrString{false, 0, "34%"}, std::nullopt},
      {"SoakInMinutes", "          minSuccessTime: 10m\n", std::nullopt, 600},
      {"SoakInSeconds", "          minSuccessTime: 90s\n", std::nullopt, 90},
      {"SoakInHoursAndMinutes", "          minSuccessTime: 1h30m\n", std::nullopt, 5400},
      {"HaltIsTheDefaultWrittenOut", "          onFailure: Halt\n          maxFailures: 2\n",
       IntOrString{true, 2, ""}, std::nullopt},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = Decode(Set(c.fields));
    ASSERT_TRUE(r.issues.empty()) << Messages(r.issues)[0];
    const RolloutStep& step = r.appset->strategy.steps.at(0);
    ASSERT_EQ(step.max_failures.has_value(), c.max_failures.has_value());
    if (c.max_failures) {
      EXPECT_EQ(step.max_failures->is_int, c.max_failures->is_int);
      EXPECT_EQ(step.max_failures->int_value, c.max_failures->int_value);
      EXPECT_EQ(step.max_failures->string_value, c.max_failures->string_value);
    }
    EXPECT_EQ(step.min_success_seconds, c.min_success_seconds);
  }
}

TEST(RolloutSafetyDecode, TheApiShowsTheFields) {
  auto r = Decode(Set("          maxFailures: 10%\n          minSuccessTime: 10m\n"));
  ASSERT_TRUE(r.issues.empty()) << Messages(r.issues)[0];
  const Json step = StrategyJson(r.appset->strategy)["rollingSync"]["steps"][0];
  EXPECT_EQ(step["maxFailures"], "10%");
  EXPECT_EQ(step["minSuccessTime"], "600s");
}

TEST(RolloutSafetyDecode, OnFailureRollbackIsDecodedAndShown) {
  auto rollback = Decode(Set("          onFailure: Rollback\n"));
  ASSERT_TRUE(rollback.issues.empty()) << Messages(rollback.issues)[0];
  EXPECT_EQ(rollback.appset->strategy.steps.at(0).on_failure, RolloutStep::OnFailure::kRollback);
  EXPECT_EQ(StrategyJson(rollback.appset->strategy)["rollingSync"]["steps"][0]["onFailure"],
            "Rollback");
  auto halt = Decode(Set("          onFailure: Halt\n"));
  ASSERT_TRUE(halt.issues.empty()) << Messages(halt.issues)[0];
  EXPECT_EQ(halt.appset->strategy.steps.at(0).on_failure, RolloutStep::OnFailure::kHalt);
  EXPECT_FALSE(
      StrategyJson(halt.appset->strategy)["rollingSync"]["steps"][0].contains("onFailure"));
}

TEST(RolloutSafetyDecode, AnalysisIsDecodedAndShown) {
  auto r =
      Decode(Set("          analysis:\n"
                 "            prometheus: http://prometheus:9090\n"
                 "            query: 'sum(rate(errors[5m]))'\n"
                 "            successCondition: '< 0.5'\n"
                 "            interval: 1m\n"
                 "            count: 5\n"
                 "            failureLimit: 1\n"));
  ASSERT_TRUE(r.issues.empty()) << Messages(r.issues)[0];
  const auto& a = r.appset->strategy.steps.at(0).analysis;
  ASSERT_TRUE(a);
  EXPECT_EQ(a->prometheus, "http://prometheus:9090");
  EXPECT_EQ(a->query, "sum(rate(errors[5m]))");
  EXPECT_EQ(a->success.written, "< 0.5");
  EXPECT_EQ(a->interval_seconds, 60);
  EXPECT_EQ(a->count, 5);
  EXPECT_EQ(a->failure_limit, 1);
  EXPECT_EQ(StrategyJson(r.appset->strategy)["rollingSync"]["steps"][0]["analysis"],
            Json({{"prometheus", "http://prometheus:9090"},
                  {"query", "sum(rate(errors[5m]))"},
                  {"successCondition", "< 0.5"},
                  {"interval", "60s"},
                  {"count", 5},
                  {"failureLimit", 1}}));
}

TEST(RolloutSafetyDecode, WrongValuesRefuseTheSetNamingTheField) {
  const std::string at = "set.yaml:22:";
  const std::string field = "spec.strategy.rollingSync.steps[0].";
  struct Case {
    std::string name;
    std::string fields;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"NegativeBudget", "          maxFailures: -1\n",
       at + "24: " + field +
           "maxFailures: invalid value \"-1\": must not be negative (expected an integer >= 0 "
           "or a percentage such as \"10%\")"},
      {"BudgetNotAPercentage", "          maxFailures: two\n",
       at + "24: " + field +
           "maxFailures: invalid value \"two\": a string must be a percentage like \"10%\" "
           "(expected an integer >= 0 or a percentage such as \"10%\")"},
      {"BudgetAList", "          maxFailures: [1]\n",
       at + "24: " + field + "maxFailures: wrong type: expected integer or string, got array"},
      {"BudgetABoolean", "          maxFailures: true\n",
       at + "24: " + field + "maxFailures: wrong type: expected integer or string, got boolean"},
      {"BudgetAFraction", "          maxFailures: 1.5\n",
       at + "24: " + field + "maxFailures: wrong type: expected integer or string, got number"},
      {"SoakNotADuration", "          minSuccessTime: ten minutes\n",
       at + "27: " + field +
           "minSuccessTime: invalid duration \"ten minutes\" (examples: 90s, 10m, 1h30m)"},
      {"SoakAnInteger", "          minSuccessTime: 600\n",
       at + "27: " + field + "minSuccessTime: wrong type: expected string, got integer"},
      {"SoakOfZero", "          minSuccessTime: 0s\n",
       at + "27: " + field + "minSuccessTime: must be at least 1s"},
      {"UnknownOnFailure", "          onFailure: Retry\n",
       at + "22: " + field + "onFailure: unsupported value \"Retry\" (supported: Halt, Rollback)"},
      {"OnFailureNotAString", "          onFailure: [Rollback]\n",
       at + "22: " + field + "onFailure: wrong type: expected string, got array"},
      {"AnalysisWithoutQuery", "          analysis: {successCondition: '> 0'}\n",
       at + "21: " + field + "analysis.query: required field is missing"},
      {"AnalysisBadCondition", "          analysis: {query: up, successCondition: 'about 1'}\n",
       at + "51: " + field +
           "analysis.successCondition: invalid \"about 1\": expected an operator (<, <=, >, >=, "
           "==) and a number, e.g. \"< 0.5\""},
      {"AnalysisNotAnObject", "          analysis: up\n",
       at + "21: " + field + "analysis: wrong type: expected an object"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = Decode(Set(c.fields));
    EXPECT_EQ(Messages(r.issues), std::vector<std::string>{c.want});
  }
}

}  // namespace
}  // namespace fleetwave::engine
