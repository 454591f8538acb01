// Table tests for the progress-deadline state machine, for what the
// conformance vectors do not reach: the [fleetwave] clock fixes, requeue edges, v1beta1
// layouts, StatefulSet/DaemonSet predicates, OnDelete, annotation vs field, stale status.
#include "engine/progress/progress_deadline.h"

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace fleetwave::engine {
namespace {

Time T(const char* text) {
  auto t = ParseRfc3339(text);
  EXPECT_TRUE(t) << text;
  return t.value_or(Time{});
}

// A CloneSet in the middle of rolling revision "2" out: 10 wanted, 4 updated and available,
// status current, a 10 s deadline. Each case patches what it needs (JSON merge patch).
Json BaseCloneSet() {
  return R"({
    "apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet",
    "metadata": {"name": "web", "namespace": "shop", "generation": 3},
    "spec": {"replicas": 10, "progressDeadlineSeconds": 10, "minReadySeconds": 0,
             "updateStrategy": {"paused": false}},
    "status": {"observedGeneration": 3, "replicas": 10, "readyReplicas": 10,
               "availableReplicas": 10, "updatedReplicas": 4, "updatedReadyReplicas": 4,
               "updatedAvailableReplicas": 4, "expectedUpdatedReplicas": 10,
               "currentRevision": "1", "updateRevision": "2"}
  })"_json;
}

Json BaseStatefulSet() {
  return R"({
    "apiVersion": "apps/v1", "kind": "StatefulSet",
    "metadata": {"name": "db", "namespace": "shop", "generation": 7},
    "spec": {"replicas": 5, "progressDeadlineSeconds": 10,
             "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}},
    "status": {"observedGeneration": 7, "replicas": 5, "readyReplicas": 5,
               "availableReplicas": 5, "currentReplicas": 3, "updatedReplicas": 2,
               "currentRevision": "db-6d5f", "updateRevision": "db-7c9a"}
  })"_json;
}

Json BaseDaemonSet() {
  return R"({
    "apiVersion": "apps/v1", "kind": "DaemonSet",
    "metadata": {"name": "agent", "namespace": "kube-system", "generation": 5,
                 "annotations": {"fleetwave.io/progress-deadline-seconds": "10"}},
    "spec": {"updateStrategy": {"type": "RollingUpdate"}},
    "status": {"observedGeneration": 5, "desiredNumberScheduled": 3,
               "currentNumberScheduled": 3, "updatedNumberScheduled": 1,
               "numberAvailable": 2, "numberReady": 2}
  })"_json;
}

struct Prev {
  std::string status;
  std::string reason;
  std::string message;
  const char* update;
  const char* transition;
  std::string revision;
};

struct Want {
  std::string status;
  std::string reason;
  std::string message;
  const char* update;
  const char* transition;
};

struct Case {
  std::string name;
  Json object;
  const char* patch;  // merge patch onto `object`
  std::optional<Prev> previous;
  const char* now;
  std::optional<Want> want;  // nullopt: no condition
  std::string revision;
  double requeue;  // -1: none
  std::vector<std::string> problems = {};
};

std::optional<PreviousCondition> ToPrevious(const std::optional<Prev>& p) {
  if (!p) return std::nullopt;
  ProgressCondition c{"Progressing", p->status,    p->reason,
                      p->message,    T(p->update), T(p->transition)};
  return PreviousCondition{c, p->revision};
}

void Check(const Case& c) {
  SCOPED_TRACE(c.name);
  Json object = c.object;
  object.merge_patch(Json::parse(c.patch));
  const WorkloadRead read = ReadWorkload(object);
  ASSERT_TRUE(read.workload) << read.error.value_or(Error{}).message;
  const ProgressResult r = EvaluateProgress(*read.workload, ToPrevious(c.previous), T(c.now));
  if (!c.want) {
    EXPECT_FALSE(r.condition) << r.condition->reason;
  } else {
    ASSERT_TRUE(r.condition);
    EXPECT_EQ(r.condition->type, "Progressing");
    EXPECT_EQ(r.condition->status, c.want->status);
    EXPECT_EQ(r.condition->reason, c.want->reason);
    EXPECT_EQ(r.condition->message, c.want->message);
    EXPECT_EQ(FormatRfc3339(r.condition->last_update_time), c.want->update);
    EXPECT_EQ(FormatRfc3339(r.condition->last_transition_time), c.want->transition);
    EXPECT_EQ(r.revision, c.revision);
  }
  if (c.requeue < 0) {
    EXPECT_FALSE(r.requeue_after) << r.RequeueAfterSeconds();
    EXPECT_EQ(r.RequeueAfterSeconds(), -1.0);
  } else {
    ASSERT_TRUE(r.requeue_after);
    EXPECT_NEAR(r.RequeueAfterSeconds(), c.requeue, 1e-6);
  }
  std::vector<std::string> problems;
  for (const auto& p : r.problems) problems.push_back(p.path + ": " + p.message);
  EXPECT_EQ(problems, c.problems);
}

