// Background threads run below the I/O thread: the nice value is per thread on Linux, so
// lowering one thread leaves the caller's and the process's other threads as they were.
#include "tools/fleetwave/thread_priority.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

namespace fleetwave::cli {
namespace {

int ThisThreadsNice() { return getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid))); }

TEST(ThreadPriority, LowersOnlyTheCallingThreadAndStopsAtNineteen) {
  const int main_before = ThisThreadsNice();
  int before = 0, lowered = 0, capped = 0;
  bool first = false, second = false;
  std::thread worker([&] {
    before = ThisThreadsNice();
    first = LowerThisThreadsPriority(3);
    lowered = ThisThreadsNice();
    second = LowerThisThreadsPriority(100);
    capped = ThisThreadsNice();
  });
  worker.join();
  EXPECT_TRUE(first);
  EXPECT_TRUE(second);
  EXPECT_EQ(before, main_before) << "a new thread starts at its creator's value";
  EXPECT_EQ(lowered, std::min(19, before + 3));
  EXPECT_EQ(capped, 19);
  EXPECT_EQ(ThisThreadsNice(), main_before) << "the calling thread only";
}

}  // namespace
}  // namespace fleetwave::cli
