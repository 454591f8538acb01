// The verbs and the deletion machinery on one in-memory cluster with a manual clock.
#include "tools/kubesim/verbs.h"

#include <gtest/gtest.h>

#include "tools/kubesim/lifecycle.h"

namespace fleetwave::kubesim {
namespace {

Json J(const char* text) { return Json::parse(text); }

class RecordingSink : public WatchSink {
 public:
  void Send(std::string line) override { lines.push_back(Json::parse(line)); }
  std::vector<Json> lines;
};

class VerbsTest : public ::testing::Test {
 protected:
  VerbsTest() : clock_(true), cluster_(0, "t", 1, clock_, ClusterOptions{}) {
    Create("namespaces", "", R"({"metadata":{"name":"ns"}})");
  }

  const ResourceType& T(const std::string& plural) {
    for (const auto& t : AllResources())
      if (t.plural == plural) return t;
    throw std::runtime_error(plural);
  }
  WriteContext Ctx(const std::string& version = "v1") { return {version, "test", false, false}; }
  Outcome Create(const std::string& plural, const std::string& ns, const char* body) {
    const auto& t = T(plural);
    return CreateObject(cluster_, t, ns, J(body), Ctx(t.versions.front()));
  }
  Outcome GetOne(const std::string& plural, const std::string& ns, const std::string& name) {
    const auto& t = T(plural);
    return GetObject(cluster_, t, t.versions.front(), ns, name);
  }