constexpr const char* kProgressing = "CloneSet is progressing";

TEST(ProgressDeadline, FleetwaveClockFixes) {
  const std::vector<Case> cases = {
      {"available for an hour, then a new rollout: the clock starts at the rollout", BaseCloneSet(),
       "{}",
       Prev{"True", "CloneSetAvailable", "CloneSet is available", "2026-01-01T09:00:00Z",
            "2026-01-01T09:00:00Z", "1"},
       "2026-01-01T10:00:00Z",
       Want{"True", "CloneSetUpdated", kProgressing, "2026-01-01T10:00:00Z",
            "2026-01-01T09:00:00Z"},
       "2", 11},
      {"paused for an hour, then resumed: paused time never counts", BaseCloneSet(), "{}",
       Prev{"True", "CloneSetPaused", "CloneSet is paused", "2026-01-01T09:00:00Z",
            "2026-01-01T08:30:00Z", "2"},
       "2026-01-01T10:00:00Z",
       Want{"True", "CloneSetUpdated", kProgressing, "2026-01-01T10:00:00Z",
            "2026-01-01T08:30:00Z"},
       "2", 11},
      {"partition held for an hour, then the partition lowered", BaseCloneSet(), "{}",
       Prev{"True", "ProgressPartitionAvailable", "CloneSet has been paused due to partition ready",
            "2026-01-01T09:00:00Z", "2026-01-01T09:00:00Z", "2"},
       "2026-01-01T10:00:00Z",
       Want{"True", "CloneSetUpdated", kProgressing, "2026-01-01T10:00:00Z",
            "2026-01-01T09:00:00Z"},
       "2", 11},
      {"daemon: a new revision while progressing restarts the clock", BaseCloneSet(),
       R"({"status": {"updateRevision": "3"}})",
       Prev{"True", "CloneSetUpdated", kProgressing, "2026-01-01T09:59:00Z", "2026-01-01T09:59:00Z",
            "2"},
       "2026-01-01T10:00:00Z",
       Want{"True", "CloneSetUpdated", kProgressing, "2026-01-01T10:00:00Z",
            "2026-01-01T09:59:00Z"},
       "3", 11},
      {"daemon: the same revision past its deadline times out", BaseCloneSet(),
       R"({"status": {"updateRevision": "3"}})",
       Prev{"True", "CloneSetUpdated", kProgressing, "2026-01-01T09:59:00Z", "2026-01-01T09:59:00Z",
            "3"},
       "2026-01-01T10:00:00Z",
       Want{"False", "ProgressDeadlineExceeded", "CloneSet revision 3 has timed out progressing",
            "2026-01-01T10:00:00Z", "2026-01-01T10:00:00Z"},
       "3", -1},
      {"daemon: a timeout is sticky for its revision", BaseCloneSet(), "{}",
       Prev{"False", "ProgressDeadlineExceeded", "CloneSet revision 2 has timed out progressing",
            "2026-01-01T09:00:00Z", "2026-01-01T09:00:00Z", "2"},
       "2026-01-01T10:00:00Z",
       Want{"False", "ProgressDeadlineExceeded", "CloneSet revision 2 has timed out progressing",
            "2026-01-01T09:00:00Z", "2026-01-01T09:00:00Z"},
       "2", -1},
      {"daemon: a timeout of an older revision does not carry over", BaseCloneSet(),
       R"({"status": {"updateRevision": "3"}})",
       Prev{"False", "ProgressDeadlineExceeded", "CloneSet revision 2 has timed out progressing",
            "2026-01-01T09:00:00Z", "2026-01-01T09:00:00Z", "2"},
       "2026-01-01T10:00:00Z",
       Want{"True", "CloneSetUpdated", kProgressing, "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "3", 11},
  };
  for (const auto& c : cases) Check(c);
}

TEST(ProgressDeadline, RequeueAroundTheDeadline) {
  const Prev started{
      "True", "CloneSetUpdated", kProgressing, "2026-01-01T10:00:00Z", "2026-01-01T10:00:00Z", "2"};
  const Want kept{"True", "CloneSetUpdated", kProgressing, "2026-01-01T10:00:00Z",
                  "2026-01-01T10:00:00Z"};
  const Want timed_out{"False", "ProgressDeadlineExceeded",
                       "CloneSet revision 2 has timed out progressing", "2026-01-01T10:00:10Z",
                       "2026-01-01T10:00:10Z"};
  const std::vector<Case> cases = {
      {"just started: the whole deadline plus the 1 s pad", BaseCloneSet(), "{}", started,
       "2026-01-01T10:00:00Z", kept, "2", 11},
      {"1.5 s before: remaining plus the pad", BaseCloneSet(), "{}", started,
       "2026-01-01T10:00:08.5Z", kept, "2", 2.5},
      {"exactly 1 s before: still padded", BaseCloneSet(), "{}", started, "2026-01-01T10:00:09Z",
       kept, "2", 2},
      {"half a second before: the remainder, no pad", BaseCloneSet(), "{}", started,
       "2026-01-01T10:00:09.5Z", kept, "2", 0.5},
      {"exactly at the deadline: not yet exceeded, look again in 1 ms, never 0", BaseCloneSet(),
       "{}", started, "2026-01-01T10:00:10Z", kept, "2", 0.001},
      {"a microsecond after the deadline: exceeded", BaseCloneSet(), "{}", started,
       "2026-01-01T10:00:10.000001Z", timed_out, "2", -1},
      {"fresh clock at a fractional now: stamped to the second, requeue measured from the stamp",
       BaseCloneSet(), "{}", std::nullopt, "2026-01-01T10:00:00.25Z",
       Want{"True", "CloneSetUpdated", kProgressing, "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "2", 10.75},
  };
  for (const auto& c : cases) Check(c);
}

TEST(ProgressDeadline, TimestampRules) {
  const std::vector<Case> cases = {
      {"new condition: both times now", BaseCloneSet(),
       R"({"spec": {"updateStrategy": {"paused": true}}})", std::nullopt, "2026-01-01T10:00:00Z",
       Want{"True", "CloneSetPaused", "CloneSet is paused", "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "2", -1},
      {"same status, other reason: update time now, transition kept", BaseCloneSet(),
       R"({"spec": {"updateStrategy": {"paused": true}}})",
       Prev{"True", "CloneSetUpdated", kProgressing, "2026-01-01T09:59:58Z", "2026-01-01T09:00:00Z",
            "2"},
       "2026-01-01T10:00:00Z",
       Want{"True", "CloneSetPaused", "CloneSet is paused", "2026-01-01T10:00:00Z",
            "2026-01-01T09:00:00Z"},
       "2", -1},
      {"same status and reason: nothing changes, message included", BaseCloneSet(),
       R"({"spec": {"updateStrategy": {"paused": true}}})",
       Prev{"True", "CloneSetPaused", "paused by the release team", "2026-01-01T09:30:00Z",
            "2026-01-01T09:00:00Z", "2"},
       "2026-01-01T10:00:00Z",
       Want{"True", "CloneSetPaused", "paused by the release team", "2026-01-01T09:30:00Z",
            "2026-01-01T09:00:00Z"},
       "2", -1},
      {"status change False -> True: both times now", BaseCloneSet(),
       R"({"status": {"currentRevision": "2", "updatedReplicas": 10,
                      "updatedAvailableReplicas": 10}})",
       Prev{"False", "ProgressDeadlineExceeded", "CloneSet revision 2 has timed out progressing",
            "2026-01-01T09:00:00Z", "2026-01-01T09:00:00Z", "2"},
       "2026-01-01T10:00:00Z",
       Want{"True", "CloneSetAvailable", "CloneSet is available", "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "2", -1},
  };
  for (const auto& c : cases) Check(c);
}

TEST(ProgressDeadline, StaleStatusGuard) {
  const std::vector<Case> cases = {
      {"stale status that looks available is not trusted", BaseCloneSet(),
       R"({"metadata": {"generation": 4},
           "status": {"currentRevision": "2", "updatedReplicas": 10,
                      "updatedAvailableReplicas": 10}})",
       std::nullopt, "2026-01-01T10:00:00Z",
       Want{"True", "CloneSetUpdated", kProgressing, "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "2", 11},
      {"stale status that looks partition-ready is not trusted", BaseCloneSet(),
       R"({"metadata": {"generation": 4}, "status": {"expectedUpdatedReplicas": 4}})", std::nullopt,
       "2026-01-01T10:00:00Z",
       Want{"True", "CloneSetUpdated", kProgressing, "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "2", 11},
      {"paused reads the spec, so it applies over stale status", BaseCloneSet(),
       R"({"metadata": {"generation": 4}, "spec": {"updateStrategy": {"paused": true}}})",
       std::nullopt, "2026-01-01T10:00:00Z",
       Want{"True", "CloneSetPaused", "CloneSet is paused", "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "2", -1},
      {"no observedGeneration at all counts as stale", BaseCloneSet(),
       R"({"status": {"observedGeneration": null, "currentRevision": "2", "updatedReplicas": 10,
                      "updatedAvailableReplicas": 10}})",
       std::nullopt, "2026-01-01T10:00:00Z",
       Want{"True", "CloneSetUpdated", kProgressing, "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "2", 11},
  };
  for (const auto& c : cases) Check(c);
}

TEST(ProgressDeadline, CloneSetLayouts) {
  const std::vector<Case> cases = {
      {"v1beta1: paused under updateStrategy.rollingUpdate", BaseCloneSet(),
       R"({"apiVersion": "apps.kruise.io/v1beta1",
           "spec": {"updateStrategy": {"paused": null, "rollingUpdate": {"paused": true}}}})",
       std::nullopt, "2026-01-01T10:00:00Z",
       Want{"True", "CloneSetPaused", "CloneSet is paused", "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "2", -1},
      {"v1beta1: rollingUpdate.paused false wins over a flat paused", BaseCloneSet(),
       R"({"apiVersion": "apps.kruise.io/v1beta1",
           "spec": {"updateStrategy": {"paused": true, "rollingUpdate": {"paused": false}}}})",
       std::nullopt, "2026-01-01T10:00:00Z",
       Want{"True", "CloneSetUpdated", kProgressing, "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "2", 11},
      {"v1beta1: percent partition under rollingUpdate, expected replicas computed", BaseCloneSet(),
       R"({"apiVersion": "apps.kruise.io/v1beta1",
           "spec": {"updateStrategy": {"rollingUpdate": {"partition": "60%"}}},
           "status": {"expectedUpdatedReplicas": null}})",
       std::nullopt, "2026-01-01T10:00:00Z",
       Want{"True", "ProgressPartitionAvailable", "CloneSet has been paused due to partition ready",
            "2026-01-01T10:00:00Z", "2026-01-01T10:00:00Z"},
       "2", -1},
      {"v1alpha1 ignores a rollingUpdate block (not its layout)", BaseCloneSet(),
       R"({"spec": {"updateStrategy": {"rollingUpdate": {"paused": true}}}})", std::nullopt,
       "2026-01-01T10:00:00Z",
       Want{"True", "CloneSetUpdated", kProgressing, "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "2", 11},
      {"v1alpha1: integer partition, expected replicas computed", BaseCloneSet(),
       R"({"spec": {"updateStrategy": {"partition": 6}},
           "status": {"expectedUpdatedReplicas": null}})",
       std::nullopt, "2026-01-01T10:00:00Z",
       Want{"True", "ProgressPartitionAvailable", "CloneSet has been paused due to partition ready",
            "2026-01-01T10:00:00Z", "2026-01-01T10:00:00Z"},
       "2", -1},
      {"v1alpha1: partition not reached yet", BaseCloneSet(),
       R"({"spec": {"updateStrategy": {"partition": 5}},
           "status": {"expectedUpdatedReplicas": null}})",
       std::nullopt, "2026-01-01T10:00:00Z",
       Want{"True", "CloneSetUpdated", kProgressing, "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "2", 11},
      {"replicas absent means 1", BaseCloneSet(),
       R"({"spec": {"replicas": null},
           "status": {"replicas": 1, "updatedReplicas": 1, "updatedAvailableReplicas": 1,
                      "currentRevision": "2", "expectedUpdatedReplicas": 1}})",
       std::nullopt, "2026-01-01T10:00:00Z",
       Want{"True", "CloneSetAvailable", "CloneSet is available", "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "2", -1},
  };
  for (const auto& c : cases) Check(c);
}

TEST(ProgressDeadline, StatefulSetPredicates) {
  const std::vector<Case> cases = {
      {"rolling: progressing, revision is updateRevision", BaseStatefulSet(), "{}", std::nullopt,
       "2026-01-01T10:00:00Z",
       Want{"True", "StatefulSetUpdated", "StatefulSet is progressing", "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "db-7c9a", 11},
      {"available: revisions equal, updated/ready/available all = replicas", BaseStatefulSet(),
       R"({"status": {"currentRevision": "db-7c9a", "updatedReplicas": 5}})", std::nullopt,
       "2026-01-01T10:00:00Z",
       Want{"True", "StatefulSetAvailable", "StatefulSet is available", "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "db-7c9a", -1},
      {"not available while a pod is not available yet", BaseStatefulSet(),
       R"({"status": {"currentRevision": "db-7c9a", "updatedReplicas": 5,
                      "availableReplicas": 4}})",
       std::nullopt, "2026-01-01T10:00:00Z",
       Want{"True", "StatefulSetUpdated", "StatefulSet is progressing", "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "db-7c9a", 11},
      {"partition reached: updated >= replicas - partition and all ready", BaseStatefulSet(),
       R"({"spec": {"updateStrategy": {"rollingUpdate": {"partition": 3}}}})", std::nullopt,
       "2026-01-01T10:00:00Z",
       Want{"True", "ProgressPartitionAvailable",
            "StatefulSet has been paused due to partition ready", "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "db-7c9a", -1},
      {"partition with a pod not ready: still progressing", BaseStatefulSet(),
       R"({"spec": {"updateStrategy": {"rollingUpdate": {"partition": 3}}},
           "status": {"readyReplicas": 4}})",
       std::nullopt, "2026-01-01T10:00:00Z",
       Want{"True", "StatefulSetUpdated", "StatefulSet is progressing", "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "db-7c9a", 11},
      {"partition 0 is no partition", BaseStatefulSet(), R"({"status": {"updatedReplicas": 5}})",
       std::nullopt, "2026-01-01T10:00:00Z",
       Want{"True", "StatefulSetUpdated", "StatefulSet is progressing", "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "db-7c9a", 11},
      {"timeout names the StatefulSet and its update revision", BaseStatefulSet(), "{}",
       Prev{"True", "StatefulSetUpdated", "StatefulSet is progressing", "2026-01-01T09:00:00Z",
            "2026-01-01T09:00:00Z", "db-7c9a"},
       "2026-01-01T10:00:00Z",
       Want{"False", "ProgressDeadlineExceeded",
            "StatefulSet revision db-7c9a has timed out progressing", "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "db-7c9a", -1},
      {"never paused: a paused-looking field is ignored", BaseStatefulSet(),
       R"({"spec": {"updateStrategy": {"paused": true}, "paused": true}})", std::nullopt,
       "2026-01-01T10:00:00Z",
       Want{"True", "StatefulSetUpdated", "StatefulSet is progressing", "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "db-7c9a", 11},
      {"OnDelete: no deadline, reported",
       BaseStatefulSet(),
       R"({"spec": {"updateStrategy": {"type": "OnDelete", "rollingUpdate": null}}})",
       Prev{"True", "StatefulSetUpdated", "StatefulSet is progressing", "2026-01-01T09:00:00Z",
            "2026-01-01T09:00:00Z", "db-7c9a"},
       "2026-01-01T10:00:00Z",
       std::nullopt,
       "db-7c9a",
       -1,
       {"spec.updateStrategy.type: OnDelete: pods are replaced only when deleted, so the "
        "workload never progresses by itself; the progress deadline is ignored"}},
  };
  for (const auto& c : cases) Check(c);
}

TEST(ProgressDeadline, DaemonSetPredicates) {
  const std::vector<Case> cases = {
      {"mid-update: progressing, revision is the generation", BaseDaemonSet(), "{}", std::nullopt,
       "2026-01-01T10:00:00Z",
       Want{"True", "DaemonSetUpdated", "DaemonSet is progressing", "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "5", 11},
      {"available: updated = available = desired", BaseDaemonSet(),
       R"({"status": {"updatedNumberScheduled": 3, "numberAvailable": 3}})", std::nullopt,
       "2026-01-01T10:00:00Z",
       Want{"True", "DaemonSetAvailable", "DaemonSet is available", "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "5", -1},
      {"all updated but one not available: progressing", BaseDaemonSet(),
       R"({"status": {"updatedNumberScheduled": 3, "numberAvailable": 2}})", std::nullopt,
       "2026-01-01T10:00:00Z",
       Want{"True", "DaemonSetUpdated", "DaemonSet is progressing", "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00Z"},
       "5", 11},
      {"timeout names the generation", BaseDaemonSet(), "{}",
       Prev{"True", "DaemonSetUpdated", "DaemonSet is progressing", "2026-01-01T09:59:49Z",
            "2026-01-01T09:59:49Z", "5"},
       "2026-01-01T10:00:00Z",
       Want{"False", "ProgressDeadlineExceeded", "DaemonSet revision 5 has timed out progressing",
            "2026-01-01T10:00:00Z", "2026-01-01T10:00:00Z"},
       "5", -1},
      {"a new generation restarts the clock", BaseDaemonSet(),
       R"({"metadata": {"generation": 6}, "status": {"observedGeneration": 6}})",
       Prev{"True", "DaemonSetUpdated", "DaemonSet is progressing", "2026-01-01T09:59:49Z",
            "2026-01-01T09:59:49Z", "5"},
       "2026-01-01T10:00:00Z",
       Want{"True", "DaemonSetUpdated", "DaemonSet is progressing", "2026-01-01T10:00:00Z",
            "2026-01-01T09:59:49Z"},
       "6", 11},
      {"OnDelete: no deadline, reported",
       BaseDaemonSet(),
       R"({"spec": {"updateStrategy": {"type": "OnDelete"}}})",
       std::nullopt,
       "2026-01-01T10:00:00Z",
       std::nullopt,
       "5",
       -1,
       {"spec.updateStrategy.type: OnDelete: pods are replaced only when deleted, so the "
        "workload never progresses by itself; the progress deadline is ignored"}},
  };
  for (const auto& c : cases) Check(c);
}

TEST(ProgressDeadline, FieldAnnotationAndValidation) {
  constexpr const char* kField = "spec.progressDeadlineSeconds";
  constexpr const char* kAnno = "metadata.annotations[fleetwave.io/progress-deadline-seconds]";
  const Want fresh{"True", "CloneSetUpdated", kProgressing, "2026-01-01T10:00:00Z",
                   "2026-01-01T10:00:00Z"};
  const std::vector<Case> cases = {
      {"annotation alone sets the deadline", BaseCloneSet(),
       R"({"spec": {"progressDeadlineSeconds": null},
           "metadata": {"annotations": {"fleetwave.io/progress-deadline-seconds": "30"}}})",
       std::nullopt, "2026-01-01T10:00:00Z", fresh, "2", 31},
      {"field wins over the annotation", BaseCloneSet(),
       R"({"metadata": {"annotations": {"fleetwave.io/progress-deadline-seconds": "30"}}})",
       std::nullopt, "2026-01-01T10:00:00Z", fresh, "2", 11},
      {"an invalid field does not fall back to the annotation",
       BaseCloneSet(),
       R"({"spec": {"progressDeadlineSeconds": -5},
           "metadata": {"annotations": {"fleetwave.io/progress-deadline-seconds": "30"}}})",
       std::nullopt,
       "2026-01-01T10:00:00Z",
       std::nullopt,
       "2",
       -1,
       {std::string(kField) + ": must be greater than or equal to 0",
        std::string(kField) + ": must be greater than minReadySeconds"}},
      {"deadline not above minReadySeconds",
       BaseCloneSet(),
       R"({"spec": {"minReadySeconds": 10}})",
       std::nullopt,
       "2026-01-01T10:00:00Z",
       std::nullopt,
       "2",
       -1,
       {std::string(kField) + ": must be greater than minReadySeconds"}},
      {"zero with minReadySeconds zero is not above it",
       BaseCloneSet(),
       R"({"spec": {"progressDeadlineSeconds": 0}})",
       std::nullopt,
       "2026-01-01T10:00:00Z",
       std::nullopt,
       "2",
       -1,
       {std::string(kField) + ": must be greater than minReadySeconds"}},
      {"MaxInt32 is off, whatever minReadySeconds says", BaseCloneSet(),
       R"({"spec": {"progressDeadlineSeconds": 2147483647, "minReadySeconds": 2147483647}})",
       std::nullopt, "2026-01-01T10:00:00Z", std::nullopt, "2", -1},
      {"a timeout is removed when the deadline becomes invalid",
       BaseCloneSet(),
       R"({"spec": {"minReadySeconds": 60}})",
       Prev{"False", "ProgressDeadlineExceeded", "CloneSet revision 2 has timed out progressing",
            "2026-01-01T09:00:00Z", "2026-01-01T09:00:00Z", "2"},
       "2026-01-01T10:00:00Z",
       std::nullopt,
       "2",
       -1,
       {std::string(kField) + ": must be greater than minReadySeconds"}},
      {"annotation that is not a number",
       BaseCloneSet(),
       R"({"spec": {"progressDeadlineSeconds": null},
           "metadata": {"annotations": {"fleetwave.io/progress-deadline-seconds": "10m"}}})",
       std::nullopt,
       "2026-01-01T10:00:00Z",
       std::nullopt,
       "2",
       -1,
       {std::string(kAnno) + ": must be an integer"}},
      {"negative annotation",
       BaseCloneSet(),
       R"({"spec": {"progressDeadlineSeconds": null, "minReadySeconds": 0},
           "metadata": {"annotations": {"fleetwave.io/progress-deadline-seconds": "-1"}}})",
       std::nullopt,
       "2026-01-01T10:00:00Z",
       std::nullopt,
       "2",
       -1,
       {std::string(kAnno) + ": must be greater than or equal to 0",
        std::string(kAnno) + ": must be greater than minReadySeconds"}},
      {"field that is not an integer",
       BaseCloneSet(),
       R"({"spec": {"progressDeadlineSeconds": "600"}})",
       std::nullopt,
       "2026-01-01T10:00:00Z",
       std::nullopt,
       "2",
       -1,
       {std::string(kField) + ": must be an integer"}},
      {"field above MaxInt32",
       BaseCloneSet(),
       R"({"spec": {"progressDeadlineSeconds": 4294967296}})",
       std::nullopt,
       "2026-01-01T10:00:00Z",
       std::nullopt,
       "2",
       -1,
       {std::string(kField) + ": must be less than or equal to 2147483647"}},
  };
  for (const auto& c : cases) Check(c);
}

TEST(ProgressDeadline, DeploymentIsReadThrough) {
  Json d = R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "api", "generation": 4,
                 "annotations": {"deployment.kubernetes.io/revision": "9"}},
    "spec": {"replicas": 3, "progressDeadlineSeconds": 600},
    "status": {"observedGeneration": 4, "conditions": [
      {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
       "lastUpdateTime": "2026-01-01T08:00:00Z", "lastTransitionTime": "2026-01-01T08:00:00Z"},
      {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
       "message": "ReplicaSet \"api-5d9\" has timed out progressing.",
       "lastUpdateTime": "2026-01-01T09:10:00Z", "lastTransitionTime": "2026-01-01T09:10:00Z"}]}
  })"_json;
  const WorkloadRead read = ReadWorkload(d);
  ASSERT_TRUE(read.workload);
  const ProgressResult r =
      EvaluateProgress(*read.workload, std::nullopt, T("2026-01-01T10:00:00Z"));
  ASSERT_TRUE(r.condition);
  EXPECT_EQ(r.condition->reason, "ProgressDeadlineExceeded");
  EXPECT_EQ(r.condition->message, "ReplicaSet \"api-5d9\" has timed out progressing.");
  EXPECT_EQ(FormatRfc3339(r.condition->last_update_time), "2026-01-01T09:10:00Z");
  EXPECT_TRUE(r.Exceeded());
  EXPECT_EQ(r.revision, "9");
  EXPECT_EQ(r.RequeueAfterSeconds(), -1.0);
}

TEST(ProgressDeadline, PreviousFromStatus) {
  struct Row {
    std::string name;
    const char* kind_patch;
    const char* condition;
    std::string want_revision;  // "" : no previous condition
  };
  const std::vector<Row> rows = {
      {"timeout: revision parsed from the message", "{}",
       R"({"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
           "message": "CloneSet revision web-6f7 has timed out progressing",
           "lastUpdateTime": "2026-01-01T09:00:00Z", "lastTransitionTime": "2026-01-01T09:00:00Z"})",
       "web-6f7"},
      {"progressing: taken as the current revision", "{}",
       R"({"type": "Progressing", "status": "True", "reason": "CloneSetUpdated",
           "message": "CloneSet revision 1 is a decoy", "lastUpdateTime": "2026-01-01T09:00:00Z",
           "lastTransitionTime": "2026-01-01T09:00:00Z"})",
       "2"},
      {"timeout with an unreadable message: current revision", "{}",
       R"({"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
           "message": "timed out", "lastUpdateTime": "2026-01-01T09:00:00Z",
           "lastTransitionTime": "2026-01-01T09:00:00Z"})",
       "2"},
      {"v1beta1 condition with only lastTransitionTime is usable", "{}",
       R"({"type": "Progressing", "status": "True", "reason": "CloneSetUpdated",
           "lastTransitionTime": "2026-01-01T09:00:00Z"})",
       "2"},
      {"a condition without any time is ignored", "{}",
       R"({"type": "Progressing", "status": "True", "reason": "CloneSetUpdated"})", ""},
      {"another condition type is not the Progressing one", "{}",
       R"({"type": "FailedUpdate", "status": "True", "reason": "Whatever",
           "lastTransitionTime": "2026-01-01T09:00:00Z"})",
       ""},
      {"DaemonSet timeout revision is a generation", R"({"metadata": {"generation": 8}})",
       R"({"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
           "message": "DaemonSet revision 7 has timed out progressing",
           "lastUpdateTime": "2026-01-01T09:00:00Z", "lastTransitionTime": "2026-01-01T09:00:00Z"})",
       "7"},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    Json object = row.name.rfind("DaemonSet", 0) == 0 ? BaseDaemonSet() : BaseCloneSet();
    object.merge_patch(Json::parse(row.kind_patch));
    object["status"]["conditions"] = Json::array({Json::parse(row.condition)});
    const WorkloadRead read = ReadWorkload(object);
    ASSERT_TRUE(read.workload);
    const auto p = PreviousFromStatus(*read.workload);
    if (row.want_revision.empty()) {
      EXPECT_FALSE(p);
    } else {
      ASSERT_TRUE(p);
      EXPECT_EQ(p->revision, row.want_revision);
    }
  }
}

