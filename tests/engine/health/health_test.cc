// Health per kind from realistic objects (tests/testdata/health/, as `kubectl get -o json`
// prints them), the deadline override, and Application aggregation.
#include "engine/health/health.h"
#include "tests/test_paths.h"

#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace fleetwave::engine {
namespace {

Json Load(const std::string& name) {
  const std::string path = ::fleetwave::test_paths::TestdataDir() + "/health/" + name;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return in.good() ? Json::parse(in) : Json::object();
}

struct Case {
  std::string file;
  HealthCode status;
  std::string message;
};

void CheckAll(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    const HealthStatus h = AssessHealth(Load(c.file));
    EXPECT_EQ(HealthCodeName(h.status), HealthCodeName(c.status));
    EXPECT_EQ(h.message, c.message);
  }
}

TEST(Health, Deployment) {
  CheckAll({
      {"deployment-healthy.json", HealthCode::kHealthy, ""},
      {"deployment-progress-deadline-exceeded.json", HealthCode::kDegraded,
       "Deployment \"checkout\" exceeded its progress deadline"},
      {"deployment-paused.json", HealthCode::kSuspended, "Deployment is paused"},
      {"deployment-rolling.json", HealthCode::kProgressing,
       "Waiting for rollout to finish: 1 out of 3 new replicas have been updated..."},
      {"deployment-stale.json", HealthCode::kProgressing,
       "Waiting for rollout to finish: observed deployment generation less then desired "
       "generation"},
  });
}

TEST(Health, StatefulSet) {
  CheckAll({
      {"statefulset-partition.json", HealthCode::kHealthy,
       "partitioned roll out complete: 2 new pods have been updated..."},
      {"statefulset-partition-rolling.json", HealthCode::kProgressing,
       "Waiting for partitioned roll out to finish: 1 out of 2 new pods have been updated..."},
      {"statefulset-not-ready.json", HealthCode::kProgressing, "Waiting for 2 pods to be ready..."},
      {"statefulset-ondelete.json", HealthCode::kHealthy,
       "statefulset has 5 ready pods (2 updated)"},
      {"statefulset-rolling-no-partition-block.json", HealthCode::kProgressing,
       "waiting for statefulset rolling update to complete 2 pods at revision "
       "orders-db-7c9a4e2d1..."},
      {"statefulset-rolled.json", HealthCode::kHealthy,
       "statefulset rolling update complete 5 pods at revision orders-db-7c9a4e2d1..."},
  });
}

TEST(Health, DaemonSet) {
  CheckAll({
      {"daemonset-mid-update.json", HealthCode::kProgressing,
       "Waiting for daemon set \"node-agent\" rollout to finish: 1 out of 3 new pods have been "
       "updated..."},
      {"daemonset-updated-not-available.json", HealthCode::kProgressing,
       "Waiting for daemon set \"node-agent\" rollout to finish: 2 of 3 updated pods are "
       "available..."},
      {"daemonset-healthy.json", HealthCode::kHealthy, ""},
      {"daemonset-ondelete.json", HealthCode::kHealthy,
       "daemon set 1 out of 3 new pods have been updated"},
  });
}

TEST(Health, ReplicaSet) {
  CheckAll({
      {"replicaset-healthy.json", HealthCode::kHealthy, ""},
      {"replicaset-quota-failure.json", HealthCode::kDegraded,
       "pods \"checkout-7d9f8b6c5d-\" is forbidden: exceeded quota: compute, requested: "
       "cpu=500m, used: cpu=1500m, limited: cpu=2"},
  });
}

TEST(Health, Pod) {
  CheckAll({
      {"pod-running-ready.json", HealthCode::kHealthy, ""},
      {"pod-crashloop.json", HealthCode::kDegraded,
       "back-off 2m40s restarting failed container=checkout "
       "pod=checkout-7d9f8b6c5d-x2x8q_shop(0c5a7f3e)"},
      {"pod-imagepullbackoff.json", HealthCode::kDegraded,
       "Back-off pulling image \"registry.example.com/checkout:1.9.0-typo\""},
      {"pod-pending-unschedulable.json", HealthCode::kProgressing, ""},
      {"pod-failed-oomkilled.json", HealthCode::kDegraded, "OOMKilled"},
      {"pod-failed-exit-code.json", HealthCode::kDegraded,
       "container \"checkout\" failed with exit code 2"},
      {"pod-running-restart-never.json", HealthCode::kProgressing, ""},
      {"pod-terminating.json", HealthCode::kProgressing, "Pending deletion"},
  });
}

