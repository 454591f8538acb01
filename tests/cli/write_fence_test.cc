// The cluster-side leadership fence (tools/fleetwave/write_fence.h) on a fake monotonic clock:
// a grant holds for its term until the last confirmed renewal plus the lease, and ends at once
// when revoked - or, with nobody revoking it, when the clock passes that point, which is what a
// process frozen past its lease sees the moment it thaws.
#include "tools/fleetwave/write_fence.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

namespace fleetwave::cli {
namespace {

using std::chrono::seconds;
using ::testing::HasSubstr;

struct FakeClock {
  WriteFence::Clock::time_point now{seconds(1000)};
};

TEST(WriteFence, RefusesBeforeAnyTerm) {
  FakeClock clock;
  WriteFence fence([&clock] { return clock.now; });
  EXPECT_THAT(fence.Refusal(), HasSubstr("does not lead"));
}

TEST(WriteFence, AGrantHoldsUntilItsPointAndARenewalExtendsIt) {
  FakeClock clock;
  WriteFence fence([&clock] { return clock.now; });
  fence.Grant(7, clock.now + seconds(10));
  EXPECT_EQ(fence.Refusal(), "");
  clock.now += seconds(9);
  EXPECT_EQ(fence.Refusal(), "");
  fence.Grant(7, clock.now + seconds(10));  // renewed at 1009
  clock.now += seconds(9);
  EXPECT_EQ(fence.Refusal(), "");
}

TEST(WriteFence, AFreezePastTheLeaseRefusesOnWakingWithoutARevocation) {
  FakeClock clock;
  WriteFence fence([&clock] { return clock.now; });
  fence.Grant(7, clock.now + seconds(10));
  clock.now += seconds(30);  // SIGSTOP for 30 s; nothing ran meanwhile
  EXPECT_THAT(fence.Refusal(), HasSubstr("the lease of term 7 may have expired"));
  clock.now = WriteFence::Clock::time_point(seconds(1010));  // exactly at the point: refused
  EXPECT_NE(fence.Refusal(), "");
}

TEST(WriteFence, ARevocationRefusesAtOnceUntilTheNextTerm) {
  FakeClock clock;
  WriteFence fence([&clock] { return clock.now; });
  fence.Grant(7, clock.now + seconds(10));
  fence.Revoke();
  EXPECT_THAT(fence.Refusal(), HasSubstr("no longer leads (its term 7 ended)"));
  fence.Grant(9, clock.now + seconds(10));
  EXPECT_EQ(fence.Refusal(), "");
}

}  // namespace
}  // namespace fleetwave::cli