  Clock clock_;
  Cluster cluster_;
};

constexpr const char* kDeployment = R"({"apiVersion":"apps/v1","kind":"Deployment",
  "metadata":{"name":"web"},"spec":{"replicas":1,"selector":{"matchLabels":{"a":"b"}},
  "template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"m","image":"i"}]}}}})";

TEST_F(VerbsTest, CreateFillsIdentityAndDefaults) {
  Outcome o = Create("deployments", "ns", kDeployment);
  ASSERT_EQ(o.code, 201) << o.body.dump();
  EXPECT_EQ(o.body["metadata"]["generation"], 1);
  EXPECT_FALSE(o.body["metadata"]["uid"].get<std::string>().empty());
  EXPECT_EQ(o.body["spec"]["progressDeadlineSeconds"], 600);
  EXPECT_EQ(o.body["spec"]["revisionHistoryLimit"], 10);
  EXPECT_EQ(Create("deployments", "ns", kDeployment).body["reason"], "AlreadyExists");
  Outcome missing = Create("deployments", "nope", kDeployment);
  EXPECT_EQ(missing.code, 404);
  EXPECT_EQ(missing.body["kind"], "Status");
  EXPECT_EQ(missing.body["details"]["kind"], "namespaces");
}

TEST_F(VerbsTest, ResourceVersionsIncreaseAndGenerationTracksSpecOnly) {
  Json d = Create("deployments", "ns", kDeployment).body;
  Json labelled = d;
  labelled["metadata"]["labels"] = {{"x", "y"}};
  Outcome o1 = UpdateObject(cluster_, T("deployments"), "ns", "web", labelled, Ctx());
  ASSERT_EQ(o1.code, 200) << o1.body.dump();
  EXPECT_EQ(o1.body["metadata"]["generation"], 1);
  EXPECT_GT(std::stoull(o1.body["metadata"]["resourceVersion"].get<std::string>()),
            std::stoull(d["metadata"]["resourceVersion"].get<std::string>()));
  Outcome o2 = PatchObject(cluster_, T("deployments"), "ns", "web", J(R"({"spec":{"replicas":3}})"),
                           PatchType::kMerge, false, Ctx());
  EXPECT_EQ(o2.body["metadata"]["generation"], 2);
  // The first version is stale now.
  Outcome stale = UpdateObject(cluster_, T("deployments"), "ns", "web", d, Ctx());
  EXPECT_EQ(stale.code, 409);
  EXPECT_EQ(stale.body["reason"], "Conflict");
}

TEST_F(VerbsTest, StatusSubresourceOnlyChangesStatus) {
  Json d = Create("deployments", "ns", kDeployment).body;
  d["spec"]["replicas"] = 5;
  d["status"] = {{"replicas", 1}};
  WriteContext status = Ctx();
  status.status = true;
  Outcome o = UpdateObject(cluster_, T("deployments"), "ns", "web", d, status);
  EXPECT_EQ(o.body["status"]["replicas"], 1);
  EXPECT_EQ(o.body["spec"]["replicas"], 1);
  d["metadata"].erase("resourceVersion");
  Outcome main = UpdateObject(cluster_, T("deployments"), "ns", "web", d, Ctx());
  EXPECT_EQ(main.body["spec"]["replicas"], 5);
  EXPECT_EQ(main.body["status"]["replicas"], 1);  // main resource ignores status
}

TEST_F(VerbsTest, FinalizersHoldDeletionUntilRemoved) {
  Create("configmaps", "ns", R"({"metadata":{"name":"c","finalizers":["example.com/x"]}})");
  Outcome del = DeleteObject(cluster_, T("configmaps"), "ns", "c", {});
  ASSERT_EQ(del.code, 200);
  EXPECT_TRUE(del.body["metadata"].contains("deletionTimestamp"));
  Json obj = GetOne("configmaps", "ns", "c").body;
  obj["metadata"]["finalizers"] = Json::array();
  UpdateObject(cluster_, T("configmaps"), "ns", "c", obj, Ctx());
  EXPECT_EQ(GetOne("configmaps", "ns", "c").code, 404);
}

TEST_F(VerbsTest, PreconditionsAreChecked) {
  Create("configmaps", "ns", R"({"metadata":{"name":"c"}})");
  DeleteOptions o;
  o.precondition_uid = "not-the-uid";
  EXPECT_EQ(DeleteObject(cluster_, T("configmaps"), "ns", "c", o).code, 409);
  o.precondition_uid.reset();
  EXPECT_EQ(DeleteObject(cluster_, T("configmaps"), "ns", "c", o).body["status"], "Success");
}

TEST_F(VerbsTest, NamespaceTerminatesOverTicks) {
  Create("configmaps", "ns", R"({"metadata":{"name":"c"}})");
  DeleteObject(cluster_, T("namespaces"), "", "ns", {});
  EXPECT_EQ(GetOne("namespaces", "", "ns").body["status"]["phase"], "Terminating");
  EXPECT_EQ(Create("configmaps", "ns", R"({"metadata":{"name":"d"}})").code, 403);
  LifecycleTick(cluster_);  // contents go first
  EXPECT_EQ(GetOne("configmaps", "ns", "c").code, 404);
  EXPECT_EQ(GetOne("namespaces", "", "ns").code, 200);
  for (int i = 0; i < 3; ++i) LifecycleTick(cluster_);
  EXPECT_EQ(GetOne("namespaces", "", "ns").code, 404);
}

TEST_F(VerbsTest, GarbageCollectsDependentsAndHonoursForeground) {
  Json owner = Create("configmaps", "ns", R"({"metadata":{"name":"owner"}})").body;
  std::string uid = owner["metadata"]["uid"];
  std::string dep = R"({"metadata":{"name":"dep","ownerReferences":[{"apiVersion":"v1",
    "kind":"ConfigMap","name":"owner","uid":")" +
                    uid + R"("}]}})";
  Create("configmaps", "ns", dep.c_str());
  DeleteOptions fg;
  fg.propagation = "Foreground";
  DeleteObject(cluster_, T("configmaps"), "ns", "owner", fg);
  EXPECT_EQ(GetOne("configmaps", "ns", "owner").code, 200);  // waits for its dependents
  for (int i = 0; i < 4; ++i) LifecycleTick(cluster_);
  EXPECT_EQ(GetOne("configmaps", "ns", "dep").code, 404);
  EXPECT_EQ(GetOne("configmaps", "ns", "owner").code, 404);
}

TEST_F(VerbsTest, ListPagesAndExpiresTokens) {
  for (const char* n : {"a", "b", "c"}) {
    std::string body = std::string(R"({"metadata":{"name":")") + n + "\"}}";
    Create("configmaps", "ns", body.c_str());
  }
  ListParams p;
  p.ns = "ns";
  p.limit = 2;
  Outcome page1 = ListObjects(cluster_, T("configmaps"), "v1", p, std::chrono::minutes(5));
  ASSERT_EQ(page1.body["items"].size(), 2u);
  EXPECT_EQ(page1.body["metadata"]["remainingItemCount"], 1);
  p.continue_token = page1.body["metadata"]["continue"];
  Outcome page2 = ListObjects(cluster_, T("configmaps"), "v1", p, std::chrono::minutes(5));
  ASSERT_EQ(page2.body["items"].size(), 1u);
  EXPECT_EQ(page2.body["items"][0]["metadata"]["name"], "c");
  EXPECT_FALSE(page2.body["metadata"].contains("continue"));
  clock_.Advance(std::chrono::minutes(6));
  Outcome expired = ListObjects(cluster_, T("configmaps"), "v1", p, std::chrono::minutes(5));
  EXPECT_EQ(expired.code, 410);
  EXPECT_EQ(expired.body["reason"], "Expired");
}