TEST(ProgressDeadline, PartitionReplicasAsKruiseComputesThem) {
  struct Row {
    const char* partition;  // JSON
    int64_t replicas;
    int64_t want;
  };
  const std::vector<Row> rows = {
      {R"("50%")", 10, 5},   {R"("90%")", 10, 9},   {R"("1%")", 10, 1},  {R"("99%")", 10, 9},
      {R"("0%")", 10, 0},    {R"("100%")", 10, 10}, {R"("100%")", 1, 1}, {R"("50%")", 1, 1},
      {R"("150%")", 10, 10}, {"3", 10, 3},          {"15", 10, 10},      {R"("10%")", 6, 1},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(std::string(row.partition) + " of " + std::to_string(row.replicas));
    Json object = BaseCloneSet();
    object["spec"]["replicas"] = row.replicas;
    object["spec"]["updateStrategy"]["partition"] = Json::parse(row.partition);
    object["status"].erase("expectedUpdatedReplicas");
    const WorkloadRead read = ReadWorkload(object);
    ASSERT_TRUE(read.workload);
    ASSERT_TRUE(read.workload->partition);
    EXPECT_EQ(PartitionReplicas(*read.workload->partition, row.replicas), row.want);
    EXPECT_EQ(ExpectedUpdatedReplicas(*read.workload), row.replicas - row.want);
  }
}

