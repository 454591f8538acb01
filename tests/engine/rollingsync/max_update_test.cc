// RollingSync maxUpdate values and the budget they give a step.
#include "engine/rollingsync/max_update.h"

#include <gtest/gtest.h>

#include "tests/engine/rollingsync/builders.h"

namespace fleetwave::engine {
namespace {

using namespace testing_builders;

TEST(MaxUpdate, BudgetTable) {
  struct Case {
    const char* name;
    std::optional<IntOrString> value;
    long long total;
    std::optional<long long> limit;
    bool invalid;
  };
  const Case cases[] = {
      {"UnsetIsUnlimited", std::nullopt, 10, std::nullopt, false},
      {"IntegerIsTaken", Int(3), 10, 3, false},
      {"IntegerAboveTotalIsFine", Int(30), 10, 30, false},
      {"ZeroIsAManualGate", Int(0), 10, 0, false},
      {"NegativeIntegerBehavesAsZero", Int(-1), 10, 0, true},
      {"PercentRoundsDown", Str("50%"), 3, 1, false},
      {"PercentOfTwenty", Str("10%"), 20, 2, false},
      {"HundredPercentIsAll", Str("100%"), 3, 3, false},
      {"OverHundredPercentIsAllowed", Str("250%"), 4, 10, false},
      {"SmallPercentRaisedToOne", Str("1%"), 3, 1, false},
      {"PercentOfEmptyStepRaisedToOne", Str("50%"), 0, 1, false},
      {"ZeroPercentStaysZero", Str("0%"), 10, 0, false},
      {"PaddedZeroPercentIsNotExactlyZeroPercent", Str("00%"), 10, 1, false},
      {"WordBehavesAsOne", Str("abc"), 10, 1, true},
      {"DigitsWithoutPercentBehaveAsOne", Str("3"), 10, 1, true},
      {"NegativePercentBehavesAsOne", Str("-10%"), 10, 1, true},
      {"BarePercentSignBehavesAsOne", Str("%"), 10, 1, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(MaxUpdateLimit(c.value, c.total), c.limit);
    if (c.value) {
      EXPECT_EQ(InvalidMaxUpdate(*c.value).has_value(), c.invalid);
    }
  }
}

TEST(MaxUpdate, HugePercentSaturatesInsteadOfOverflowing) {
  const auto limit = MaxUpdateLimit(Str("99999999999999999999999%"), 1000);
  ASSERT_TRUE(limit);
  EXPECT_GE(*limit, 1000);
  EXPECT_FALSE(InvalidMaxUpdate(Str("99999999999999999999999%")));
}

TEST(MaxUpdate, AsWrittenForMessages) {
  EXPECT_EQ(MaxUpdateAsWritten(Int(-1)), "-1");
  EXPECT_EQ(MaxUpdateAsWritten(Str("abc")), "abc");
}

}  // namespace
}  // namespace fleetwave::engine