TEST(Health, ServicePvcJobIngressAndOthers) {
  CheckAll({
      {"service-loadbalancer-pending.json", HealthCode::kProgressing, ""},
      {"service-loadbalancer-assigned.json", HealthCode::kHealthy, ""},
      {"service-clusterip.json", HealthCode::kHealthy, ""},
      {"pvc-bound.json", HealthCode::kHealthy, ""},
      {"pvc-pending.json", HealthCode::kProgressing, ""},
      {"pvc-lost.json", HealthCode::kDegraded, ""},
      {"job-running.json", HealthCode::kProgressing, ""},
      {"job-complete.json", HealthCode::kHealthy, "Reached expected number of succeeded pods"},
      {"job-failed.json", HealthCode::kDegraded, "Job has reached the specified backoff limit"},
      {"job-suspended.json", HealthCode::kSuspended, "Job suspended"},
      {"ingress-assigned.json", HealthCode::kHealthy, ""},
      {"ingress-pending.json", HealthCode::kProgressing, ""},
      {"configmap.json", HealthCode::kHealthy, ""},
  });
}

TEST(Health, CloneSet) {
  const std::string at_partition =
      "CloneSet has been paused due to partition ready: 4 of 10 pods updated and available";
  const std::string waiting =
      "Waiting for rollout to finish: 6 of 10 updated pods are available...";
  CheckAll({
      {"cloneset-at-partition.json", HealthCode::kSuspended, at_partition},
      {"cloneset-at-partition-complete.json", HealthCode::kHealthy, at_partition},
      {"cloneset-v1beta1-at-partition.json", HealthCode::kSuspended, at_partition},
      {"cloneset-available.json", HealthCode::kHealthy,
       "CloneSet is available: 10 pods updated and available at revision storefront-7f6b5c4d3"},
      {"cloneset-paused.json", HealthCode::kSuspended, "CloneSet is paused"},
      {"cloneset-stale.json", HealthCode::kProgressing,
       "Waiting for rollout to finish: observed CloneSet generation less than desired generation"},
      {"cloneset-progressing.json", HealthCode::kProgressing, waiting},
      {"cloneset-deadline-exceeded.json", HealthCode::kDegraded,
       "CloneSet revision storefront-7f6b5c4d3 has timed out progressing"},
      // A timeout of an older revision, or with the deadline switched off, is history.
      {"cloneset-deadline-exceeded-older-revision.json", HealthCode::kProgressing, waiting},
      {"cloneset-deadline-exceeded-deadline-off.json", HealthCode::kProgressing, waiting},
  });
}

// The daemon passes its own decision, which wins over the object's condition.
TEST(Health, DeadlineDecidedByFleetwave) {
  struct Row {
    std::string name;
    std::string file;
    const char* patch;
    DeadlineView view;
    HealthCode status;
    std::string message;
  };
  const DeadlineView sts_timeout{
      true, "StatefulSet revision orders-db-7c9a4e2d1 has timed out progressing"};
  const std::vector<Row> rows = {
      {"StatefulSet at its partition but timed out", "statefulset-partition.json", "{}",
       sts_timeout, HealthCode::kDegraded, sts_timeout.message},
      {"StatefulSet with stale status waits first", "statefulset-partition.json",
       R"({"metadata": {"generation": 7}})", sts_timeout, HealthCode::kProgressing,
       "Waiting for statefulset spec update to be observed..."},
      {"DaemonSet mid-update timed out",
       "daemonset-mid-update.json",
       "{}",
       {true, "DaemonSet revision 9 has timed out progressing"},
       HealthCode::kDegraded,
       "DaemonSet revision 9 has timed out progressing"},
      {"CloneSet: fleetwave says not exceeded, the controller's timeout is ignored",
       "cloneset-deadline-exceeded.json",
       "{}",
       {false, ""},
       HealthCode::kProgressing,
       "Waiting for rollout to finish: 6 of 10 updated pods are available..."},
      {"CloneSet: fleetwave's timeout beats a paused spec",
       "cloneset-paused.json",
       "{}",
       {true, "CloneSet revision storefront-7f6b5c4d3 has timed out progressing"},
       HealthCode::kDegraded,
       "CloneSet revision storefront-7f6b5c4d3 has timed out progressing"},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    Json object = Load(row.file);
    object.merge_patch(Json::parse(row.patch));
    const HealthStatus h = AssessHealth(object, row.view);
    EXPECT_EQ(HealthCodeName(h.status), HealthCodeName(row.status));
    EXPECT_EQ(h.message, row.message);
  }
}

TEST(Health, DeadlineViewOfProgressResult) {
  ProgressResult exceeded;
  exceeded.condition = ProgressCondition{"Progressing",
                                         "False",
                                         "ProgressDeadlineExceeded",
                                         "CloneSet revision 4 has timed out progressing",
                                         {},
                                         {}};
  ProgressResult progressing;
  progressing.condition = ProgressCondition{
      "Progressing", "True", "CloneSetUpdated", "CloneSet is progressing", {}, {}};
  EXPECT_TRUE(DeadlineViewOf(exceeded).exceeded);
  EXPECT_EQ(DeadlineViewOf(exceeded).message, "CloneSet revision 4 has timed out progressing");
  EXPECT_FALSE(DeadlineViewOf(progressing).exceeded);
  EXPECT_FALSE(DeadlineViewOf(ProgressResult{}).exceeded);
}

