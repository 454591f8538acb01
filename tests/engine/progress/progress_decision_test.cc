// Table tests for what the daemon does with an evaluation of a workload's progress deadline
// (engine/progress/progress_decision.h): the rules the workload actor used to decide itself.
#include "engine/progress/progress_decision.h"

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace fleetwave::engine {
namespace {

ProgressCondition Cond(std::string status, std::string reason, std::string message = "m",
                       int64_t updated_seconds = 0) {
  ProgressCondition c;
  c.status = std::move(status);
  c.reason = std::move(reason);
  c.message = std::move(message);
  c.last_update_time = Time{} + std::chrono::seconds(updated_seconds);
  c.last_transition_time = Time{};
  return c;
}

std::optional<PreviousCondition> Held(std::string status, std::string reason, std::string revision,
                                      std::string message = "m", int64_t updated_seconds = 0) {
  return PreviousCondition{
      Cond(std::move(status), std::move(reason), std::move(message), updated_seconds),
      std::move(revision)};
}

const std::optional<PreviousCondition> kNone;

TEST(DaemonDecidesDeadline, EveryKindButADeploymentWhoseControllerWritesItsOwn) {
  EXPECT_TRUE(DaemonDecidesDeadline(WorkloadKind::kCloneSet));
  EXPECT_TRUE(DaemonDecidesDeadline(WorkloadKind::kStatefulSet));
  EXPECT_TRUE(DaemonDecidesDeadline(WorkloadKind::kDaemonSet));
  EXPECT_FALSE(DaemonDecidesDeadline(WorkloadKind::kDeployment));
  EXPECT_TRUE(DaemonDecidesDeadline("CloneSet"));
  EXPECT_TRUE(DaemonDecidesDeadline("StatefulSet"));
  EXPECT_FALSE(DaemonDecidesDeadline("Deployment"));
}

struct PairCase {
  const char* name;
  std::optional<PreviousCondition> from;
  std::optional<PreviousCondition> to;
  bool changed;  // DecisionChanged
  bool logged;   // IsLoggedTransition
};

TEST(ProgressDecisionTest, WhatIsStoredAndWhatIsLogged) {
  const std::vector<PairCase> cases = {
      {"nothing held, nothing decided", kNone, kNone, false, false},
      {"a first condition", kNone, Held("True", "ReplicaSetUpdated", "2"), true, true},
      {"the condition goes", Held("True", "ReplicaSetUpdated", "2"), kNone, true, true},
      {"identical", Held("True", "ReplicaSetUpdated", "2"), Held("True", "ReplicaSetUpdated", "2"),
       false, false},
      {"the status changes", Held("True", "ReplicaSetUpdated", "2"),
       Held("False", "ReplicaSetUpdated", "2"), true, true},
      {"only the reason changes", Held("False", "ReplicaSetUpdated", "2"),
       Held("False", "ProgressDeadlineExceeded", "2"), true, true},
      {"the revision changes", Held("True", "ReplicaSetUpdated", "2"),
       Held("True", "ReplicaSetUpdated", "3"), true, true},
      {"only the message changes: stored, not logged", Held("True", "ReplicaSetUpdated", "2", "a"),
       Held("True", "ReplicaSetUpdated", "2", "b"), true, false},
      {"only a timestamp changes: stored, not logged",
       Held("True", "ReplicaSetUpdated", "2", "m", 0),
       Held("True", "ReplicaSetUpdated", "2", "m", 5), true, false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(DecisionChanged(c.from, c.to), c.changed) << c.name;
    EXPECT_EQ(IsLoggedTransition(c.from, c.to), c.logged) << c.name;
  }
}

TEST(ProgressDecisionTest, TheDecisionIsTheConditionWithItsRevision) {
  ProgressResult none;
  none.revision = "7";
  EXPECT_FALSE(DecisionOf(none)) << "no condition: nothing to hold";

  ProgressResult held;
  held.condition = Cond("False", std::string(kReasonDeadlineExceeded));
  held.revision = "7";
  const std::optional<PreviousCondition> d = DecisionOf(held);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->condition, *held.condition);
  EXPECT_EQ(d->revision, "7");
}

struct ViewCase {
  const char* name;
  std::optional<DeadlineView> reported;
  DeadlineView now;
  bool changed;
};

TEST(ProgressDecisionTest, WhenTheClusterActorHearsOfTheDeadline) {
  const std::vector<ViewCase> cases = {
      {"nothing reported yet, not exceeded", std::nullopt, DeadlineView{}, true},
      {"nothing reported yet, exceeded", std::nullopt, DeadlineView{true, "timed out"}, true},
      {"unchanged", DeadlineView{}, DeadlineView{}, false},
      {"unchanged, exceeded", DeadlineView{true, "timed out"}, DeadlineView{true, "timed out"},
       false},
      {"becomes exceeded", DeadlineView{}, DeadlineView{true, "timed out"}, true},
      {"recovers", DeadlineView{true, "timed out"}, DeadlineView{}, true},
      {"the message changes", DeadlineView{true, "revision 2 timed out"},
       DeadlineView{true, "revision 3 timed out"}, true},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(DeadlineViewChanged(c.reported, c.now), c.changed) << c.name;
  }
}

Workload CloneSetWith(std::optional<Json> field, std::optional<std::string> annotation,
                      int64_t min_ready = 0) {
  Workload w;
  w.kind = WorkloadKind::kCloneSet;
  w.progress_deadline_field = std::move(field);
  w.progress_deadline_annotation = std::move(annotation);
  w.min_ready_seconds = min_ready;
  w.update_revision = "rev-b";
  return w;
}

struct HoldCase {
  const char* name;
  Workload workload;
  bool holds;
};

TEST(ProgressDecisionTest, AConditionIsHeldOnlyWhileADeadlineIsInForce) {
  Workload on_delete = CloneSetWith(Json(60), std::nullopt);
  on_delete.kind = WorkloadKind::kStatefulSet;
  on_delete.update_strategy_type = "OnDelete";
  const std::vector<HoldCase> cases = {
      {"field", CloneSetWith(Json(60), std::nullopt), true},
      {"annotation", CloneSetWith(std::nullopt, "60"), true},
      {"absent", CloneSetWith(std::nullopt, std::nullopt), false},
      {"MaxInt32 turns it off", CloneSetWith(Json(kNoProgressDeadline), std::nullopt), false},
      {"invalid: not above minReadySeconds", CloneSetWith(Json(10), std::nullopt, 10), false},
      {"invalid: not an integer", CloneSetWith(Json("60"), std::nullopt), false},
      {"OnDelete StatefulSet", on_delete, false},
  };
  for (const auto& c : cases) EXPECT_EQ(HoldsProgressCondition(c.workload), c.holds) << c.name;
}

TEST(ProgressDecisionTest, PublishedRevisionIsTheHeldConditionsElseTheWorkloads) {
  const Workload w = CloneSetWith(Json(60), std::nullopt);
  ProgressResult none;
  none.revision = "rev-a";
  EXPECT_EQ(PublishedRevision(w, none), "rev-b") << "nothing held: the workload's own revision";

  ProgressResult held;
  held.condition = Cond("True", "ReplicaSetUpdated");
  held.revision = "rev-a";
  EXPECT_EQ(PublishedRevision(w, held), "rev-a") << "held: the revision the condition belongs to";
}

TEST(ResumeFromRecord, AStoredRecordThatDoesNotDecodeIsDroppedWhole) {
  const Json good_condition = {{"type", "Progressing"},
                               {"status", "False"},
                               {"reason", "ProgressDeadlineExceeded"},
                               {"message", "m"},
                               {"lastUpdateTime", "1970-01-01T00:00:10Z"},
                               {"lastTransitionTime", "1970-01-01T00:00:00Z"}};
  std::optional<PreviousCondition> exceeded =
      Held("False", "ProgressDeadlineExceeded", "web-5d8f", "m", 10);
  exceeded->condition.type = "Progressing";
  std::optional<PreviousCondition> no_revision = exceeded;
  no_revision->revision = "";
  Json only_update = good_condition;
  only_update.erase("lastTransitionTime");
  std::optional<PreviousCondition> from_update = exceeded;
  from_update->condition.last_transition_time = Time{} + std::chrono::seconds(10);
  struct Case {
    const char* name;
    Json record;
    std::optional<PreviousCondition> held;
  } cases[] = {
      {"a whole record resumes",
       {{"revision", "web-5d8f"}, {"condition", good_condition}},
       exceeded},
      {"no revision: the condition with none", {{"condition", good_condition}}, no_revision},
      {"one timestamp stands for both",
       {{"revision", "web-5d8f"}, {"condition", only_update}},
       from_update},
      {"not an object", Json::array(), std::nullopt},
      {"no condition", {{"revision", "web-5d8f"}}, std::nullopt},
      {"a condition that is not an object",
       {{"revision", "r"}, {"condition", "False"}},
       std::nullopt},
      {"a condition without a timestamp",
       {{"revision", "r"}, {"condition", {{"status", "False"}, {"reason", "x"}}}},
       std::nullopt},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const ResumedDecision got = ResumeFromRecord(c.record);
    EXPECT_EQ(got.dropped, !c.held.has_value());
    ASSERT_EQ(got.held.has_value(), c.held.has_value());
    if (c.held) {
      EXPECT_EQ(got.held->condition, c.held->condition);
      EXPECT_EQ(got.held->revision, c.held->revision);
    }
  }
}

}  // namespace
}  // namespace fleetwave::engine
