// Issue 30: a job that throws costs one job and never leaves its requester waiting. A job
// posted with its object answers through on_failure with an error naming the object; every
// failure is logged naming it and counted; the pool's threads go on with the next job.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "actors/blocking_pool.h"

namespace fleetwave::actors {
namespace {

struct Recorder {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> log, answers;
  int failures = 0, ran = 0;
  bool WaitFor(const std::function<bool()>& done) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(10), done);
  }
};

void Exercise(std::size_t threads) {
  Recorder r;
  {
    BlockingPool pool(
        threads,
        [&](const std::string& line) {
          std::lock_guard<std::mutex> lock(r.mu);
          r.log.push_back(line);
        },
        nullptr,
        [&] {
          std::lock_guard<std::mutex> lock(r.mu);
          ++r.failures;
        });
    pool.Post(
        "/etc/fleetwave/applicationsets/typed.yaml",
        [] { throw std::runtime_error("[json.exception.type_error.302] type must be string"); },
        [&](const std::string& error) {
          std::lock_guard<std::mutex> lock(r.mu);
          r.answers.push_back(error);
          r.cv.notify_all();
        });
    pool.Post(
        "x", [] { throw 42; },
        [&](const std::string& error) {
          {
            std::lock_guard<std::mutex> lock(r.mu);
            r.answers.push_back(error);
          }
          r.cv.notify_all();  // before the throw, or the waiter sleeps out its bound
          throw std::runtime_error("the answer fails too");
        });
    pool.Post([&] {
      std::lock_guard<std::mutex> lock(r.mu);
      ++r.ran;
      r.cv.notify_all();
    });
    ASSERT_TRUE(r.WaitFor([&] { return r.answers.size() == 2 && r.ran == 1; }));
  }
  // With two threads the jobs finish in either order: compare as sets.
  std::sort(r.answers.begin(), r.answers.end());
  EXPECT_THAT(r.answers,
              ::testing::ElementsAre("/etc/fleetwave/applicationsets/typed.yaml: internal error: "
                                     "[json.exception.type_error.302] type must be string",
                                     "x: internal error: unknown exception"));
  EXPECT_EQ(r.failures, 2);
  const auto names = [&](const std::string& object) {
    return std::any_of(r.log.begin(), r.log.end(), [&](const std::string& line) {
      return line.find(object) != std::string::npos;
    });
  };
  EXPECT_TRUE(names("typed.yaml")) << ::testing::PrintToString(r.log);
  EXPECT_TRUE(names("x: internal error")) << ::testing::PrintToString(r.log);
}

TEST(BlockingPoolFailure, AJobThatThrowsAnswersItsRequesterNamingTheObject) { Exercise(2); }

TEST(BlockingPoolFailure, InlineToo) { Exercise(0); }

TEST(BlockingPoolFailure, ALongExceptionTextIsCut) {
  std::string answer;
  BlockingPool pool(0);
  pool.Post(
      "f", [] { throw std::runtime_error(std::string(5000, 's') + "\nsecond line"); },
      [&](const std::string& error) { answer = error; });
  EXPECT_LT(answer.size(), 300u);
  EXPECT_NE(answer.find("(cut)"), std::string::npos);
  EXPECT_EQ(answer.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace fleetwave::actors
