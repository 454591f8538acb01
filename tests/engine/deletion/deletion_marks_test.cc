// What an appset actor marks when its set or some of its apps disappear, and when a mark is
// cancelled (engine/deletion/deletion_marks.h).
#include "engine/deletion/deletion_marks.h"

#include <gtest/gtest.h>

namespace fleetwave::engine {
namespace {

using V = std::vector<std::string>;
using Revisions = std::vector<std::pair<std::string, int64_t>>;

Time T(const char* rfc3339) { return *ParseRfc3339(rfc3339); }

StoredDeletion Stored(DeletionPhase phase, int64_t revision, std::vector<DeletionApp> apps = {},
                      std::set<std::string> gone = {}) {
  StoredDeletion s;
  s.record = MarkPending(T("2026-03-01T11:00:00Z"), std::chrono::minutes(30), "gone");
  s.record.phase = phase;
  s.record.apps = std::move(apps);
  s.record.gone = std::move(gone);
  s.revision = revision;
  return s;
}

const auto kPending = DeletionPhase::kPendingDeletion;
const auto kDeleting = DeletionPhase::kDeleting;

TEST(DeletionMarks, TheWholeSetIsMarkedCancelledRetriedOrLeftToTheDeleter) {
  struct Case {
    const char* name;
    bool defined, trusted;
    std::optional<StoredDeletion> mark;
    bool generated_now, generated_before;
    SetMarkAction action;
    SnapshotSource snapshot = SnapshotSource::kThisGather;
    int64_t cancel_revision = 0;
  };
  const Case cases[] = {
      {"DefinedAndUnmarkedIsAnOrdinaryReconcile", true, true, std::nullopt, true, true,
       SetMarkAction::kNone},
      {"DefinedAgainWhileOnlyPendingCancelsTheMarkAtItsRevision", true, true, Stored(kPending, 9),
       true, true, SetMarkAction::kCancel, SnapshotSource::kThisGather, 9},
      {"DefinedAgainWhileDeletingLetsTheDeletionComplete", true, true, Stored(kDeleting, 9), true,
       true, SetMarkAction::kLeaveToDeleter},
      {"StillUndefinedAndMarkedIsTheDeletersBusiness", false, true, Stored(kPending, 9), true, true,
       SetMarkAction::kLeaveToDeleter},
      {"UntrustedInputsCancelNothing", true, false, Stored(kPending, 9), true, true,
       SetMarkAction::kLeaveToDeleter},
      {"UntrustedInputsMarkNothing", false, false, std::nullopt, true, true, SetMarkAction::kHold},
      {"UndefinedIsMarkedFromThisGather", false, true, std::nullopt, true, true,
       SetMarkAction::kMark, SnapshotSource::kThisGather},
      {"UndefinedWithAFailedGenerationIsMarkedFromTheLastGather", false, true, std::nullopt, false,
       true, SetMarkAction::kMark, SnapshotSource::kLastGather},
      {"UndefinedWithNothingToSnapshotRetriesAtTheNextPoll", false, true, std::nullopt, false,
       false, SetMarkAction::kRetry},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    SetMarkInput in;
    in.appset = "s";
    in.defined = c.defined;
    in.inputs_trusted = c.trusted;
    in.set_mark = c.mark;
    in.generated_now = c.generated_now;
    in.generated_before = c.generated_before;
    in.now = T("2026-03-01T12:00:00Z");
    in.poll_interval = std::chrono::seconds(30);
    const SetMarkDecision d = DecideSetMark(in);
    EXPECT_EQ(d.action, c.action);
    if (c.action == SetMarkAction::kMark) {
      EXPECT_EQ(d.snapshot, c.snapshot);
    }
    if (c.action == SetMarkAction::kCancel) {
      EXPECT_EQ(d.cancel_revision, c.cancel_revision);
      EXPECT_EQ(d.log, V{"appset=s is defined again: its pending deletion is cancelled"});
    } else {
      EXPECT_TRUE(d.log.empty());
    }
    if (c.action == SetMarkAction::kRetry) {
      EXPECT_EQ(d.retry_at, T("2026-03-01T12:00:30Z"));
      EXPECT_EQ(d.log_now, V{"cannot generate the applications to mark for deletion; retrying "
                             "at the next poll"});
    } else {
      EXPECT_FALSE(d.retry_at);
      EXPECT_TRUE(d.log_now.empty());
    }
  }
}

TEST(DeletionMarks, ASetMarkKeepsTheSnapshotAndAbsorbsTheAppsAlreadyPending) {
  ApplicationSet set;
  set.name = "s";
  set.file = "sets/s.yaml";
  set.strategy.type = "RollingSync";
  set.strategy.deletion_order = "Reverse";
  set.strategy.steps.push_back({});  // RollingSync needs a step to be enabled
  set.preserve_resources_on_deletion = true;
  const std::map<std::string, StoredDeletion> app_marks = {
      {"w", Stored(kDeleting, 5, {{"w", "c5", {}, {}}}, {"w"})},  // already gone: not again
      {"y", Stored(kPending, 6, {{"y", "old", {}, {}}})},         // the snapshot's is newer
      {"z", Stored(kPending, 4, {{"z", "c2", {}, {}}})},
  };
  const SetMark mark = MarkSetPending(set, {{"x", "c0", {}, {}}, {"y", "c1", {}, {}}}, app_marks,
                                      T("2026-03-01T12:00:00Z"), std::chrono::minutes(10));
  V apps;
  for (const auto& a : mark.record.apps) apps.push_back(a.name + "@" + a.cluster);
  EXPECT_EQ(apps, (V{"x@c0", "y@c1", "z@c2"}));
  EXPECT_EQ(mark.absorbed, (Revisions{{"w", 5}, {"y", 6}, {"z", 4}}));
  EXPECT_EQ(mark.record.phase, kPending);
  EXPECT_EQ(mark.record.due, T("2026-03-01T12:10:00Z"));
  EXPECT_EQ(mark.record.reason, "no file defines it any more (was sets/s.yaml)");
  EXPECT_TRUE(mark.record.strategy.ReverseDeletion());
  EXPECT_TRUE(mark.record.preserve_resources);
  EXPECT_EQ(mark.log,
            "appset=s is no longer defined: PendingDeletion of 3 application(s) until "
            "2026-03-01T12:10:00Z");
}

TEST(DeletionMarks, AppsNoLongerGeneratedAreMarkedAndGeneratedAgainCancelled) {
  struct Case {
    const char* name;
    bool trusted;
    std::set<std::string> known, generated;
    std::map<std::string, DeletionApp> previous;
    std::map<std::string, StoredDeletion> app_marks;
    V marked;  // "app@cluster"
    Revisions cancelled;
    V log;
  };
  const Case cases[] = {
      {"UntrustedInputsMarkNothing", false, {"a", "b"}, {}, {}, {}, {}, {}, {}},
      {"MissingIsMarkedWithThePreviousGathersSnapshot",
       true,
       {"a", "b"},
       {"a"},
       {{"b", {"b", "c1", {{"env", "qa"}}, {}}}},
       {},
       {"b@c1"},
       {},
       {"appset=s app=b cluster=c1 is no longer generated: PendingDeletion until "
        "2026-03-01T12:10:00Z"}},
      {"MissingWithoutASnapshotIsMarkedByNameOnly",
       true,
       {"b"},
       {},
       {},
       {},
       {"b@"},
       {},
       {"appset=s app=b is no longer generated: PendingDeletion until 2026-03-01T12:10:00Z"}},
      {"AlreadyMarkedIsNotMarkedAgain",
       true,
       {"b"},
       {},
       {},
       {{"b", Stored(kPending, 3)}},
       {},
       {},
       {}},
      {"GeneratedAgainCancelsPendingAndDeletingMarksAtTheirRevisions",
       true,
       {},
       {"b", "c"},
       {},
       {{"b", Stored(kPending, 3)}, {"c", Stored(kDeleting, 4)}},
       {},
       {{"b", 3}, {"c", 4}},
       {"appset=s app=b is generated again: its pending deletion is cancelled",
        "appset=s app=c is generated again: its pending deletion is cancelled"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    AppMarksInput in;
    in.appset = "s";
    in.inputs_trusted = c.trusted;
    in.known = c.known;
    in.generated = c.generated;
    in.previous = c.previous;
    in.app_marks = c.app_marks;
    in.now = T("2026-03-01T12:00:00Z");
    in.grace = std::chrono::minutes(10);
    const AppMarks marks = MarkDisappearedApps(in);
    V marked;
    for (const auto& [app, r] : marks.marked) {
      ASSERT_EQ(r.apps.size(), 1u);
      EXPECT_EQ(r.apps[0].name, app);
      EXPECT_EQ(r.phase, kPending);
      EXPECT_EQ(r.reason, "no longer generated");
      auto p = c.previous.find(app);
      if (p != c.previous.end()) {
        EXPECT_EQ(r.apps[0], p->second);
      }
      marked.push_back(app + "@" + r.apps[0].cluster);
    }
    EXPECT_EQ(marked, c.marked);
    EXPECT_EQ(marks.cancelled, c.cancelled);
    EXPECT_EQ(marks.log, c.log);
    EXPECT_EQ(marks.changed(), !c.marked.empty() || !c.cancelled.empty());
  }
}

TEST(DeletionMarks, AMarkedAppsRecordsLeaveTheSetWithItsMark) {
  struct Case {
    const char* name;
    bool trusted;
    std::set<std::string> known, generated;
    std::map<std::string, StoredDeletion> app_marks;
    V records_leave;
  };
  const Case cases[] = {
      {"every app still generated: nothing leaves", true, {"a", "b"}, {"a", "b"}, {}, {}},
      {"each marked app's records leave", true, {"a", "b", "c"}, {"b"}, {}, {"a", "c"}},
      {"an app marked before keeps nothing to remove",
       true,
       {"b"},
       {},
       {{"b", Stored(kPending, 3)}},
       {}},
      {"a cancelled mark removes no records", true, {}, {"b"}, {{"b", Stored(kPending, 3)}}, {}},
      {"untrusted inputs: nothing leaves", false, {"a", "b"}, {}, {}, {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    AppMarksInput in;
    in.appset = "s";
    in.inputs_trusted = c.trusted;
    in.known = c.known;
    in.generated = c.generated;
    in.app_marks = c.app_marks;
    in.now = T("2026-03-01T12:00:00Z");
    in.grace = std::chrono::minutes(10);
    const AppMarks marks = MarkDisappearedApps(in);
    EXPECT_EQ(marks.records_leave, c.records_leave);
    for (const std::string& app : marks.records_leave) EXPECT_TRUE(marks.marked.count(app)) << app;
  }
}

TEST(DeletionMarks, PendingDeletionsShowTheStoredMarksAfterThisReconcile) {
  const std::map<std::string, StoredDeletion> stored = {{"a", Stored(kPending, 1)},
                                                        {"b", Stored(kDeleting, 2)}};
  AppMarks marks;
  marks.cancelled = {{"b", 2}};
  marks.marked["c"] = MarkPending(T("2026-03-01T12:00:00Z"), std::chrono::minutes(1), "x");
  const Json out = PendingDeletionsJson(stored, marks);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0]["application"], "a");
  EXPECT_EQ(out[0]["deleteAt"], "2026-03-01T11:30:00Z");
  EXPECT_EQ(out[1]["application"], "c");
  EXPECT_EQ(out[1]["phase"], "PendingDeletion");
  EXPECT_EQ(out[1]["deleteAt"], "2026-03-01T12:01:00Z");
}

TEST(DeletionMarks, PendingDeletionsShowOnlyWhileSomeAppIsPending) {
  const Json pending = Json::array({{{"application", "b"}, {"phase", "PendingDeletion"}}});
  struct Case {
    const char* name;
    Json pending;
    bool shown;
  } cases[] = {
      {"none pending: no field", Json::array(), false},
      {"one pending: shown", pending, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Json status = {{"conditions", Json::array()}};
    ShowPendingDeletions(status, c.pending);
    EXPECT_EQ(status.contains("pendingDeletions"), c.shown);
    if (c.shown) {
      EXPECT_EQ(status["pendingDeletions"], c.pending);
    }
    EXPECT_EQ(status["conditions"], Json::array());
  }
}

TEST(DeletionMarks, TheAppsJudgedAreTheStoredOnesAndTheGeneratedOnes) {
  std::map<std::string, Json> statuses = {{"a", Json::object()}, {"b", Json::object()}};
  std::map<std::string, StoredApp> stored;
  stored["c"].spec = Json::object();
  GeneratedApplication d, a;
  d.name = "d";
  a.name = "a";
  struct Case {
    const char* name;
    std::map<std::string, Json> statuses;
    std::map<std::string, StoredApp> stored;
    std::set<std::string> present;
    std::vector<GeneratedApplication> generation;
    std::set<std::string> known, generated;
  } cases[] = {
      {"nothing stored, nothing generated", {}, {}, {}, {}, {}, {}},
      {"a status or a stored spec makes an app known",
       statuses,
       stored,
       {},
       {},
       {"a", "b", "c"},
       {}},
      {"this generation's apps and the decision's present ones are generated",
       {},
       {},
       {"e"},
       {d, a},
       {},
       {"a", "d", "e"}},
      {"both", statuses, stored, {"b"}, {a}, {"a", "b", "c"}, {"a", "b"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const AppsToJudge got = AppsToJudgeOf(c.statuses, c.stored, c.present, c.generation);
    EXPECT_EQ(got.known, c.known);
    EXPECT_EQ(got.generated, c.generated);
  }
}

TEST(DeletionMarks, ASetMarkDecisionHoldsOrReleasesTheSetsReconciles) {
  using A = SetMarkAction;
  struct Case {
    const char* name;
    A action;
    std::optional<bool> deleting;
    bool stores, reconcile_after;
    std::optional<bool> after_stored, after_failed;
  } cases[] = {
      {"an ordinary reconcile: as it was", A::kNone, std::nullopt, false, false, std::nullopt,
       false},
      {"retried later: as it was", A::kRetry, std::nullopt, false, false, std::nullopt, false},
      {"the deletion actor's: held", A::kLeaveToDeleter, true, false, false, std::nullopt, false},
      {"inputs not loaded: held", A::kHold, true, false, false, std::nullopt, false},
      {"marked: held, stays held once stored", A::kMark, true, true, false, std::nullopt, false},
      {"cancelled: released, reconciles afresh once stored", A::kCancel, false, true, true, false,
       false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const SetMarkEffect e = EffectOfSetMark(c.action);
    EXPECT_EQ(e.deleting, c.deleting);
    EXPECT_EQ(e.stores, c.stores);
    EXPECT_EQ(e.reconcile_after, c.reconcile_after);
    EXPECT_EQ(DeletingAfterSetMarkCommit(e, true), c.after_stored);
    EXPECT_EQ(DeletingAfterSetMarkCommit(e, false), c.after_failed);
  }
}

}  // namespace
}  // namespace fleetwave::engine
