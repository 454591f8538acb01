// Which analysis steps have no Prometheus to ask (engine/rollingsync/analysis_settings.h, issue
// 29).
#include "engine/rollingsync/analysis_settings.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace fleetwave::engine {
namespace {

// A RollingSync strategy with one step per entry: nullopt = no analysis, "" = an analysis
// without its own prometheus, else the analysis' prometheus.
Strategy Steps(const std::vector<std::optional<std::string>>& prometheus) {
  Strategy s;
  s.type = "RollingSync";
  for (const auto& p : prometheus) {
    RolloutStep step;
    if (p) {
      AnalysisSpec a;
      a.query = "errors";
      a.prometheus = *p;
      step.analysis = a;
    }
    s.steps.push_back(step);
  }
  return s;
}

TEST(AnalysisSettings, StepsWithoutAnyPrometheus) {
  struct Case {
    const char* name;
    Strategy strategy;
    std::string default_prometheus;
    std::vector<int> missing;
  };
  Strategy all_at_once = Steps({""});
  all_at_once.type = "AllAtOnce";
  const std::vector<Case> cases = {
      {"NoAnalysis", Steps({std::nullopt, std::nullopt}), "", {}},
      {"OwnPrometheus", Steps({std::nullopt, "http://p:9090"}), "", {}},
      {"NeitherOwnNorDefault", Steps({std::nullopt, "", "http://p:9090", ""}), "", {1, 3}},
      {"TheDefaultServesThem", Steps({"", ""}), "http://p:9090", {}},
      {"NotRollingSync", all_at_once, "", {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(StepsWithoutPrometheus(c.strategy, c.default_prometheus), c.missing);
    EXPECT_EQ(MissingPrometheusCondition(c.strategy, c.default_prometheus).has_value(),
              !c.missing.empty());
  }
}

TEST(AnalysisSettings, TheMessageNamesEachStepAndBothSettings) {
  EXPECT_EQ(MissingPrometheusMessage({}), "");
  EXPECT_EQ(MissingPrometheusMessage({0}),
            "spec.strategy.rollingSync.steps[0].analysis (step 1) has no prometheus and "
            "fleetwave.yaml sets no analysis.prometheus: the analysis could never pass; set the "
            "step's analysis.prometheus or analysis.prometheus in fleetwave.yaml");
  EXPECT_EQ(MissingPrometheusMessage({0, 2, 3}).substr(0, 194),
            "spec.strategy.rollingSync.steps[0].analysis (step 1), "
            "spec.strategy.rollingSync.steps[2].analysis (step 3) and "
            "spec.strategy.rollingSync.steps[3].analysis (step 4) have no prometheus and fleetwa");
  const auto c = MissingPrometheusCondition(Steps({""}), "");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->type, "ErrorOccurred");
  EXPECT_EQ(c->status, "True");
  EXPECT_EQ(c->reason, "AnalysisPrometheusMissing");
  EXPECT_EQ(c->message, MissingPrometheusMessage({0}) + "; this ApplicationSet is not reconciled");
}

}  // namespace
}  // namespace fleetwave::engine
