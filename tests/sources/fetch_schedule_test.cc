// When a repository is fetched: every git.pollInterval, and at once on a refresh request.
#include "sources/fetch_schedule.h"

#include <gtest/gtest.h>

namespace fleetwave::sources {
namespace {

using std::chrono::seconds;

TEST(FetchSchedule, PollIntervalAndRefresh) {
  const engine::Time t0 = engine::FromUnixSeconds(1'000'000);
  const engine::Duration poll = seconds(60);
  struct Case {
    std::string name;
    FetchState state;
    engine::Time now;
    bool due;
    engine::Time next;
  };
  const std::vector<Case> cases = {
      {"never fetched", {false, {}, false}, t0, true, t0},
      {"just fetched", {true, t0, false}, t0, false, t0 + seconds(60)},
      {"one second before the interval",
       {true, t0, false},
       t0 + seconds(59),
       false,
       t0 + seconds(60)},
      {"exactly the interval", {true, t0, false}, t0 + seconds(60), true, t0 + seconds(60)},
      {"long overdue", {true, t0, false}, t0 + seconds(600), true, t0 + seconds(600)},
      {"refresh requested", {true, t0, true}, t0 + seconds(1), true, t0 + seconds(1)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(FetchDue(c.state, c.now, poll), c.due);
    EXPECT_EQ(NextFetchAt(c.state, c.now, poll), c.next);
  }
}

}  // namespace
}  // namespace fleetwave::sources
