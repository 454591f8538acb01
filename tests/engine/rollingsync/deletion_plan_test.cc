// deletionOrder: which apps an ApplicationSet deletion removes now.
#include "engine/deletion/deletion_plan.h"

#include <gtest/gtest.h>

#include "tests/engine/rollingsync/builders.h"

namespace fleetwave::engine {
namespace {

using namespace testing_builders;

std::vector<GeneratedApplication> Apps() {
  return DesiredOf({Live("s1-a", "1"), Live("s1-b", "1"), Live("s2-a", "2"), Live("s3-a", "3"),
                    Live("s3-b", "3"), Live("loose", "")});
}

Strategy ThreeSteps(const std::string& deletion_order) {
  Strategy s =
      RollingSet({StepIn("step", {"1"}), StepIn("step", {"2"}), StepIn("step", {"3"})}).strategy;
  s.deletion_order = deletion_order;
  return s;
}

TEST(DeletionPlan, ReverseGoesStepByStepFromTheLastUnmatchedLast) {
  using V = std::vector<std::string>;
  struct Case {
    const char* name;
    std::set<std::string> gone;
    V delete_now;
    int step;
    bool done;
  };
  const Case cases[] = {
      {"NothingGoneStartsWithTheLastStepAllTogether", {}, V{"s3-a", "s3-b"}, 3, false},
      {"PartlyGoneStepStaysCurrent", {"s3-a"}, V{"s3-b"}, 3, false},
      {"EarlierStepStartsWhenTheLaterIsGone", {"s3-a", "s3-b"}, V{"s2-a"}, 2, false},
      {"FirstStep", {"s3-a", "s3-b", "s2-a"}, V{"s1-a", "s1-b"}, 1, false},
      {"UnmatchedAppsGoLast", {"s3-a", "s3-b", "s2-a", "s1-a", "s1-b"}, V{"loose"}, -1, false},
      {"DoneWhenEverythingIsGone", {"s3-a", "s3-b", "s2-a", "s1-a", "s1-b", "loose"}, V{}, 0, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const DeletionPlan p = PlanDeletion(ThreeSteps("Reverse"), Apps(), c.gone);
    EXPECT_EQ(p.delete_now, c.delete_now);
    EXPECT_EQ(p.step, c.step);
    EXPECT_EQ(p.done, c.done);
  }
}

TEST(DeletionPlan, DeletionOrderIsCaseInsensitive) {
  EXPECT_EQ(PlanDeletion(ThreeSteps("reVERSE"), Apps(), {}).step, 3);
}

TEST(DeletionPlan, AllAtOnceUnlessReverseWithRollingSyncEnabled) {
  Strategy no_steps = ThreeSteps("Reverse");
  no_steps.steps.clear();
  Strategy all_at_once = ThreeSteps("Reverse");
  all_at_once.type = "AllAtOnce";
  for (const Strategy& s : {ThreeSteps(""), ThreeSteps("AllAtOnce"), no_steps, all_at_once}) {
    const DeletionPlan p = PlanDeletion(s, Apps(), {"s2-a"});
    EXPECT_EQ(p.delete_now, (std::vector<std::string>{"loose", "s1-a", "s1-b", "s3-a", "s3-b"}));
    EXPECT_EQ(p.step, 0);
  }
}

}  // namespace
}  // namespace fleetwave::engine
