// What the API server stores for a value written in another form, and whose field an ordinary
// write makes it: quantities canonicalised ("0.5" -> "500m"), a Secret's stringData folded into
// data, and a strategic-merge PATCH of one container's image (by name) moving that field from
// the applier's managed fields to the patcher's.
#include <gtest/gtest.h>

#include "tools/kubesim/quantity.h"
#include "tools/kubesim/verbs.h"

namespace fleetwave::kubesim {
namespace {

Json J(const char* text) { return Json::parse(text); }

TEST(QuantityTest, CanonicalFormsAsTheApiServerStoresThem) {
  const struct {
    Json in;
    const char* want;
  } cases[] = {
      {0.5, "500m"},
      {"0.5", "500m"},
      {"1000m", "1"},
      {"1500m", "1500m"},
      {"1.5", "1500m"},
      {"2000", "2k"},
      {2, "2"},
      {"0.1", "100m"},
      {"100Mi", "100Mi"},
      {"1024Mi", "1Gi"},
      {"1.5Gi", "1536Mi"},
      {"0.5Ki", "512"},
      {"0.3Ki", "307200m"},
      {"1e3", "1e3"},
      {"12e2", "1200"},
      {"128974848", "128974848"},
      {"0", "0"},
      {"-0.5", "-500m"},
      {"250u", "250u"},
      {"0.0001", "100u"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.in.dump());
    EXPECT_EQ(CanonicalQuantity(c.in).value_or("<none>"), c.want);
  }
  for (const char* bad : {"", "abc", "1x", "1.2.3", "Mi"}) {
    EXPECT_FALSE(CanonicalQuantity(bad).has_value()) << bad;
  }
}

class CanonicalWritesTest : public ::testing::Test {
 protected:
  CanonicalWritesTest() : clock_(true), cluster_(0, "t", 1, clock_, ClusterOptions{}) {
    CreateObject(cluster_, T("namespaces"), "", J(R"({"metadata":{"name":"ns"}})"), Ctx("test"));
  }
  const ResourceType& T(const std::string& plural) {
    for (const auto& t : AllResources())
      if (t.plural == plural) return t;
    throw std::runtime_error(plural);
  }
  static WriteContext Ctx(const std::string& manager) { return {"v1", manager, false, false}; }
  static Json FieldsOf(const Json& object, const std::string& manager) {
    for (const auto& e : object["metadata"]["managedFields"])
      if (e["manager"] == manager) return e["fieldsV1"];
    return nullptr;
  }

  Clock clock_;
  Cluster cluster_;
};

constexpr const char* kApplied = R"({"apiVersion":"apps/v1","kind":"Deployment",
  "metadata":{"name":"web"},"spec":{"replicas":2,"selector":{"matchLabels":{"a":"b"}},
  "template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[
    {"name":"side","image":"side:1"},
    {"name":"ui","image":"ui:1","resources":{"limits":{"cpu":0.5,"memory":"1024Mi"}}}]}}}})";

TEST_F(CanonicalWritesTest, ApplyStoresCanonicalQuantities) {
  Outcome o = PatchObject(cluster_, T("deployments"), "ns", "web", J(kApplied), PatchType::kApply,
                          false, Ctx("fleetwave"));
  ASSERT_EQ(o.code, 201) << o.body.dump();
  const Json& limits = o.body["spec"]["template"]["spec"]["containers"][1]["resources"]["limits"];
  EXPECT_EQ(limits, J(R"({"cpu":"500m","memory":"1Gi"})"));
}

TEST_F(CanonicalWritesTest, StrategicMergePatchMovesTheImageToThePatcher) {
  ASSERT_EQ(PatchObject(cluster_, T("deployments"), "ns", "web", J(kApplied), PatchType::kApply,
                        false, Ctx("fleetwave"))
                .code,
            201);
  Outcome o = PatchObject(cluster_, T("deployments"), "ns", "web",
                          J(R"({"spec":{"replicas":5,"template":{"spec":{"containers":[
          {"name":"ui","image":"attacker/evil:latest"}]}}}})"),
                          PatchType::kStrategic, false, Ctx("kubectl-patch"));
  ASSERT_EQ(o.code, 200) << o.body.dump();
  const Json& containers = o.body["spec"]["template"]["spec"]["containers"];
  ASSERT_EQ(containers.size(), 2u);  // merged by name: the other container is untouched
  EXPECT_EQ(containers[0]["image"], "side:1");
  EXPECT_EQ(containers[1]["image"], "attacker/evil:latest");
  const std::string ui = "k:{\"name\":\"ui\"}";
  const Json mine = FieldsOf(o.body, "fleetwave");
  const Json theirs = FieldsOf(o.body, "kubectl-patch");
  EXPECT_FALSE(mine["f:spec"]["f:template"]["f:spec"]["f:containers"][ui].contains("f:image"));
  EXPECT_FALSE(mine["f:spec"].contains("f:replicas"));
  EXPECT_TRUE(theirs["f:spec"]["f:template"]["f:spec"]["f:containers"][ui].contains("f:image"));
  EXPECT_TRUE(theirs["f:spec"].contains("f:replicas"));
  // A forced apply takes both back.
  Outcome back = PatchObject(cluster_, T("deployments"), "ns", "web", J(kApplied),
                             PatchType::kApply, true, Ctx("fleetwave"));
  ASSERT_EQ(back.code, 200) << back.body.dump();
  EXPECT_EQ(back.body["spec"]["template"]["spec"]["containers"][1]["image"], "ui:1");
  EXPECT_EQ(back.body["spec"]["replicas"], 2);
}

TEST_F(CanonicalWritesTest, SecretStringDataIsStoredAsData) {
  Outcome o = CreateObject(cluster_, T("secrets"), "ns",
                           J(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"creds"},
            "data":{"user":"YWRtaW4=","password":"b2xk"},"stringData":{"password":"hunter2"}})"),
                           Ctx("test"));
  ASSERT_EQ(o.code, 201) << o.body.dump();
  EXPECT_FALSE(o.body.contains("stringData"));
  EXPECT_EQ(o.body["data"], J(R"({"user":"YWRtaW4=","password":"aHVudGVyMg=="})"));
}

}  // namespace
}  // namespace fleetwave::kubesim
