// The deletion actor's answers besides the sweep: the API's DELETE of a pending set, the
// pending counts per set, the clusters still needed and the apps to watch.
#include "engine/deletion/deletion_requests.h"

#include <gtest/gtest.h>

namespace fleetwave::engine {
namespace {

using V = std::vector<std::string>;

Time T(const char* rfc3339) { return *ParseRfc3339(rfc3339); }

DeletionRecord Record(DeletionPhase phase, std::vector<DeletionApp> apps = {},
                      std::set<std::string> gone = {}) {
  DeletionRecord r = MarkPending(T("2026-03-01T12:00:00Z"), std::chrono::minutes(10), "gone");
  r.phase = phase;
  r.apps = std::move(apps);
  r.gone = std::move(gone);
  return r;
}

TEST(DeletionRequests, TheApiDeletesOnlyASetPendingDeletionAndAtOnce) {
  struct Case {
    const char* name;
    std::optional<DeletionRecord> record;
    CommandOutcome outcome;
    std::string message, log;
    bool stored;
  };
  const Case cases[] = {
      {"NotPendingIsRefused", std::nullopt, CommandOutcome::kConflict,
       "deletion of applicationset s requested by ops refused: the set is not pending deletion",
       "appset=s deletion requested by ops: the set is not pending deletion", false},
      {"AlreadyDeletingIsUnchanged", Record(DeletionPhase::kDeleting), CommandOutcome::kUnchanged,
       "applicationset s is being deleted", "appset=s deletion requested by ops: already Deleting",
       false},
      {"PendingIsDueNow", Record(DeletionPhase::kPendingDeletion), CommandOutcome::kAccepted,
       "applicationset s is deleted now, without waiting for its grace period",
       "appset=s deletion requested by ops: deleting now, without waiting for the grace period",
       true},
  };
  const Time now = T("2026-03-01T12:03:00Z");
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const ExpediteDecision d = DecideExpedite("s", c.record, "ops", now);
    EXPECT_EQ(d.answer.outcome, c.outcome);
    EXPECT_EQ(d.answer.message, c.message);
    EXPECT_EQ(d.log, c.log);
    ASSERT_EQ(d.record.has_value(), c.stored);
    if (c.stored) {
      EXPECT_EQ(d.record->due, now);
      EXPECT_EQ(d.record->reason, "gone; deletion requested by ops");
      EXPECT_EQ(d.record->phase, DeletionPhase::kPendingDeletion) << "the sweep starts it";
    }
  }
}

TEST(DeletionRequests, CountsNeedsAndWatchesLeaveOutWhatIsGone) {
  std::map<DeletionKey, StoredDeletion> records;
  records[{"a", ""}] = {
      Record(DeletionPhase::kDeleting,
             {{"x", "c0", {}, {}}, {"y", "c1", {}, {}}, {"z", "", {}, {}}}, {"x"}),
      1};
  records[{"b", "p"}] = {Record(DeletionPhase::kPendingDeletion, {{"p", "c2", {}, {}}}), 2};
  records[{"b", "q"}] = {Record(DeletionPhase::kDeleting, {{"q", "c3", {}, {}}}, {"q"}), 3};

  EXPECT_EQ(PendingDeletionCounts(records), (std::map<std::string, int>{{"a", 2}, {"b", 2}}))
      << "a set's record counts its apps not gone; an app's record one, gone or not";
  EXPECT_EQ(ClustersStillNeeded(records), (std::set<std::string>{"c1", "c2"}))
      << "not c0 (x gone), not \"\" (z has no cluster), not c3 (q gone)";
  V watched;
  for (const auto& a : AppsToWatch(records[{"a", ""}].record)) watched.push_back(a.name);
  EXPECT_EQ(watched, V{"y"});
}

}  // namespace
}  // namespace fleetwave::engine
