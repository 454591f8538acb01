// Deleting what disappeared (product §3.5, RollingSync §8): marking, cancelling and starting
// after the grace period, and the rounds of the Deleting phase.
#include "engine/deletion/deletion_state.h"

#include <gtest/gtest.h>

#include "engine/sync/tracking.h"

namespace fleetwave::engine {
namespace {

using V = std::vector<std::string>;

Time T(const char* rfc3339) { return *ParseRfc3339(rfc3339); }

DeletionRecord Pending(const char* due) {
  DeletionRecord r = MarkPending(T("2026-03-01T12:00:00Z"), std::chrono::seconds(0), "gone");
  r.due = T(due);
  return r;
}

TEST(DeletionState, DisappearanceMarksCancelsAndStartsAfterTheGracePeriod) {
  struct Case {
    const char* name;
    bool trusted;
    std::set<std::string> known, present;
    std::map<std::string, DeletionRecord> pending;
    V mark, cancel, start;
    std::optional<Time> next_due;
    bool held;
    bool deleting_cancellable = false;  // apps: yes; whole sets: no
  };
  DeletionRecord deleting = Pending("2026-03-01T12:05:00Z");
  deleting.phase = DeletionPhase::kDeleting;
  const Case cases[] = {
      {"NothingMissingNothingDecided",
       true,
       {"a", "b"},
       {"a", "b"},
       {},
       {},
       {},
       {},
       std::nullopt,
       false},
      {"MissingIsMarkedDueOneGracePeriodLater",
       true,
       {"a", "b"},
       {"a"},
       {},
       V{"b"},
       {},
       {},
       T("2026-03-01T12:10:00Z"),
       false},
      {"EmptyOrUnreadableDirectoryOrFailedKubeconfigMarksNothing",
       false,
       {"a", "b"},
       {},
       {},
       {},
       {},
       {},
       std::nullopt,
       true},
      {"UntrustedInputsStartNothingEvenWhenDue",
       false,
       {"b"},
       {},
       {{"b", Pending("2026-03-01T12:00:00Z")}},
       {},
       {},
       {},
       std::nullopt,
       true},
      {"AlreadyPendingIsNotMarkedAgain",
       true,
       {"b"},
       {},
       {{"b", Pending("2026-03-01T12:09:00Z")}},
       {},
       {},
       {},
       T("2026-03-01T12:09:00Z"),
       false},
      {"ReappearanceCancels",
       true,
       {"b"},
       {"b"},
       {{"b", Pending("2026-03-01T12:09:00Z")}},
       {},
       V{"b"},
       {},
       std::nullopt,
       false},
      {"DueStartsDeleting",
       true,
       {"b"},
       {},
       {{"b", Pending("2026-03-01T12:00:00Z")}},
       {},
       {},
       V{"b"},
       std::nullopt,
       false},
      {"NotYetDueWaitsForTheEarliestDue",
       true,
       {"b", "c"},
       {},
       {{"b", Pending("2026-03-01T12:03:00Z")}, {"c", Pending("2026-03-01T12:02:00Z")}},
       {},
       {},
       {},
       T("2026-03-01T12:02:00Z"),
       false},
      {"ADeletingSetIsNotCancelled",
       true,
       {"b"},
       {"b"},
       {{"b", deleting}},
       {},
       {},
       {},
       std::nullopt,
       false},
      {"ADeletingAppGeneratedAgainIsCancelled",
       true,
       {"b"},
       {"b"},
       {{"b", deleting}},
       {},
       V{"b"},
       {},
       std::nullopt,
       false,
       true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    DisappearanceInput in;
    in.inputs_trusted = c.trusted;
    in.known = c.known;
    in.present = c.present;
    in.pending = c.pending;
    in.now = T("2026-03-01T12:00:00Z");
    in.grace = std::chrono::minutes(10);
    in.deleting_cancellable = c.deleting_cancellable;
    const DisappearanceDecision d = DecideDisappearance(in);
    EXPECT_EQ(d.mark, c.mark);
    EXPECT_EQ(d.cancel, c.cancel);
    EXPECT_EQ(d.start, c.start);
    EXPECT_EQ(d.next_due, c.next_due);
    EXPECT_EQ(d.held, c.held);
  }
}

TEST(DeletionState, MarkPendingIsNeverEarlyAndTheApiMakesItDueNow) {
  const DeletionRecord r =
      MarkPending(T("2026-03-01T12:00:00.400Z"), std::chrono::seconds(10), "file removed");
  EXPECT_EQ(r.since, T("2026-03-01T12:00:00Z"));
  EXPECT_EQ(r.due, T("2026-03-01T12:00:11Z"));  // 10.4 s rounded up to whole seconds
  DeletionRecord api = r;
  ExpediteDeletion(api, T("2026-03-01T12:00:03Z"), "127.0.0.1:5000");
  EXPECT_EQ(api.due, T("2026-03-01T12:00:03Z"));
  EXPECT_EQ(api.reason, "file removed; deletion requested by 127.0.0.1:5000");
}

TEST(DeletionState, RecordRoundTripsAndBadValuesAreIssuesNotThrows) {
  DeletionRecord r = Pending("2026-03-01T12:10:00Z");
  r.phase = DeletionPhase::kDeleting;
  r.strategy.type = "RollingSync";
  r.strategy.deletion_order = "Reverse";
  RolloutStep step;
  step.match_expressions.push_back({"env", "In", {"dev", "qa"}, {}});
  r.strategy.steps = {step};
  r.preserve_resources = true;
  r.apps = {{"a", "sim-0", {{"env", "dev"}}, {{"apps/v1", "Deployment"}}}};
  r.gone = {"a"};
  r.step = 1;
  Issues issues;
  auto back = DecodeDeletionRecord(EncodeDeletionRecord(r), issues);
  ASSERT_TRUE(back);
  EXPECT_TRUE(issues.empty());
  EXPECT_EQ(EncodeDeletionRecord(*back), EncodeDeletionRecord(r));
  EXPECT_TRUE(back->strategy.ReverseDeletion());

  const Json bad[] = {Json(3), Json::object(), Json{{"phase", "Deleting"}, {"since", 7}},
                      Json{{"phase", "Gone"}}};
  for (const auto& b : bad) {
    Issues i;
    EXPECT_FALSE(DecodeDeletionRecord(b, i)) << b.dump();
    EXPECT_FALSE(i.empty());
  }
}

LiveObject Tracked(const std::string& app, const std::string& kind, const std::string& name,
                   std::map<std::string, std::string> extra = {}) {
  LiveObject o;
  o.ref = {kind == "Namespace" ? "" : "apps", kind, kind == "Namespace" ? "" : "ns", name};
  o.annotations = std::move(extra);
  o.annotations[kTrackingIdAnnotation] = TrackingId({"set", app}, o.ref);
  return o;
}

DeletionRecord Reverse3() {
  DeletionRecord r = Pending("2026-03-01T12:00:00Z");
  r.strategy.type = "RollingSync";
  r.strategy.deletion_order = "Reverse";
  for (const char* env : {"dev", "qa", "prod"}) {
    RolloutStep s;
    s.match_expressions.push_back({"env", "In", {env}, {}});
    r.strategy.steps.push_back(s);
  }
  r.apps = {{"dev-a", "c0", {{"env", "dev"}}, {}},
            {"loose", "c0", {}, {}},
            {"prod-a", "c2", {{"env", "prod"}}, {}},
            {"prod-b", "c3", {{"env", "prod"}}, {}},
            {"qa-a", "c1", {{"env", "qa"}}, {}}};
  return r;
}

std::map<std::string, DeletionAppView> Views(const std::set<std::string>& empty,
                                             const std::set<std::string>& unobserved = {}) {
  std::map<std::string, DeletionAppView> out;
  for (const char* app : {"dev-a", "loose", "prod-a", "prod-b", "qa-a"}) {
    DeletionAppView v;
    v.observed = unobserved.count(app) == 0;
    if (empty.count(app) == 0) v.live = {Tracked(app, "Deployment", app)};
    out[app] = v;
  }
  return out;
}

TEST(DeletionState, ReverseRoundsGoStepByStepOnlyOnceTheWatchShowsTheObjectsGone) {
  struct Case {
    const char* name;
    std::set<std::string> stored_gone;
    std::set<std::string> empty_on_cluster;
    std::set<std::string> unobserved;
    V commands, newly_gone, waiting;
    int step;
    bool done;
  };
  const Case cases[] = {
      {"LastStepFirstAllItsAppsTogether", {}, {}, {}, V{"prod-a", "prod-b"}, {}, {}, 3, false},
      {"StepStaysWhileOneObjectRemains",
       {},
       {"prod-a"},
       {},
       V{"prod-b"},
       V{"prod-a"},
       {},
       3,
       false},
      {"EarlierStepOnlyAfterTheLaterIsGone",
       {},
       {"prod-a", "prod-b"},
       {},
       V{"qa-a"},
       V{"prod-a", "prod-b"},
       {},
       2,
       false},
      {"StoredProgressIsKeptAfterARestart",
       {"prod-a", "prod-b"},
       {},
       {},
       V{"qa-a"},
       {},
       {},
       2,
       false},
      {"UnobservedClusterWaitsAndIsNotGone",
       {},
       {"prod-a", "prod-b"},
       {"prod-a", "prod-b"},
       {},
       {},
       V{"prod-a", "prod-b"},
       3,
       false},
      {"UnmatchedLast",
       {"prod-a", "prod-b", "qa-a", "dev-a"},
       {},
       {},
       V{"loose"},
       {},
       {},
       -1,
       false},
      {"DoneWhenAllAreGone",
       {"prod-a", "prod-b", "qa-a", "dev-a"},
       {"loose"},
       {},
       {},
       V{"loose"},
       {},
       0,
       true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    DeletionRecord r = Reverse3();
    r.phase = DeletionPhase::kDeleting;
    r.gone = c.stored_gone;
    const DeletionRound round =
        PlanDeletionRound("set", r, Views(c.empty_on_cluster, c.unobserved));
    V commands;
    for (const auto& cmd : round.commands) {
      commands.push_back(cmd.app);
      EXPECT_EQ(cmd.plan.delete_now.size(), 1u);
    }
    EXPECT_EQ(commands, c.commands);
    EXPECT_EQ(round.newly_gone, c.newly_gone);
    EXPECT_EQ(round.waiting, c.waiting);
    EXPECT_EQ(round.record.step, c.step);
    EXPECT_EQ(round.done, c.done);
    EXPECT_EQ(round.changed, !c.newly_gone.empty() || c.step != 0) << "step or progress moved";
  }
}

TEST(DeletionState, PendingRecordEntersDeletingAndIsMarkedChanged) {
  DeletionRecord r = Reverse3();
  const DeletionRound round = PlanDeletionRound("set", r, Views({}));
  EXPECT_EQ(round.record.phase, DeletionPhase::kDeleting);
  EXPECT_TRUE(round.changed);
}

TEST(DeletionState, AllAtOnceDeletesEveryAppTogether) {
  DeletionRecord r = Reverse3();
  r.strategy.deletion_order = "";
  const DeletionRound round = PlanDeletionRound("set", r, Views({}));
  EXPECT_EQ(round.commands.size(), 5u);
  EXPECT_EQ(round.record.step, 0);
}

TEST(DeletionState, PreserveUnmarksOnlyAndKeptObjectsDoNotHoldTheApp) {
  DeletionRecord r = Pending("2026-03-01T12:00:00Z");
  r.apps = {{"a", "c0", {}, {}}};
  std::map<std::string, DeletionAppView> views;
  views["a"].observed = true;
  views["a"].live = {
      Tracked("a", "Deployment", "web"), Tracked("a", "Namespace", "ns"),
      Tracked("a", "Deployment", "db", {{"argocd.argoproj.io/sync-options", "Delete=false"}})};
  {
    SCOPED_TRACE("delete");
    const DeletionRound round = PlanDeletionRound("set", r, views);
    ASSERT_EQ(round.commands.size(), 1u);
    ASSERT_EQ(round.commands[0].plan.delete_now.size(), 1u);
    EXPECT_EQ(round.commands[0].plan.delete_now[0].name, "web");
    EXPECT_TRUE(round.commands[0].plan.unmark.empty());
    EXPECT_EQ(round.commands[0].plan.kept.size(), 2u);
  }
  {
    SCOPED_TRACE("only kept objects left: gone");
    auto left = views;
    left["a"].live.erase(left["a"].live.begin());
    const DeletionRound round = PlanDeletionRound("set", r, left);
    EXPECT_TRUE(round.commands.empty());
    EXPECT_EQ(round.newly_gone, V{"a"});
    EXPECT_TRUE(round.done);
  }
  {
    SCOPED_TRACE("preserve");
    r.preserve_resources = true;
    const DeletionRound round = PlanDeletionRound("set", r, views);
    ASSERT_EQ(round.commands.size(), 1u);
    EXPECT_TRUE(round.commands[0].plan.delete_now.empty());
    EXPECT_EQ(round.commands[0].plan.unmark.size(), 3u);
  }
}

TEST(DeletionState, AnAppWhoseClusterIsGoneIsOrphanedNotWaitedFor) {
  DeletionRecord r = Pending("2026-03-01T12:00:00Z");
  r.apps = {{"a", "c0", {}, {}}, {"b", "", {}, {}}};
  std::map<std::string, DeletionAppView> views;
  views["a"].cluster_exists = false;
  const DeletionRound round = PlanDeletionRound("set", r, views);
  EXPECT_EQ(round.orphaned, (V{"a", "b"}));
  EXPECT_TRUE(round.done);
}

}  // namespace
}  // namespace fleetwave::engine
