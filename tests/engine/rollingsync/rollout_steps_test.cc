// Step assignment, and InvalidRolloutConfig messages and their priority.
#include "engine/rollingsync/rollout_steps.h"

#include <gtest/gtest.h>

#include "tests/engine/rollingsync/builders.h"

namespace fleetwave::engine {
namespace {

using namespace testing_builders;

GeneratedApplication App(const std::string& name, std::map<std::string, std::string> labels) {
  GeneratedApplication g;
  g.name = name;
  g.labels = std::move(labels);
  return g;
}

TEST(StepSelection, MatchExpressionsTable) {
  struct Case {
    const char* name;
    std::vector<LabelSelectorRequirement> exprs;
    std::map<std::string, std::string> labels;
    bool selected;
  };
  const Case cases[] = {
      {"InPassesOnEqualValue", {Expr("env", "In", {"qa", "prod"})}, {{"env", "qa"}}, true},
      {"InFailsOnOtherValue", {Expr("env", "In", {"qa"})}, {{"env", "dev"}}, false},
      {"InFailsOnAbsentLabel", {Expr("env", "In", {"qa"})}, {}, false},
      {"NotInPassesOnAbsentLabel", {Expr("env", "NotIn", {"qa"})}, {}, true},
      {"NotInFailsOnListedValue", {Expr("env", "NotIn", {"qa", "prod"})}, {{"env", "prod"}}, false},
      {"ExpressionsAreAnded",
       {Expr("env", "In", {"qa"}), Expr("region", "NotIn", {"us-west-2"})},
       {{"env", "qa"}, {"region", "us-west-2"}},
       false},
      {"NoExpressionsSelectsEverything", {}, {{"env", "x"}}, true},
      {"UnknownOperatorNeverPassesEvenWithoutTheLabel", {Expr("tier", "Exists", {})}, {}, false},
      {"UnknownOperatorNeverPassesWithTheLabel",
       {Expr("tier", "Exists", {})},
       {{"tier", "a"}},
       false},
      {"UnknownOperatorAfterAPassingExpression",
       {Expr("env", "In", {"qa"}), Expr("tier", "Gt", {})},
       {{"env", "qa"}},
       false},
      {"TwoExpressionsOnOneKey",
       {Expr("env", "In", {"qa", "prod"}), Expr("env", "NotIn", {"prod"})},
       {{"env", "qa"}},
       true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    RolloutStep step;
    step.match_expressions = c.exprs;
    EXPECT_EQ(StepSelects(step, c.labels), c.selected);
    // AssignSteps evaluates the selectors its own (faster) way: same answers.
    Strategy strategy;
    strategy.type = "RollingSync";
    strategy.steps = {StepIn("other", {"x"}), step};
    const auto a = AssignSteps(strategy, {App("app", c.labels)});
    EXPECT_EQ(a.steps[0], c.selected ? 1 : -1);
  }
}

TEST(StepAssignment, FirstMatchingStepWinsAndUnmatchedIsMinusOne) {
  Strategy s;
  s.type = "RollingSync";
  s.steps = {StepIn("env", {"dev"}), StepIn("region", {"eu"}), StepIn("env", {"none"})};
  const auto a = AssignSteps(s, {App("both", {{"env", "dev"}, {"region", "eu"}}),
                                 App("eu", {{"region", "eu"}}), App("loose", {{"team", "x"}})});
  EXPECT_EQ(a.steps, (std::vector<int>{0, 1, -1}));
  EXPECT_EQ(a.members[0], std::vector<size_t>{0});
  EXPECT_EQ(a.members[1], std::vector<size_t>{1});
  EXPECT_TRUE(a.members[2].empty());
  EXPECT_EQ(a.issues.duplicates.at("both"), (std::vector<int>{0, 1}));
  EXPECT_EQ(a.issues.empty_steps, std::vector<int>{2});
}

TEST(StepAssignment, MembersAreInNameOrder) {
  Strategy s;
  s.type = "RollingSync";
  s.steps = {RolloutStep{}};  // no expressions: selects every app
  const auto a = AssignSteps(s, {App("c", {}), App("a", {}), App("b", {})});
  EXPECT_EQ(a.members[0], (std::vector<size_t>{1, 2, 0}));
}

TEST(StepAssignment, InvalidOperatorReportedOncePerStepFromTheStrategyAlone) {
  Strategy s;
  s.type = "RollingSync";
  RolloutStep twice;
  twice.match_expressions = {Expr("a", "Exists", {}), Expr("b", "Exists", {}), Expr("c", "Gt", {})};
  s.steps = {twice, StepIn("env", {"x"})};
  const auto a = AssignSteps(s, {});  // no app carries any of the labels
  ASSERT_EQ(a.issues.invalid_operators.size(), 2u);
  EXPECT_EQ(a.issues.ConditionMessage(),
            "Step 1 has invalid matchExpression operators: Exists, Gt. Supported Operators are "
            "'In' and 'NotIn'");
}

TEST(InvalidRolloutConfigMessage, FormatsAndPriority) {
  using Issues = RolloutConfigIssues;
  struct Case {
    const char* name;
    Issues issues;
    std::optional<std::string> message;
  };
  const Case cases[] = {
      {"NoIssues", {}, std::nullopt},
      {"EmptyStepsOne",
       {{}, {}, {}, {0}},
       "Steps [1] have no applications matching their criteria"},
      {"EmptyStepsMany",
       {{}, {}, {}, {0, 4}},
       "Steps [1 5] have no applications matching their criteria"},
      {"InvalidMaxUpdateOne",
       {{}, {}, {{0, "abc"}}, {}},
       "Step 1 has an invalid maxUpdate value: abc"},
      {"InvalidMaxUpdateMany",
       {{}, {}, {{0, "abc"}, {4, "-1"}}, {}},
       "Steps 1, 5 have invalid maxUpdate values: [abc, -1]"},
      {"DuplicateOne",
       {{}, {{"foo", {0, 1}}}, {}, {}},
       "Application 'foo' is selected by multiple steps: (1-2)"},
      {"DuplicateManySortedByName",
       {{}, {{"foo", {0, 1}}, {"bar", {1, 2}}}, {}, {}},
       "Applications 'bar', 'foo' are selected by multiple steps: [(2-3), (1-2)]"},
      {"InvalidOperatorMany",
       {{{0, "Bad"}, {4, "Other"}}, {}, {}, {}},
       "Steps 1, 5 have invalid matchExpression operators: Bad, Other. Supported Operators are "
       "'In' and 'NotIn'"},
      {"OperatorBeatsDuplicate",
       {{{1, "Bad"}}, {{"foo", {0, 1}}}, {{0, "x"}}, {2}},
       "Step 2 has invalid matchExpression operators: Bad. Supported Operators are 'In' and "
       "'NotIn'"},
      {"DuplicateBeatsMaxUpdate",
       {{}, {{"foo", {0, 1}}}, {{0, "x"}}, {2}},
       "Application 'foo' is selected by multiple steps: (1-2)"},
      {"MaxUpdateBeatsEmptySteps",
       {{}, {}, {{0, "x"}}, {2}},
       "Step 1 has an invalid maxUpdate value: x"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.issues.ConditionMessage(), c.message);
  }
}

}  // namespace
}  // namespace fleetwave::engine