TEST(Health, OrderAndNames) {
  const std::vector<HealthCode> order = {HealthCode::kHealthy,     HealthCode::kSuspended,
                                         HealthCode::kProgressing, HealthCode::kMissing,
                                         HealthCode::kDegraded,    HealthCode::kUnknown};
  const std::vector<std::string> names = {"Healthy", "Suspended", "Progressing",
                                          "Missing", "Degraded",  "Unknown"};
  for (size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(HealthCodeName(order[i]), names[i]);
    EXPECT_EQ(ParseHealthCode(names[i]), order[i]);
    for (size_t j = 0; j < order.size(); ++j) {
      EXPECT_EQ(IsWorse(order[i], order[j]), j > i) << names[i] << " vs " << names[j];
    }
  }
  EXPECT_FALSE(ParseHealthCode("healthy"));
}

// The cluster actor reports a labelled workload's health through this rule (issue 25: no
// domain rule in an actor).
TEST(Health, WorkloadHealthUnderItsDeadline) {
  const HealthStatus judged{HealthCode::kProgressing, "Waiting for rollout to finish"};
  const HealthStatus degraded_unsaid{HealthCode::kDegraded, ""};
  const HealthStatus degraded_said{HealthCode::kDegraded, "its own words"};
  const std::string why = "Deployment web exceeded its progress deadline";
  struct Case {
    const char* name;
    HealthStatus if_exceeded;
    bool exceeded;
    HealthStatus want;
  } cases[] = {
      {"not exceeded: as judged", degraded_unsaid, false, judged},
      {"exceeded: Degraded with the decision's message",
       degraded_unsaid,
       true,
       {HealthCode::kDegraded, why}},
      {"exceeded: a message of its own is kept", degraded_said, true, degraded_said},
      {"exceeded, but not Degraded (a paused kind): as projected",
       {HealthCode::kSuspended, ""},
       true,
       {HealthCode::kSuspended, ""}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(WorkloadHealthUnderDeadline(judged, c.if_exceeded, c.exceeded, why), c.want);
  }
}

TEST(Health, AggregateWorstWins) {
  using R = ResourceHealth;
  struct Row {
    std::string name;
    std::vector<R> resources;
    HealthCode status;
    std::string message;
  };
  const R healthy{"Service", "checkout", {HealthCode::kHealthy, ""}};
  const R suspended{"CloneSet", "storefront", {HealthCode::kSuspended, "CloneSet is paused"}};
  const R progressing{
      "Deployment",
      "checkout",
      {HealthCode::kProgressing,
       "Waiting for rollout to finish: 1 out of 3 new replicas have been updated..."}};
  const R missing{"ConfigMap", "checkout-config", {HealthCode::kMissing, ""}};
  const R degraded{"CloneSet",
                   "storefront",
                   {HealthCode::kDegraded, "CloneSet revision 4 has timed out progressing"}};
  const R unknown{"Pod", "checkout-1", {HealthCode::kUnknown, ""}};
  const R degraded2{
      "Job", "db-migrate", {HealthCode::kDegraded, "Job has reached the specified backoff limit"}};
  const std::vector<Row> rows = {
      {"no objects", {}, HealthCode::kHealthy, ""},
      {"all healthy", {healthy, healthy}, HealthCode::kHealthy, ""},
      {"suspended beats healthy",
       {healthy, suspended},
       HealthCode::kSuspended,
       "CloneSet/storefront is Suspended: CloneSet is paused"},
      {"progressing beats suspended",
       {suspended, progressing, healthy},
       HealthCode::kProgressing,
       "Deployment/checkout is Progressing: Waiting for rollout to finish: 1 out of 3 new "
       "replicas have been updated..."},
      {"missing beats progressing",
       {progressing, missing},
       HealthCode::kMissing,
       "ConfigMap/checkout-config is Missing"},
      {"degraded beats missing",
       {missing, degraded, healthy},
       HealthCode::kDegraded,
       "CloneSet/storefront is Degraded: CloneSet revision 4 has timed out progressing"},
      {"unknown beats degraded",
       {degraded, unknown},
       HealthCode::kUnknown,
       "Pod/checkout-1 is Unknown"},
      {"a tie names the first",
       {degraded2, degraded},
       HealthCode::kDegraded,
       "Job/db-migrate is Degraded: Job has reached the specified backoff limit"},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    const HealthStatus h = AggregateHealth(row.resources);
    EXPECT_EQ(HealthCodeName(h.status), HealthCodeName(row.status));
    EXPECT_EQ(h.message, row.message);
  }
}

}  // namespace
}  // namespace fleetwave::engine
