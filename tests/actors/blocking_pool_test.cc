// The blocking pool's start hook: every thread runs it once, before its first job (the daemon
// lowers each pool thread's priority there).
#include "actors/blocking_pool.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

namespace fleetwave::actors {
namespace {

TEST(BlockingPool, EveryThreadRunsTheStartHookOnceBeforeItsFirstJob) {
  std::mutex mu;
  std::condition_variable cv;
  std::multiset<std::thread::id> started;
  int done = 0, ran_unstarted = 0;
  constexpr int kJobs = 50;
  {
    BlockingPool pool(3, nullptr, [&] {
      std::lock_guard<std::mutex> lock(mu);
      started.insert(std::this_thread::get_id());
    });
    for (int i = 0; i < kJobs; ++i) {
      pool.Post([&] {
        std::lock_guard<std::mutex> lock(mu);
        if (started.count(std::this_thread::get_id()) != 1) ++ran_unstarted;
        ++done;
        cv.notify_all();
      });
    }
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return done == kJobs; }));
  }
  EXPECT_EQ(ran_unstarted, 0);
  EXPECT_EQ(started.size(), 3u);
  EXPECT_EQ(std::set<std::thread::id>(started.begin(), started.end()).size(), 3u);
}

}  // namespace
}  // namespace fleetwave::actors
