#include "tools/kubesim/ssa.h"

#include <gtest/gtest.h>

namespace fleetwave::kubesim {
namespace {

Json J(const char* text) { return Json::parse(text); }

ApplyRequest As(const std::string& manager, bool force = false) {
  ApplyRequest r;
  r.manager = manager;
  r.api_version = "apps/v1";
  r.force = force;
  r.scope = FieldScope::kMain;
  r.now = "2026-01-01T00:00:00Z";
  return r;
}

const Json kApplied = J(R"({
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "web", "labels": {"app": "web"}},
  "spec": {"replicas": 2, "template": {"spec": {"containers": [
    {"name": "main", "image": "nginx:1", "ports": [{"containerPort": 80}],
     "env": [{"name": "A", "value": "1"}]}]}}}})");

const Json* ManagerFields(const Json& obj, const std::string& manager) {
  for (const auto& e : obj["metadata"]["managedFields"])
    if (e["manager"] == manager) return &e["fieldsV1"];
  return nullptr;
}

TEST(FieldSetTest, KeyedListsUseMergeKeys) {
  FieldSet set = FieldsOf(kApplied, FieldScope::kMain);
  Json v1 = ToFieldsV1(set);
  const Json& c = v1["f:spec"]["f:template"]["f:spec"]["f:containers"]["k:{\"name\":\"main\"}"];
  EXPECT_TRUE(c.contains("."));
  EXPECT_TRUE(c["f:ports"].contains("k:{\"containerPort\":80}"));
  EXPECT_TRUE(c["f:env"].contains("k:{\"name\":\"A\"}"));
  EXPECT_FALSE(v1["f:metadata"].contains("f:name"));  // identity is never owned
  EXPECT_EQ(FromFieldsV1(v1), set);
}

TEST(FieldSetTest, DescribesPathsLikeConflictCauses) {
  FieldPath p = {"f:spec", "f:template", "f:spec", "f:containers", "k:{\"name\":\"main\"}",
                 "f:image"};
  EXPECT_EQ(DescribePath(p), ".spec.template.spec.containers[name=\"main\"].image");
}

TEST(ApplyTest, CreatesAndRecordsManager) {
  ApplyOutcome out = Apply(Json(), kApplied, As("alice"));
  ASSERT_TRUE(out.conflicts.empty());
  EXPECT_EQ(out.object["spec"]["replicas"], 2);
  const Json* f = ManagerFields(out.object, "alice");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE((*f)["f:spec"].contains("f:replicas"));
  EXPECT_EQ(out.object["metadata"]["managedFields"][0]["operation"], "Apply");
}

TEST(ApplyTest, ConflictsWithAnotherManagerUnlessForced) {
  Json live = Apply(Json(), kApplied, As("alice")).object;
  Json bob = kApplied;
  bob["spec"]["replicas"] = 5;
  ApplyOutcome refused = Apply(live, bob, As("bob"));
  ASSERT_EQ(refused.conflicts.size(), 1u);
  EXPECT_EQ(refused.conflicts[0].manager, "alice");
  EXPECT_EQ(DescribePath(refused.conflicts[0].path), ".spec.replicas");
  ApiError e = ConflictError(refused.conflicts, "apps", "deployments", "web");
  EXPECT_EQ(e.code, 409);
  ASSERT_EQ(e.causes.size(), 1u);
  EXPECT_EQ(e.causes[0].reason, "FieldManagerConflict");
  EXPECT_EQ(e.causes[0].field, ".spec.replicas");

  ApplyOutcome forced = Apply(live, bob, As("bob", true));
  ASSERT_TRUE(forced.conflicts.empty());
  EXPECT_EQ(forced.object["spec"]["replicas"], 5);
  EXPECT_FALSE((*ManagerFields(forced.object, "alice"))["f:spec"].contains("f:replicas"));
  EXPECT_TRUE((*ManagerFields(forced.object, "bob"))["f:spec"].contains("f:replicas"));
}

TEST(ApplyTest, SameValueIsSharedNotConflicting) {
  Json live = Apply(Json(), kApplied, As("alice")).object;
  ApplyOutcome out = Apply(live, kApplied, As("bob"));
  EXPECT_TRUE(out.conflicts.empty());
  EXPECT_TRUE((*ManagerFields(out.object, "alice"))["f:spec"].contains("f:replicas"));
  EXPECT_TRUE((*ManagerFields(out.object, "bob"))["f:spec"].contains("f:replicas"));
}

TEST(ApplyTest, FieldsNoLongerAppliedAreRemovedUnlessOwnedElsewhere) {
  Json live = Apply(Json(), kApplied, As("alice")).object;
  Json smaller = kApplied;
  smaller["metadata"].erase("labels");
  smaller["spec"]["template"]["spec"]["containers"][0].erase("env");
  Json out = Apply(live, smaller, As("alice")).object;
  EXPECT_FALSE(out["metadata"].contains("labels") && out["metadata"]["labels"].contains("app"));
  EXPECT_FALSE(out["spec"]["template"]["spec"]["containers"][0].contains("env") &&
               !out["spec"]["template"]["spec"]["containers"][0]["env"].empty());

  // When bob also applied the label, alice dropping it leaves it in place.
  Json shared = Apply(live, kApplied, As("bob")).object;
  Json kept = Apply(shared, smaller, As("alice")).object;
  EXPECT_EQ(kept["metadata"]["labels"]["app"], "web");
}

TEST(ApplyTest, MergesKeyedListItemsFromDifferentManagers) {
  Json live = Apply(Json(), kApplied, As("alice")).object;
  Json sidecar = J(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
    "spec":{"template":{"spec":{"containers":[{"name":"side","image":"envoy:1"}]}}}})");
  Json out = Apply(live, sidecar, As("mesh")).object;
  const Json& cs = out["spec"]["template"]["spec"]["containers"];
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(cs[0]["name"], "main");
  EXPECT_EQ(cs[1]["name"], "side");
  // Removing its container takes only mesh's item away.
  Json none = J(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"}})");
  Json after = Apply(out, none, As("mesh")).object;
  ASSERT_EQ(after["spec"]["template"]["spec"]["containers"].size(), 1u);
  EXPECT_EQ(after["spec"]["template"]["spec"]["containers"][0]["name"], "main");
}

TEST(TrackUpdateTest, WriterTakesChangedFieldsFromAppliers) {
  Json live = Apply(Json(), kApplied, As("alice")).object;
  Json edited = live;
  edited["spec"]["replicas"] = 9;
  TrackUpdate(&live, edited, As("kubectl-edit"));
  EXPECT_FALSE((*ManagerFields(edited, "alice"))["f:spec"].contains("f:replicas"));
  const Json* editor = ManagerFields(edited, "kubectl-edit");
  ASSERT_NE(editor, nullptr);
  EXPECT_TRUE((*editor)["f:spec"].contains("f:replicas"));
  for (const auto& e : edited["metadata"]["managedFields"]) {
    if (e["manager"] == "kubectl-edit") {
      EXPECT_EQ(e["operation"], "Update");
    }
  }
}

}  // namespace
}  // namespace fleetwave::kubesim
