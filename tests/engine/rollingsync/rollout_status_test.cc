// The per-app state machine, one reconcile of one entry.
#include "engine/rollingsync/rollout_status.h"

#include <gtest/gtest.h>

#include "tests/engine/rollingsync/builders.h"

namespace fleetwave::engine {
namespace {

using namespace testing_builders;
using S = RolloutAppState;

Application WithOp(Application a, const char* phase, const char* started) {
  a.operation_state = OperationState{phase, T(started), Json::object()};
  return a;
}

TEST(AppRolloutStatus, StateMachineTable) {
  const Time now = T("2026-03-01T12:00:00Z");
  struct Case {
    const char* name;
    std::optional<AppRolloutStatus> previous;
    Application live;
    bool spec_differs;
    S status;
    std::string message;  // empty: the previous message is kept
    std::vector<std::string> pinned;
    bool changed;
    bool transitioned;  // lastTransitionTime == now
  };
  const Case cases[] = {
      {"NoEntryOutOfSyncDefaultsToWaiting",
       std::nullopt,
       Live("a", "1", "OutOfSync"),
       false,
       S::kWaiting,
       "No Application status found, defaulting status to Waiting",
       {"r1"},
       false,
       true},
      {"RevisionChangeFromHealthyWaits",
       Entry("a", S::kHealthy, "1", "r0"),
       Live("a", "1", "OutOfSync"),
       false,
       S::kWaiting,
       "Application has pending changes, setting status to Waiting",
       {"r1"},
       true,
       true},
      {"SpecChangeOnlyWaits",
       Entry("a", S::kProgressing, "1"),
       Live("a", "1", "OutOfSync"),
       true,
       S::kWaiting,
       "Application has pending changes (spec differs), setting status to Waiting",
       {"r1"},
       true,
       true},
      {"SpecOnlyDifferenceWhilePendingIsNotAChange",
       Entry("a", S::kPending, "1"),
       Live("a", "1", "OutOfSync"),
       true,
       S::kPending,
       "",
       {"r1"},
       false,
       false},
      {"RevisionChangeWhilePendingWaits",
       Entry("a", S::kPending, "1", "r0"),
       Live("a", "1", "OutOfSync"),
       true,
       S::kWaiting,
       "Application has pending changes, setting status to Waiting",
       {"r1"},
       true,
       true},
      {"RevisionAndSpecChangeWaits",
       Entry("a", S::kProgressing, "1", "r0"),
       Live("a", "1", "OutOfSync"),
       true,
       S::kWaiting,
       "Application has pending changes (revision and spec differ), setting status to Waiting",
       {"r1"},
       true,
       true},
      {"ChangedButAlreadySyncedHealthyEndsHealthyWithTheNewPin",
       Entry("a", S::kHealthy, "1", "r0"),
       Live("a", "1"),
       false,
       S::kHealthy,
       "Application resource has synced, updating status to Healthy",
       {"r1"},
       true,
       true},
      {"WaitingSyncedDegradedProgresses",
       Entry("a", S::kWaiting, "1"),
       Live("a", "1", "Synced", "Degraded"),
       false,
       S::kProgressing,
       "Application resource has synced, updating status to Progressing",
       {"r1"},
       false,
       true},
      {"WaitingUnknownSyncStaysWaiting",
       Entry("a", S::kWaiting, "1"),
       Live("a", "1", "Unknown"),
       false,
       S::kWaiting,
       "",
       {"r1"},
       false,
       false},
      {"PendingOperationStartedAtTransitionCounts",  // [fleetwave] at or after
       Entry("a", S::kPending, "1", "r1", "2026-03-01T11:58:00Z"),
       WithOp(Live("a", "1", "OutOfSync"), "Running", "2026-03-01T11:58:00Z"),
       false,
       S::kProgressing,
       "Application resource became Progressing, updating status from Pending to Progressing",
       {"r1"},
       false,
       true},
      {"PendingTerminatingCountsAsRunning",
       Entry("a", S::kPending, "1"),
       WithOp(Live("a", "1", "OutOfSync"), "Terminating", "2026-03-01T11:59:00Z"),
       false,
       S::kProgressing,
       "Application resource became Progressing, updating status from Pending to Progressing",
       {"r1"},
       false,
       true},
      {"PendingSucceededAndHealthyChainsToHealthy",
       Entry("a", S::kPending, "1"),
       WithOp(Live("a", "1"), "Succeeded", "2026-03-01T11:59:00Z"),
       false,
       S::kHealthy,
       "Application resource became Healthy, updating status from Progressing to Healthy",
       {"r1"},
       false,
       true},
      {"PendingOperationBeforeTransitionStays",
       Entry("a", S::kPending, "1"),
       WithOp(Live("a", "1", "OutOfSync"), "Succeeded", "2026-03-01T11:50:00Z"),
       false,
       S::kPending,
       "",
       {"r1"},
       false,
       false},
      {"ProgressingSyncedHealthyBecomesHealthy",
       Entry("a", S::kProgressing, "1"),
       Live("a", "1"),
       false,
       S::kHealthy,
       "Application resource became Healthy, updating status from Progressing to Healthy",
       {"r1"},
       false,
       true},
      {"ProgressingHealthyButOutOfSyncStays",
       Entry("a", S::kProgressing, "1"),
       Live("a", "1", "OutOfSync"),
       false,
       S::kProgressing,
       "",
       {"r1"},
       false,
       false},
      {"HealthyDriftWithoutChangeStaysHealthy",
       Entry("a", S::kHealthy, "1"),
       Live("a", "1", "OutOfSync", "Degraded"),
       false,
       S::kHealthy,
       "",
       {"r1"},
       false,
       false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const AppRolloutStatus* prev = c.previous ? &*c.previous : nullptr;
    const AppStatusUpdate u = UpdateAppRolloutStatus(prev, c.live, c.spec_differs, "1", now);
    EXPECT_EQ(u.entry.status, c.status) << ToString(u.entry.status);
    EXPECT_EQ(u.entry.message, c.message.empty() ? "earlier message" : c.message);
    EXPECT_EQ(u.entry.target_revisions, c.pinned);
    EXPECT_EQ(u.changed, c.changed);
    EXPECT_EQ(u.entry.last_transition_time == now, c.transitioned);
    EXPECT_EQ(u.entry.step, "1");
  }
}

TEST(AppRolloutStatus, PendingWithErrorConditionProgresses) {
  for (const char* type : {"InvalidSpecError", "UnknownError"}) {
    SCOPED_TRACE(type);
    Application live = Live("a", "1", "Unknown", "Unknown");
    live.conditions.push_back({type, "boom"});
    const auto prev = Entry("a", S::kPending, "1");
    const auto u = UpdateAppRolloutStatus(&prev, live, false, "1", T("2026-03-01T12:00:00Z"));
    EXPECT_EQ(u.entry.status, S::kProgressing);
    EXPECT_EQ(u.entry.message,
              "Application resource has error and cannot sync, updating status to Progressing");
  }
}

TEST(AppRolloutStatus, EncodeDecodeRoundTrip) {
  const std::vector<AppRolloutStatus> entries = {Entry("a", S::kPending, "2", "r9")};
  Json list = Json::array({EncodeAppRolloutStatus(entries[0])});
  Issues issues;
  EXPECT_EQ(DecodeAppRolloutStatuses(list, issues), entries);
  EXPECT_TRUE(issues.empty());
  list.push_back({{"application", "b"}, {"status", "Sleeping"}});
  EXPECT_EQ(DecodeAppRolloutStatuses(list, issues).size(), 1u);
  EXPECT_EQ(issues.size(), 1u);
}

}  // namespace
}  // namespace fleetwave::engine