TEST(ProgressDeadline, UnsupportedKindIsAnError) {
  const WorkloadRead read = ReadWorkload(R"({"apiVersion": "batch/v1", "kind": "Job"})"_json);
  EXPECT_FALSE(read.workload);
  ASSERT_TRUE(read.error);
  EXPECT_EQ(read.error->kind, ErrorKind::kInvalidInput);
  EXPECT_EQ(read.error->message,
            "unsupported kind \"Job\" (batch/v1); supported: CloneSet (apps.kruise.io), "
            "StatefulSet, DaemonSet, Deployment");
}

// Which API versions the cluster actor asks for per configured workload kind (issue 25: the table
// lives here, not in the actor).
TEST(WorkloadKindApiVersions, OnePerKindWithARuleAndNoneOtherwise) {
  EXPECT_EQ(WorkloadKindApiVersions("CloneSet"),
            (std::vector<std::string>{"apps.kruise.io/v1alpha1", "apps.kruise.io/v1beta1"}));
  for (const char* kind : {"Deployment", "StatefulSet", "DaemonSet"}) {
    EXPECT_EQ(WorkloadKindApiVersions(kind), std::vector<std::string>{"apps/v1"}) << kind;
  }
  EXPECT_TRUE(WorkloadKindApiVersions("ReplicaSet").empty());
  EXPECT_TRUE(WorkloadKindApiVersions("deployment").empty());  // kinds are case-sensitive
}

}  // namespace
}  // namespace fleetwave::engine
