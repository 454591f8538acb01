// Poll spacing: the interval, spread by jitter, backed off while fetches fail
// (engine/poll_schedule.h).
#include "engine/poll_schedule.h"

#include <gtest/gtest.h>

namespace fleetwave::engine {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

TEST(PollScheduleTest, TheIntervalBackedOffWhileFailingAndSpreadByJitter) {
  struct Case {
    Duration interval;
    int failures;
    double jitter;
    Duration want;
  };
  const Case cases[] = {
      {seconds(60), 0, 0.5, seconds(60)},   // no failure, no spread
      {seconds(60), 0, 0.0, seconds(54)},   // -10 %
      {seconds(60), 0, 1.0, seconds(66)},   // +10 % (the sample's upper bound)
      {seconds(60), 1, 0.5, seconds(120)},  // doubled per consecutive failure
      {seconds(60), 3, 0.5, seconds(480)},  //
      {seconds(60), 4, 0.5, minutes(10)},   // capped at ten minutes
      {seconds(60), 40, 0.5, minutes(10)},  // however many (no overflow)
      {seconds(60), 40, 1.0, minutes(11)},  // the cap is spread too
      {minutes(30), 2, 0.5, minutes(30)},   // an interval above the cap is the cap
      {seconds(1), 2, 0.5, seconds(4)},     // the tests' 1 s poll
      {Duration::zero(), 3, 0.5, Duration::zero()},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::to_string(c.interval.count()) + "us, " + std::to_string(c.failures) +
                 " failures, jitter " + std::to_string(c.jitter));
    EXPECT_EQ(NextPollDelay(c.interval, c.failures, c.jitter), c.want);
  }
}

TEST(NextPollDelay, WithoutAJitterSourcePollsAreNotSpread) {
  for (const int failures : {0, 1, 3}) {
    SCOPED_TRACE(failures);
    EXPECT_EQ(NextPollDelay(std::chrono::seconds(60), failures, kUnspreadJitter),
              NextPollDelay(std::chrono::seconds(60), failures, 0.5));
  }
  EXPECT_EQ(NextPollDelay(std::chrono::seconds(60), 0, kUnspreadJitter), std::chrono::seconds(60));
  EXPECT_EQ(NextPollDelay(std::chrono::seconds(60), 1, kUnspreadJitter), std::chrono::seconds(120));
}

}  // namespace
}  // namespace fleetwave::engine
