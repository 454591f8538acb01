#include "tools/kubesim/patch.h"

#include <gtest/gtest.h>

namespace fleetwave::kubesim {
namespace {

Json J(const char* text) { return Json::parse(text); }

TEST(PatchTypeTest, FromContentType) {
  EXPECT_EQ(PatchTypeOf("application/merge-patch+json"), PatchType::kMerge);
  EXPECT_EQ(PatchTypeOf("application/json-patch+json"), PatchType::kJson);
  EXPECT_EQ(PatchTypeOf("application/strategic-merge-patch+json; charset=utf-8"),
            PatchType::kStrategic);
  EXPECT_EQ(PatchTypeOf("application/apply-patch+yaml"), PatchType::kApply);
  EXPECT_FALSE(PatchTypeOf("application/json"));
}

TEST(PatchTest, Table) {
  const Json base = J(R"({"metadata":{"labels":{"a":"1","b":"2"}},
    "spec":{"replicas":1,"template":{"spec":{"containers":[
      {"name":"main","image":"v1","ports":[{"containerPort":80}]},
      {"name":"side","image":"s1"}]}}}})");
  struct Case {
    const char* name;
    PatchType type;
    const char* patch;
    const char* pointer;
    const char* expect;  // JSON of the value at pointer; "absent" when removed
  } cases[] = {
      {"merge sets", PatchType::kMerge, R"({"spec":{"replicas":3}})", "/spec/replicas", "3"},
      {"merge null deletes", PatchType::kMerge, R"({"metadata":{"labels":{"a":null}}})",
       "/metadata/labels/a", "absent"},
      {"merge replaces lists", PatchType::kMerge,
       R"({"spec":{"template":{"spec":{"containers":[{"name":"x"}]}}}})",
       "/spec/template/spec/containers", R"([{"name":"x"}])"},
      {"json patch replace", PatchType::kJson,
       R"([{"op":"replace","path":"/spec/replicas","value":7}])", "/spec/replicas", "7"},
      {"json patch remove", PatchType::kJson, R"([{"op":"remove","path":"/metadata/labels/b"}])",
       "/metadata/labels/b", "absent"},
      {"strategic merges containers by name", PatchType::kStrategic,
       R"({"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"main"},{"name":"side"}],
          "containers":[{"name":"main","image":"v2"}]}}}})",
       "/spec/template/spec/containers/0",
       R"({"name":"main","image":"v2","ports":[{"containerPort":80}]})"},
      {"strategic keeps other items", PatchType::kStrategic,
       R"({"spec":{"template":{"spec":{"containers":[{"name":"main","image":"v2"}]}}}})",
       "/spec/template/spec/containers/1/image", R"("s1")"},
      {"strategic delete directive", PatchType::kStrategic,
       R"({"spec":{"template":{"spec":{"containers":[{"name":"side","$patch":"delete"}]}}}})",
       "/spec/template/spec/containers/1", "absent"},
      {"strategic order directive", PatchType::kStrategic,
       R"({"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"side"},{"name":"main"}]}}}})",
       "/spec/template/spec/containers/0/name", R"("main")"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::string error;
    auto out = ApplyPatch(base, J(c.patch), c.type, &error);
    ASSERT_TRUE(out) << error;
    Json::json_pointer ptr(c.pointer);
    if (std::string(c.expect) == "absent")
      EXPECT_FALSE(out->contains(ptr)) << out->dump();
    else
      EXPECT_EQ(out->at(ptr), J(c.expect)) << out->dump();
  }
}

TEST(PatchTest, FailedJsonPatchIsAnError) {
  std::string error;
  EXPECT_FALSE(
      ApplyPatch(J("{}"), J(R"([{"op":"test","path":"/a","value":1}])"), PatchType::kJson, &error));
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(ApplyPatch(J("{}"), J("[1]"), PatchType::kMerge, &error));
}

}  // namespace
}  // namespace fleetwave::kubesim