TEST_F(VerbsTest, WatchHistoryReplaysAndCompacts) {
  std::uint64_t start = cluster_.resource_version();
  Create("configmaps", "ns", R"({"metadata":{"name":"a"}})");
  PatchObject(cluster_, T("configmaps"), "ns", "a", J(R"({"data":{"k":"v"}})"), PatchType::kMerge,
              false, Ctx());
  WatchFilter f;
  f.resource = T("configmaps").id;
  f.version = "v1";
  RecordingSink sink;
  ASSERT_TRUE(cluster_.hub().Replay(start, f, sink, clock_.Now()));
  ASSERT_EQ(sink.lines.size(), 2u);
  EXPECT_EQ(sink.lines[0]["type"], "ADDED");
  EXPECT_EQ(sink.lines[1]["type"], "MODIFIED");
  clock_.Advance(std::chrono::minutes(6));
  cluster_.hub().Compact(clock_.Now());
  RecordingSink late;
  EXPECT_FALSE(cluster_.hub().Replay(start, f, late, clock_.Now()));
  EXPECT_TRUE(late.lines.empty());
}

TEST_F(VerbsTest, CloneSetServedInBothVersions) {
  const char* body = R"({"apiVersion":"apps.kruise.io/v1beta1","kind":"CloneSet",
    "metadata":{"name":"c"},"spec":{"replicas":2,"selector":{"matchLabels":{"a":"b"}},
    "template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"m","image":"i"}]}},
    "updateStrategy":{"rollingUpdate":{"partition":1,"paused":true,"maxUnavailable":1}}}})";
  const auto& t = T("clonesets");
  Outcome created = CreateObject(cluster_, t, "ns", J(body), Ctx("v1beta1"));
  ASSERT_EQ(created.code, 201) << created.body.dump();
  Json alpha = GetObject(cluster_, t, "v1alpha1", "ns", "c").body;
  EXPECT_EQ(alpha["apiVersion"], "apps.kruise.io/v1alpha1");
  EXPECT_EQ(alpha["spec"]["updateStrategy"]["partition"], 1);
  EXPECT_EQ(alpha["spec"]["updateStrategy"]["paused"], true);
  EXPECT_EQ(alpha["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"], 1);
  Json beta = GetObject(cluster_, t, "v1beta1", "ns", "c").body;
  EXPECT_EQ(beta["spec"]["updateStrategy"]["rollingUpdate"]["partition"], 1);
  EXPECT_FALSE(beta["spec"]["updateStrategy"].contains("partition"));
}

}  // namespace
}  // namespace fleetwave::kubesim

namespace fleetwave::kubesim {
namespace {

TEST_F(VerbsTest, SelectorWatchesSeeObjectsEnterAndLeave) {
  auto sink = std::make_shared<RecordingSink>();
  WatchFilter f;
  f.resource = T("configmaps").id;
  f.version = "v1";
  std::string error;
  f.labels = *LabelSelector::Parse("pick=yes", &error);
  cluster_.hub().Add(f, sink);
  Create("configmaps", "ns", R"({"metadata":{"name":"a","labels":{"pick":"no"}}})");
  auto relabel = [&](const char* value) {
    Json patch = {{"metadata", {{"labels", {{"pick", value}}}}}};
    PatchObject(cluster_, T("configmaps"), "ns", "a", patch, PatchType::kMerge, false, Ctx());
  };
  relabel("yes");
  relabel("yes2");
  ASSERT_EQ(sink->lines.size(), 2u);
  EXPECT_EQ(sink->lines[0]["type"], "ADDED");
  EXPECT_EQ(sink->lines[1]["type"], "DELETED");
  EXPECT_EQ(sink->lines[1]["object"]["metadata"]["labels"]["pick"], "yes");
  EXPECT_EQ(sink->lines[1]["object"]["metadata"]["resourceVersion"],
            std::to_string(cluster_.resource_version()));
}

}  // namespace
}  // namespace fleetwave::kubesim
