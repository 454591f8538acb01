// ServiceLifecycle's sd_notify messages (tools/fleetwave/service_notify.h), through a recorder:
// READY=1 only once both the coordinator and the API are up, RELOADING=1 answered by READY=1
// only for a load that covers the SIGHUP's ticket, WATCHDOG=1 only before STOPPING=1, STATUS=
// on change. notify_socket_test.py pins the same against the real binary.
#include "tools/fleetwave/service_notify.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fleetwave::cli {
namespace {

struct Recorder {
  std::vector<std::string> sent;
  ServiceLifecycle lifecycle{[this](const std::string& s) { sent.push_back(s); }};
};

constexpr const char* kEmpty = "STATUS=0 ApplicationSets, 0 Applications, 0/0 clusters up";

TEST(StatusTextTest, CountsAndPlurals) {
  struct Case {
    const char* name;
    ServiceCounts counts;
    bool failed;
    std::string want;
  };
  const Case cases[] = {
      {"empty", {}, false, "0 ApplicationSets, 0 Applications, 0/0 clusters up"},
      {"singular", {1, 1, 1, 1}, false, "1 ApplicationSet, 1 Application, 1/1 clusters up"},
      {"some down", {2, 14, 4, 3}, false, "2 ApplicationSets, 14 Applications, 3/4 clusters up"},
      {"reload failed",
       {2, 14, 4, 3},
       true,
       "2 ApplicationSets, 14 Applications, 3/4 clusters up; last reload failed (see the log)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(StatusText(c.counts, c.failed), c.want);
  }
}

TEST(ServiceLifecycleTest, ReadyNeedsCoordinatorAndApiInEitherOrder) {
  for (bool coordinator_first : {true, false}) {
    SCOPED_TRACE(coordinator_first ? "coordinator first" : "API first");
    Recorder r;
    if (coordinator_first) {
      r.lifecycle.CoordinatorReady();
    } else {
      r.lifecycle.Started();
    }
    EXPECT_TRUE(r.sent.empty());
    if (coordinator_first) {
      r.lifecycle.Started();
    } else {
      r.lifecycle.CoordinatorReady();
    }
    ASSERT_EQ(r.sent.size(), 1u);
    EXPECT_EQ(r.sent[0], std::string("READY=1\n") + kEmpty);
    r.lifecycle.CoordinatorReady();  // a second publish does not repeat READY=1
    EXPECT_EQ(r.sent.size(), 1u);
  }
}

TEST(ServiceLifecycleTest, StatusOnlyWhenChangedAndOnlyOnceReady) {
  Recorder r;
  r.lifecycle.UpdateStatus({1, 2, 1, 0});
  EXPECT_TRUE(r.sent.empty());
  r.lifecycle.CoordinatorReady();
  r.lifecycle.Started();
  ASSERT_EQ(r.sent.size(), 1u);
  EXPECT_EQ(r.sent[0], "READY=1\nSTATUS=1 ApplicationSet, 2 Applications, 0/1 clusters up");
  r.lifecycle.UpdateStatus({1, 2, 1, 0});
  EXPECT_EQ(r.sent.size(), 1u);
  r.lifecycle.UpdateStatus({1, 2, 1, 1});
  ASSERT_EQ(r.sent.size(), 2u);
  EXPECT_EQ(r.sent[1], "STATUS=1 ApplicationSet, 2 Applications, 1/1 clusters up");
}

// Leader election (issue 28): STATUS= says leader or standby; a standby is ready without a
// coordinator (it starts none), and a role change is sent at once.
TEST(ServiceLifecycleTest, TheRoleLeadsTheStatusAndAStandbyIsReady) {
  Recorder r;
  r.lifecycle.Started();
  r.lifecycle.SetRole("standby, host-b leads");
  ASSERT_EQ(r.sent.size(), 1u);
  EXPECT_EQ(r.sent[0],
            "READY=1\nSTATUS=standby, host-b leads; 0 ApplicationSets, 0 Applications, 0/0 "
            "clusters up");
  r.lifecycle.SetRole("leader");
  ASSERT_EQ(r.sent.size(), 2u);
  EXPECT_EQ(r.sent[1], "STATUS=leader; 0 ApplicationSets, 0 Applications, 0/0 clusters up");
  r.lifecycle.CoordinatorReady();  // the new leader's coordinator: READY=1 is not repeated
  r.lifecycle.SetRole("leader");
  EXPECT_EQ(r.sent.size(), 2u);
}

TEST(ServiceLifecycleTest, ALeaderIsReadyOnlyWithItsCoordinator) {
  Recorder r;
  r.lifecycle.Started();
  r.lifecycle.SetRole("leader");
  EXPECT_TRUE(r.sent.empty());
  r.lifecycle.CoordinatorReady();
  ASSERT_EQ(r.sent.size(), 1u);
  EXPECT_EQ(r.sent[0],
            "READY=1\nSTATUS=leader; 0 ApplicationSets, 0 Applications, 0/0 clusters up");
}

TEST(ServiceLifecycleTest, ReloadIsAnsweredByTheLoadCoveringItsTicket) {
  Recorder r;
  r.lifecycle.CoordinatorReady();
  r.lifecycle.Started();
  r.sent.clear();
  r.lifecycle.ReloadRequested(2);
  ASSERT_EQ(r.sent.size(), 1u);
  EXPECT_EQ(r.sent[0], "RELOADING=1\nSTATUS=reloading");
  // A load that started before the SIGHUP (a directory change, ticket 1) does not answer it,
  // and STATUS keeps saying "reloading".
  r.lifecycle.Reloaded(1, true);
  r.lifecycle.UpdateStatus({3, 3, 0, 0});
  EXPECT_EQ(r.sent.size(), 1u);
  r.lifecycle.Reloaded(2, false);
  ASSERT_EQ(r.sent.size(), 2u);
  EXPECT_EQ(r.sent[1],
            "READY=1\nSTATUS=3 ApplicationSets, 3 Applications, 0/0 clusters up; last reload "
            "failed (see the log)");
  // A later directory-change reload that succeeds clears the failure from STATUS.
  r.lifecycle.Reloaded(2, true);
  ASSERT_EQ(r.sent.size(), 3u);
  EXPECT_EQ(r.sent[2], "STATUS=3 ApplicationSets, 3 Applications, 0/0 clusters up");
}

TEST(ServiceLifecycleTest, NothingClaimsLifeAfterStopping) {
  Recorder r;
  r.lifecycle.CoordinatorReady();
  r.lifecycle.Started();
  r.lifecycle.Alive();
  r.lifecycle.Stopping();
  r.lifecycle.Stopping();
  r.lifecycle.Alive();
  r.lifecycle.ReloadRequested(1);
  r.lifecycle.Reloaded(1, true);
  r.lifecycle.UpdateStatus({1, 1, 1, 1});
  ASSERT_EQ(r.sent.size(), 3u);
  EXPECT_EQ(r.sent[1], "WATCHDOG=1");
  EXPECT_EQ(r.sent[2], "STOPPING=1\nSTATUS=stopping");
}

TEST(ServiceLifecycleTest, StoppingBeforeReadyNeverSendsReady) {
  Recorder r;
  r.lifecycle.CoordinatorReady();
  r.lifecycle.Stopping();
  r.lifecycle.Started();
  ASSERT_EQ(r.sent.size(), 1u);
  EXPECT_EQ(r.sent[0], "STOPPING=1\nSTATUS=stopping");
}

}  // namespace
}  // namespace fleetwave::cli
