// Backoff and client-side rate limiting on virtual time.
#include <gtest/gtest.h>

#include "cluster-clients/backoff.h"
#include "cluster-clients/rate_limiter.h"

namespace fleetwave::clients {
namespace {

TEST(BackoffTest, GrowsExponentiallyWithBoundedJitterUpToTheCap) {
  BackoffPolicy p{milliseconds(100), 2.0, 0.5, seconds(2), seconds(60)};
  for (std::uint64_t seed : {1ull, 2ull, 3ull, 99ull}) {
    SCOPED_TRACE(seed);
    Backoff b(p, seed);
    const long long base[] = {100, 200, 400, 800, 1600, 2000, 2000};
    for (long long want : base) {
      const long long got = ToMillis(b.Next());
      EXPECT_GE(got, want);
      EXPECT_LE(got, std::min<long long>(2000, want * 3 / 2));
    }
    b.Reset();
    EXPECT_LE(ToMillis(b.Next()), 150);
  }
}

TEST(BackoffTest, JitterSpreadsClustersApart) {
  BackoffPolicy p{seconds(1), 2.0, 0.5, seconds(30), seconds(60)};
  Backoff a(p, 1), b(p, 2);
  EXPECT_NE(a.Next(), b.Next());
}

TEST(BackoffTest, RetryAfterWinsButIsBounded) {
  BackoffPolicy p{milliseconds(100), 2.0, 0.5, seconds(2), seconds(60)};
  Backoff b(p, 1);
  EXPECT_EQ(b.Next(seconds(7)), seconds(7));  // above the cap: the server knows best
  EXPECT_EQ(b.Next(seconds(3600)), seconds(60));
}

TEST(RateLimiterTest, BurstThenQps) {
  FakeClock clock;
  RateLimiter rl({/*qps=*/5, /*burst=*/3}, clock.Now());
  // The burst goes at once.
  for (int i = 0; i < 3; ++i) EXPECT_EQ(rl.Reserve(clock.Now()), Duration::zero()) << i;
  // Then one every 200 ms, each reservation queued behind the previous one.
  EXPECT_EQ(ToMillis(rl.Reserve(clock.Now())), 200);
  EXPECT_EQ(ToMillis(rl.Reserve(clock.Now())), 400);
  clock.Advance(milliseconds(400));
  EXPECT_EQ(ToMillis(rl.Reserve(clock.Now())), 200);
  // After a long idle period the bucket refills to the burst, no more.
  clock.Advance(seconds(60));
  EXPECT_NEAR(rl.Tokens(clock.Now()), 3.0, 1e-9);
}

TEST(RateLimiterTest, ZeroQpsMeansUnlimited) {
  FakeClock clock;
  RateLimiter rl({0, 1}, clock.Now());
  for (int i = 0; i < 100; ++i) EXPECT_EQ(rl.Reserve(clock.Now()), Duration::zero());
}

}  // namespace
}  // namespace fleetwave::clients
