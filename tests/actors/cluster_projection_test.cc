// The cluster actor's informer projection: label, LiveObject and health of a watched object,
// through the projection Json and back.
#include <gtest/gtest.h>

#include "actors/live_entry_json.h"
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

TEST(ClusterProjectionTest, RoundTripsLabelLiveObjectAndHealth) {
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
    const Json projected = ProjectEntry(c.object);
    std::string error;
    const std::optional<ProjectedEntry> back = EntryFromProjection(projected, &error);
    ASSERT_TRUE(back) << error;
    const engine::LiveObject want = engine::ProjectLiveObject(c.object);
    EXPECT_EQ(back->label, c.label);
    EXPECT_EQ(back->entry.object.ref, want.ref);
    EXPECT_EQ(back->entry.object.resource_version, want.resource_version);
    EXPECT_EQ(back->entry.object.generation, want.generation);
    EXPECT_EQ(back->entry.object.observed_generation, want.observed_generation);
    EXPECT_EQ(back->entry.object.annotations, want.annotations);
    EXPECT_EQ(back->entry.object.managed_fields, want.managed_fields);
    EXPECT_EQ(back->entry.object.managed_values, want.managed_values);
    EXPECT_EQ(back->entry.health, engine::AssessHealth(c.object));
  }
}

TEST(ClusterProjectionTest, HealthIsTheWholeObjects) {
  std::string error;
  auto ready = EntryFromProjection(ProjectEntry(Deployment(2, 2)), &error);
  auto rolling = EntryFromProjection(ProjectEntry(Deployment(3, 1)), &error);
  ASSERT_TRUE(ready && rolling);
  EXPECT_EQ(ready->entry.health.status, engine::HealthCode::kHealthy);
  EXPECT_EQ(rolling->entry.health.status, engine::HealthCode::kProgressing);
  EXPECT_EQ(ready->label, "0123456789abcdef");
}

// A workload whose deadline the daemon decides carries its health both ways (the cluster actor
// picks one by its workload actor's decision); a Deployment carries one, read from the condition
// Kubernetes wrote: Degraded while that says ProgressDeadlineExceeded, and no second health (so
// the cluster actor holds no copy of its entry to pick from).
TEST(ClusterProjectionTest, DecidedWorkloadsCarryBothHealthsADeploymentOnlyItsOwn) {
  Json timed_out = Deployment(3, 1);
  timed_out["status"]["conditions"] =
      Json::array({{{"type", "Progressing"},
                    {"status", "False"},
                    {"reason", "ProgressDeadlineExceeded"},
                    {"message", "ReplicaSet \"web-5d\" has timed out progressing."},
                    {"lastUpdateTime", "2026-12-07T10:00:00Z"},
                    {"lastTransitionTime", "2026-12-07T10:00:00Z"}}});
  std::string error;
  auto deployment = EntryFromProjection(ProjectEntry(timed_out), &error);
  ASSERT_TRUE(deployment) << error;
  EXPECT_FALSE(deployment->health_if_exceeded.has_value());
  EXPECT_EQ(deployment->entry.health.status, engine::HealthCode::kDegraded);
  EXPECT_EQ(deployment->entry.health.message, "Deployment \"web\" exceeded its progress deadline");

  Json stateful = Deployment(3, 1);
  stateful["kind"] = "StatefulSet";
  stateful["status"]["currentRevision"] = "db-1";
  stateful["status"]["updateRevision"] = "db-2";
  auto decided = EntryFromProjection(ProjectEntry(stateful), &error);
  ASSERT_TRUE(decided) << error;
  ASSERT_TRUE(decided->health_if_exceeded.has_value());
  EXPECT_EQ(decided->health_if_exceeded->status, engine::HealthCode::kDegraded);
  EXPECT_NE(decided->entry.health.status, engine::HealthCode::kDegraded);
}

TEST(ClusterProjectionTest, AMalformedProjectionIsAnErrorNamingTheField) {
  const Json good = ProjectEntry(Deployment(2, 2));
  struct Case {
    const char* name;
    std::function<void(Json&)> spoil;
    const char* error;
  };
  const std::vector<Case> cases = {
      {"not an object", [](Json& j) { j = Json::array(); }, "not an object"},
      {"health status missing", [](Json& j) { j["health"].erase("status"); },
       "health.status is missing"},
      {"health status unknown", [](Json& j) { j["health"]["status"] = "Fine"; },
       "\"Fine\" is not a health code"},
      {"live missing", [](Json& j) { j.erase("live"); }, "live is missing"},
      {"live ref name a number", [](Json& j) { j["live"]["ref"]["name"] = 7; },
       "live.ref.name is a number"},
      {"an annotation that is not a string",
       [](Json& j) { j["live"]["annotations"]["fleetwave.io/adopt"] = true; },
       "live.annotations.fleetwave.io/adopt is a boolean"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Json bad = good;
    c.spoil(bad);
    std::string error;
    EXPECT_FALSE(EntryFromProjection(bad, &error));
    EXPECT_NE(error.find(c.error), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace fleetwave::actors
