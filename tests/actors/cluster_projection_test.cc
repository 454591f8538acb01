// The cluster actor's informer projection: label, LiveObject and health of a watched object,
// made once as typed values (no JSON in between).
#include <gtest/gtest.h>

#include "actors/live_entry_projection.h"
#include "engine/health/health.h"
#include "engine/sync/tracking.h"

namespace fleetwave::actors {
namespace {

Json Deployment(int replicas, int available) {
  return Json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "42", "generation": 3,
      "labels": {"fleetwave.io/app": "0123456789abcdef", "other": "x"},
      "annotations": {"fleetwave.io/tracking-id": "set/app:apps/Deployment:shop/web",
                      "fleetwave.io/applied-hash": "feedface", "unrelated": "y"},
      "managedFields": [{"manager": "fleetwave", "operation": "Apply", "apiVersion": "apps/v1",
        "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}}]},
    "spec": {"replicas": )" +
                     std::to_string(replicas) + R"(},
    "status": {"observedGeneration": 3, "replicas": )" +
                     std::to_string(replicas) + R"(, "updatedReplicas": )" +
                     std::to_string(replicas) + R"(, "readyReplicas": )" +
                     std::to_string(available) + R"(, "availableReplicas": )" +
                     std::to_string(available) + R"(}})");
}

TEST(ClusterProjectionTest, CarriesLabelLiveObjectAndHealth) {
  struct Case {
    const char* name;
    Json object;
    std::string label;
  };
  const std::vector<Case> cases = {
      {"available deployment", Deployment(2, 2), "0123456789abcdef"},
      {"deployment still rolling out", Deployment(3, 1), "0123456789abcdef"},
      {"object without label, annotations or managed fields",
       Json::parse(R"({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})"), ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const ProjectedEntry projected = ProjectEntry(c.object);
    EXPECT_EQ(projected.label, c.label);
    ASSERT_NE(projected.entry.object, nullptr);
    EXPECT_EQ(*projected.entry.object, engine::ProjectLiveObject(c.object));
    EXPECT_EQ(projected.entry.health, engine::AssessHealth(c.object));
  }
}

TEST(ClusterProjectionTest, HealthIsTheWholeObjects) {
  const ProjectedEntry ready = ProjectEntry(Deployment(2, 2));
  const ProjectedEntry rolling = ProjectEntry(Deployment(3, 1));
  EXPECT_EQ(ready.entry.health.status, engine::HealthCode::kHealthy);
  EXPECT_EQ(rolling.entry.health.status, engine::HealthCode::kProgressing);
  EXPECT_EQ(ready.label, "0123456789abcdef");
}

// A workload whose deadline the daemon decides carries its health both ways (the cluster actor
// picks one by its workload actor's decision); a Deployment carries one, read from the condition
// Kubernetes wrote: Degraded while that says ProgressDeadlineExceeded, and no second health (so
// the cluster actor holds no copy of its entry to pick from); other kinds carry one.
TEST(ClusterProjectionTest, DecidedWorkloadsCarryBothHealthsADeploymentOnlyItsOwn) {
  Json timed_out = Deployment(3, 1);
  timed_out["status"]["conditions"] =
      Json::array({{{"type", "Progressing"},
                    {"status", "False"},
                    {"reason", "ProgressDeadlineExceeded"},
                    {"message", "ReplicaSet \"web-5d\" has timed out progressing."},
                    {"lastUpdateTime", "2026-12-07T10:00:00Z"},
                    {"lastTransitionTime", "2026-12-07T10:00:00Z"}}});
  const ProjectedEntry deployment = ProjectEntry(timed_out);
  EXPECT_FALSE(deployment.health_if_exceeded.has_value());
  EXPECT_EQ(deployment.entry.health.status, engine::HealthCode::kDegraded);
  EXPECT_EQ(deployment.entry.health.message, "Deployment \"web\" exceeded its progress deadline");

  Json stateful = Deployment(3, 1);
  stateful["kind"] = "StatefulSet";
  stateful["status"]["currentRevision"] = "db-1";
  stateful["status"]["updateRevision"] = "db-2";
  const ProjectedEntry decided = ProjectEntry(stateful);
  EXPECT_EQ(decided.entry.health, engine::AssessHealth(stateful, engine::DeadlineView{}));
  ASSERT_TRUE(decided.health_if_exceeded.has_value());
  EXPECT_EQ(*decided.health_if_exceeded,
            engine::AssessHealth(stateful, engine::DeadlineView{true, ""}));
  EXPECT_EQ(decided.health_if_exceeded->status, engine::HealthCode::kDegraded);
  EXPECT_NE(decided.entry.health.status, engine::HealthCode::kDegraded);

  const ProjectedEntry config_map = ProjectEntry(
      Json::parse(R"({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})"));
  EXPECT_FALSE(config_map.health_if_exceeded);
}

}  // namespace
}  // namespace fleetwave::actors
