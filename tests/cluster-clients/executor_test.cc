// Executors survive callbacks that throw: the exception is logged once and the next callback
// runs. Before, an inline executor let it escape into the I/O code that submitted it and the
// serial executor's thread died with std::terminate.
#include "cluster-clients/executor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace fleetwave::clients {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Log {
  std::mutex mu;
  std::vector<std::string> lines;
  LogSink Sink() {
    return [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu);
      lines.push_back(line);
    };
  }
};

TEST(ExecutorTest, InlineExecutorLogsAThrowingCallbackAndCarriesOn) {
  Log log;
  InlineExecutor exec(log.Sink());
  int ran = 0;
  exec.Submit([] { throw std::runtime_error("bug in a callback"); });
  exec.Submit([] { throw 42; });
  exec.Submit([&] { ++ran; });
  EXPECT_EQ(ran, 1);
  ASSERT_EQ(log.lines.size(), 2u);
  EXPECT_THAT(log.lines[0], HasSubstr("bug in a callback"));
  EXPECT_THAT(log.lines[1], HasSubstr("not a std::exception"));
}

TEST(ExecutorTest, SerialExecutorThreadSurvivesAThrowingCallback) {
  Log log;
  SerialExecutor exec(log.Sink());
  std::vector<int> order;
  exec.Submit([&] { order.push_back(1); });
  exec.Submit([] { throw std::logic_error("boom"); });
  std::promise<void> last;
  exec.Submit([&] {
    order.push_back(3);
    last.set_value();
  });
  ASSERT_EQ(last.get_future().wait_for(std::chrono::seconds(20)), std::future_status::ready);
  exec.Shutdown();
  EXPECT_THAT(order, ElementsAre(1, 3));
  ASSERT_EQ(log.lines.size(), 1u);
  EXPECT_THAT(log.lines[0], HasSubstr("boom"));
}

}  // namespace
}  // namespace fleetwave::clients
