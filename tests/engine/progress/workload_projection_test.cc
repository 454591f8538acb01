// The workload watch's projection (engine/progress/workload_projection.h): the engine reads the
// same workload from the projection as from the whole object, for every kind and CloneSet layout,
// and what the projection leaves out (pod templates, managedFields, other conditions) is gone.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/progress/progress_deadline.h"
#include "engine/progress/workload_projection.h"

namespace fleetwave::engine {
namespace {

// Every field of a Workload, as text, so two reads compare in one assertion.
std::string Describe(const engine::Workload& w) {
  auto opt = [](const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "-"; };
  std::string out =
      std::string(engine::WorkloadKindName(w.kind)) + " " + w.api_version + " " + w.namespace_name +
      "/" + w.name + " gen=" + opt(w.generation) + " replicas=" + std::to_string(w.replicas) +
      " paused=" + std::to_string(w.paused) + " strategy=" + w.update_strategy_type +
      " minReady=" + std::to_string(w.min_ready_seconds) +
      " pds=" + (w.progress_deadline_field ? w.progress_deadline_field->dump() : "-") +
      " annotation=" + w.progress_deadline_annotation.value_or("-") +
      " deployRev=" + w.deployment_revision + " observed=" + opt(w.observed_generation) +
      " status=" + std::to_string(w.status_replicas) + "/" + std::to_string(w.ready_replicas) +
      "/" + std::to_string(w.available_replicas) + "/" + std::to_string(w.updated_replicas) + "/" +
      std::to_string(w.updated_ready_replicas) + "/" +
      std::to_string(w.updated_available_replicas) +
      " expected=" + opt(w.expected_updated_replicas) + " rev=" + w.current_revision + ".." +
      w.update_revision + " ds=" + std::to_string(w.desired_number_scheduled) + "/" +
      std::to_string(w.updated_number_scheduled) + "/" + std::to_string(w.number_available);
  if (w.partition) out += " partition=" + std::to_string(w.partition->value) + w.partition->text;
  if (w.progressing_condition) {
    out += " condition=" + engine::ConditionToJson(*w.progressing_condition).dump();
  }
  return out;
}

Json Noise() {
  return {{"metadata", {{"managedFields", Json::array({{{"manager", "kubectl"}}})}}},
          {"spec",
           {{"template",
             {{"spec", {{"containers", Json::array({{{"name", "web"}, {"image", "x"}}})}}}}}}}};
}

TEST(WorkloadProjectionTest, TheEngineReadsTheSameWorkload) {
  const Json progressing = {{"type", "Progressing"},
                            {"status", "True"},
                            {"reason", "CloneSetUpdated"},
                            {"message", "CloneSet is progressing"},
                            {"lastUpdateTime", "2026-03-01T12:00:00Z"},
                            {"lastTransitionTime", "2026-03-01T11:00:00Z"}};
  const Json ready = {{"type", "Ready"}, {"status", "True"}};
  struct Case {
    std::string name;
    Json object;
  };
  const std::vector<Case> cases = {
      {"CloneSet v1alpha1",
       {{"apiVersion", "apps.kruise.io/v1alpha1"},
        {"kind", "CloneSet"},
        {"metadata", {{"name", "web"}, {"namespace", "shop"}, {"generation", 3}}},
        {"spec",
         {{"replicas", 4},
          {"minReadySeconds", 2},
          {"progressDeadlineSeconds", 30},
          {"updateStrategy", {{"paused", true}, {"partition", "50%"}}}}},
        {"status",
         {{"observedGeneration", 3},
          {"replicas", 4},
          {"readyReplicas", 3},
          {"availableReplicas", 3},
          {"updatedReplicas", 2},
          {"updatedReadyReplicas", 2},
          {"updatedAvailableReplicas", 1},
          {"expectedUpdatedReplicas", 2},
          {"currentRevision", "web-1"},
          {"updateRevision", "web-2"},
          {"conditions", Json::array({ready, progressing})}}}}},
      {"CloneSet v1beta1 with the annotation",
       {{"apiVersion", "apps.kruise.io/v1beta1"},
        {"kind", "CloneSet"},
        {"metadata",
         {{"name", "web"},
          {"namespace", "shop"},
          {"annotations", {{"fleetwave.io/progress-deadline-seconds", "45"}, {"unrelated", "x"}}}}},
        {"spec",
         {{"replicas", 2},
          {"updateStrategy", {{"rollingUpdate", {{"paused", true}, {"partition", 1}}}}}}},
        {"status", {{"updateRevision", "web-9"}}}}},
      {"StatefulSet",
       {{"apiVersion", "apps/v1"},
        {"kind", "StatefulSet"},
        {"metadata", {{"name", "db"}, {"namespace", "data"}, {"generation", 2}}},
        {"spec",
         {{"replicas", 3},
          {"updateStrategy", {{"type", "RollingUpdate"}, {"rollingUpdate", {{"partition", 1}}}}}}},
        {"status",
         {{"observedGeneration", 2},
          {"readyReplicas", 3},
          {"currentRevision", "db-1"},
          {"updateRevision", "db-2"}}}}},
      {"DaemonSet",
       {{"apiVersion", "apps/v1"},
        {"kind", "DaemonSet"},
        {"metadata", {{"name", "agent"}, {"namespace", "kube-system"}, {"generation", 5}}},
        {"spec", {{"updateStrategy", {{"type", "OnDelete"}}}}},
        {"status",
         {{"desiredNumberScheduled", 3}, {"updatedNumberScheduled", 2}, {"numberAvailable", 1}}}}},
      {"Deployment",
       {{"apiVersion", "apps/v1"},
        {"kind", "Deployment"},
        {"metadata",
         {{"name", "api"},
          {"namespace", "shop"},
          {"annotations", {{"deployment.kubernetes.io/revision", "7"}}}}},
        {"spec", {{"replicas", 2}, {"paused", true}, {"progressDeadlineSeconds", 600}}},
        {"status", {{"conditions", Json::array({progressing})}}}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Json full = c.object;
    full.merge_patch(Noise());
    const Json projected = ProjectWorkload(full);
    const engine::WorkloadRead want = engine::ReadWorkload(full);
    ASSERT_TRUE(want.workload) << want.error.value_or(engine::Error{}).message;
    std::optional<ProjectedWorkload> got = WorkloadFromProjection(projected);
    ASSERT_TRUE(got);
    EXPECT_EQ(Describe(got->workload), Describe(*want.workload));
    EXPECT_EQ(got->ref.kind, engine::WorkloadKindName(want.workload->kind));
    EXPECT_EQ(got->ref.name, want.workload->name);
    EXPECT_EQ(got->ref.namespace_, want.workload->namespace_name);
    // Left out: the pod template, managedFields, other annotations and conditions.
    EXPECT_EQ(projected.dump().find("template"), std::string::npos) << projected.dump();
    EXPECT_EQ(projected.dump().find("managedFields"), std::string::npos);
    EXPECT_EQ(projected.dump().find("unrelated"), std::string::npos);
    EXPECT_EQ(projected.dump().find("\"Ready\""), std::string::npos);
  }
}

TEST(WorkloadProjectionTest, OtherKindsAreNotWorkloads) {
  const Json service = {{"apiVersion", "v1"},
                        {"kind", "Service"},
                        {"metadata", {{"name", "web"}, {"namespace", "shop"}}}};
  EXPECT_FALSE(WorkloadFromProjection(ProjectWorkload(service)));
}

}  // namespace
}  // namespace fleetwave::engine
