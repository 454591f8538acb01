// The blocking pool's bounded stop (issue 31): the daemon's SIGTERM waits for running jobs only
// until its stop deadline, and learns what it abandons.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "actors/blocking_pool.h"

namespace fleetwave::actors {
namespace {

using Clock = std::chrono::steady_clock;

TEST(BlockingPoolStop, IdleThreadsAreJoinedAtOnce) {
  BlockingPool pool(4);
  std::promise<void> ran;
  pool.Post(
      "appset=quick", [&] { ran.set_value(); }, nullptr);
  ran.get_future().wait();
  const auto before = Clock::now();
  EXPECT_TRUE(pool.Stop(before + std::chrono::seconds(10)).empty());
  EXPECT_LT(Clock::now() - before, std::chrono::seconds(5));
}

TEST(BlockingPoolStop, AJobThatOutlivesTheDeadlineIsNamedAndNotWaitedFor) {
  std::promise<void> started;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> queued_ran;
  BlockingPool pool(1);
  pool.Post(
      "appset=large",
      [&, released] {
        started.set_value();
        released.wait();  // a render of minutes
      },
      nullptr);
  pool.Post(
      "appset=queued", [&] { queued_ran.set_value(); }, nullptr);
  started.get_future().wait();

  const auto before = Clock::now();
  const std::vector<std::string> abandoned = pool.Stop(before + std::chrono::milliseconds(200));
  const auto waited = Clock::now() - before;
  EXPECT_EQ(abandoned, std::vector<std::string>{"appset=large"});
  EXPECT_GE(waited, std::chrono::milliseconds(200));
  EXPECT_LT(waited, std::chrono::seconds(5));  // bounded: the job still runs

  // The queued job was dropped, and the pool can still be destroyed once the job ends (the
  // daemon exits instead; a test must not leave the thread behind).
  release.set_value();
  pool.Stop();
  EXPECT_EQ(queued_ran.get_future().wait_for(std::chrono::seconds(0)), std::future_status::timeout);
}

TEST(BlockingPoolStop, AnUnnamedJobIsReportedAsSuch) {
  std::promise<void> started;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  BlockingPool pool(2);
  pool.Post([&, released] {
    started.set_value();
    released.wait();
  });
  started.get_future().wait();
  EXPECT_EQ(pool.Stop(Clock::now() + std::chrono::milliseconds(50)),
            std::vector<std::string>{"(unnamed job)"});
  release.set_value();
}

}  // namespace
}  // namespace fleetwave::actors
