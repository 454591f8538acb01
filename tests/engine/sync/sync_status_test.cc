// Sync status and drift (engine/sync_status.h, engine/managed_fields.h, engine/live_object.h):
// every reason, ignoreDifferences, the projection of live objects, and the new-revision rule.
#include "engine/sync_status.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/managed_fields.h"
#include "tests/engine/sync/sync_builders.h"

namespace fleetwave::engine {
namespace {

using testing::kApp;
using testing::Live;

Json Obj(const char* text) { return Json::parse(text); }

// The desired Deployment and its render.
RenderedObject DesiredDeployment(int replicas = 2, const char* image = "ui:1") {
  RenderInput in;
  in.app = kApp;
  in.destination_namespace = "guestbook";
  Json d = Obj(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
      "spec":{"template":{"spec":{"containers":[{"name":"ui","ports":[{"containerPort":80}]}]}}}})");
  d["spec"]["replicas"] = replicas;
  d["spec"]["template"]["spec"]["containers"][0]["image"] = image;
  in.manifests.push_back({"m", d});
  return Render(in).objects.at(0);
}

RenderedObject DesiredService() {
  RenderedObject r;
  r.ref = testing::Svc("web");
  r.tracking_id = TrackingId(kApp, r.ref);
  r.applied_hash = "0123456789abcdef";
  return r;
}

// What server-side apply records for fleetwave after applying DesiredDeployment.
const char* kFieldsV1 = R"({
  "f:metadata":{"f:annotations":{"f:fleetwave.io/applied-hash":{},"f:fleetwave.io/tracking-id":{}},
                "f:labels":{"f:fleetwave.io/app":{}}},
  "f:spec":{"f:replicas":{},
            "f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"ui\"}":{".":{},"f:image":{},
                "f:name":{},"f:ports":{}}}}}}})";

// A live Deployment as the API server returns it: the applied object plus server fields,
// with fleetwave's managedFields entry (and another manager's).
Json LiveDeployment(const RenderedObject& applied) {
  Json live = applied.object;
  live["metadata"]["resourceVersion"] = "42";
  live["metadata"]["generation"] = 3;
  live["metadata"]["uid"] = "u-1";
  live["metadata"]["managedFields"] = Json::array(
      {{{"manager", "kube-controller-manager"},
        {"operation", "Update"},
        {"fieldsV1", Obj(R"({"f:status":{"f:replicas":{}}})")}},
       {{"manager", "fleetwave"}, {"operation", "Apply"}, {"fieldsV1", Obj(kFieldsV1)}}});
  live["spec"]["strategy"] = {{"type", "RollingUpdate"}};  // server default, not fleetwave's
  live["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] = "IfNotPresent";
  live["status"] = {{"observedGeneration", 3}, {"replicas", 2}};
  return live;
}

TEST(LiveObjectTest, ProjectionKeepsOnlyWhatSyncReads) {
  const RenderedObject d = DesiredDeployment();
  const LiveObject l = ProjectLiveObject(LiveDeployment(d));
  EXPECT_EQ(l.ref, testing::Deploy("web"));
  EXPECT_EQ(l.resource_version, "42");
  EXPECT_EQ(l.generation, 3);
  EXPECT_EQ(l.observed_generation, 3);
  EXPECT_EQ(l.Annotation(kAppliedHashAnnotation), d.applied_hash);
  EXPECT_TRUE(l.IsTrackedBy(kApp));
  EXPECT_EQ(l.managed_fields, Obj(kFieldsV1));
  // Only fleetwave's fields: no status, no server defaults, list items keep their key.
  EXPECT_FALSE(l.managed_values.contains("status"));
  EXPECT_FALSE(l.managed_values["spec"].contains("strategy"));
  EXPECT_EQ(l.managed_values["spec"]["replicas"], 2);
  EXPECT_EQ(l.managed_values["spec"]["template"]["spec"]["containers"],
            Obj(R"([{"name":"ui","image":"ui:1","ports":[{"containerPort":80}]}])"));
  // Another manager's entry or an Update is not fleetwave's.
  EXPECT_TRUE(ManagedFieldsOf(LiveDeployment(d), "helm").is_null());
}

struct StatusCase {
  const char* name;
  std::vector<RenderedObject> desired;
  std::vector<LiveObject> live;
  std::vector<IgnoreDifference> ignore;
  bool reachable;
  SyncCode want_status;
  SyncReason want_reason;
  std::string want_message;
};

TEST(SyncStatusTest, EveryReason) {
  const RenderedObject d = DesiredDeployment();
  const LiveObject synced = ProjectLiveObject(LiveDeployment(d));

  Json scaled = LiveDeployment(d);
  scaled["spec"]["replicas"] = 5;  // kubectl scale: fleetwave still owns spec.replicas
  Json edited_image = LiveDeployment(d);
  edited_image["spec"]["template"]["spec"]["containers"][0]["image"] = "ui:hotfix";
  Json container_gone = LiveDeployment(d);
  container_gone["spec"]["template"]["spec"]["containers"][0]["name"] = "renamed";
  Json annotation_edited = LiveDeployment(d);
  annotation_edited["metadata"]["annotations"]["fleetwave.io/tracking-id"] = "x/y:/A:/b";
  Json unowned_change = LiveDeployment(d);
  unowned_change["spec"]["strategy"]["type"] = "Recreate";  // not in fleetwave's set
  Json no_managed = LiveDeployment(d);
  no_managed["metadata"].erase("managedFields");
  no_managed["spec"]["replicas"] = 9;

  const RenderedObject new_rev = DesiredDeployment(3);
  const std::string hash_msg = "Deployment/web differs from the desired state (applied hash " +
                               d.applied_hash + ", desired " + new_rev.applied_hash + ")";
  const std::vector<IgnoreDifference> ignore_replicas = {
      {"apps", "Deployment", "", "", {"/spec/replicas"}}};
  const std::vector<IgnoreDifference> ignore_image = {
      {"apps", "Deployment", "web", "guestbook", {"/spec/template/spec/containers/0/image"}}};
  const std::vector<IgnoreDifference> ignore_other_kind = {
      {"apps", "StatefulSet", "", "", {"/spec/replicas"}}};

  const StatusCase cases[] = {
      {"identical: Synced", {d}, {synced}, {}, true, SyncCode::kSynced, SyncReason::kNone, ""},
      {"server-side additions are not drift",
       {d},
       {ProjectLiveObject(unowned_change)},
       {},
       true,
       SyncCode::kSynced,
       SyncReason::kNone,
       ""},
      {"missing",
       {d},
       {},
       {},
       true,
       SyncCode::kOutOfSync,
       SyncReason::kMissing,
       "Deployment/web is missing"},
      {"hash differs (new desired state)",
       {new_rev},
       {synced},
       {},
       true,
       SyncCode::kOutOfSync,
       SyncReason::kHashDiffers,
       hash_msg},
      {"hash absent (never applied by fleetwave)",
       {d},
       {Live(testing::Deploy("web"), &kApp)},
       {},
       true,
       SyncCode::kOutOfSync,
       SyncReason::kHashDiffers,
       "Deployment/web differs from the desired state (applied hash none, desired " +
           d.applied_hash + ")"},
      {"field drift: a scalar",
       {d},
       {ProjectLiveObject(scaled)},
       {},
       true,
       SyncCode::kOutOfSync,
       SyncReason::kFieldDrift,
       "Deployment/web has drifted at /spec/replicas"},
      {"field drift: inside a keyed list item",
       {d},
       {ProjectLiveObject(edited_image)},
       {},
       true,
       SyncCode::kOutOfSync,
       SyncReason::kFieldDrift,
       "Deployment/web has drifted at /spec/template/spec/containers/0/image"},
      {"field drift: a keyed list item gone",
       {d},
       {ProjectLiveObject(container_gone)},
       {},
       true,
       SyncCode::kOutOfSync,
       SyncReason::kFieldDrift,
       "Deployment/web has drifted at /spec/template/spec/containers/0"},
      {"field drift: an owned annotation",
       {d},
       {ProjectLiveObject(annotation_edited)},
       {},
       true,
       SyncCode::kOutOfSync,
       SyncReason::kFieldDrift,
       "Deployment/web has drifted at /metadata/annotations/fleetwave.io~1tracking-id"},
      {"no managed fields: the hash decides",
       {d},
       {ProjectLiveObject(no_managed)},
       {},
       true,
       SyncCode::kSynced,
       SyncReason::kNone,
       ""},
      {"ignoreDifferences hides drift at its pointer",
       {d},
       {ProjectLiveObject(scaled)},
       ignore_replicas,
       true,
       SyncCode::kSynced,
       SyncReason::kNone,
       ""},
      {"ignoreDifferences by name and namespace inside a list",
       {d},
       {ProjectLiveObject(edited_image)},
       ignore_image,
       true,
       SyncCode::kSynced,
       SyncReason::kNone,
       ""},
      {"ignoreDifferences of another kind does not apply",
       {d},
       {ProjectLiveObject(scaled)},
       ignore_other_kind,
       true,
       SyncCode::kOutOfSync,
       SyncReason::kFieldDrift,
       "Deployment/web has drifted at /spec/replicas"},
      {"ignoreDifferences does not hide a new desired state",
       {new_rev},
       {synced},
       ignore_replicas,
       true,
       SyncCode::kOutOfSync,
       SyncReason::kHashDiffers,
       hash_msg},
      {"extraneous tracked object",
       {d},
       {synced, Live(testing::Svc("old"), &kApp)},
       {},
       true,
       SyncCode::kOutOfSync,
       SyncReason::kExtraneous,
       "Service/old is no longer desired (needs pruning)"},
      {"extraneous even with Prune=false",
       {d},
       {synced, Live(testing::Svc("old"), &kApp, {{kSyncOptionsAnnotation, "Prune=false"}})},
       {},
       true,
       SyncCode::kOutOfSync,
       SyncReason::kExtraneous,
       "Service/old is no longer desired (needs pruning)"},
      {"another app's objects are not extraneous",
       {d},
       {synced, Live(testing::Svc("old"), &testing::kOtherApp)},
       {},
       true,
       SyncCode::kSynced,
       SyncReason::kNone,
       ""},
      {"several: the first in render order, counted",
       {d, DesiredService()},
       {},
       {},
       true,
       SyncCode::kOutOfSync,
       SyncReason::kMissing,
       "Deployment/web is missing (+1 more)"},
      {"cluster unreachable: Unknown",
       {d},
       {},
       {},
       false,
       SyncCode::kUnknown,
       SyncReason::kUnreachable,
       "cluster is unreachable"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const AppSync s = CompareApp(kApp, c.desired, c.live, c.ignore, c.reachable);
    EXPECT_EQ(SyncCodeName(s.status), SyncCodeName(c.want_status));
    EXPECT_EQ(s.reason, c.want_reason);
    EXPECT_EQ(s.message, c.want_message);
  }
}

TEST(SyncStatusTest, NewRevisionWithIdenticalObjectsFastForwards) {
  // Two revisions whose manifests render the same objects (a commit outside the app's path).
  const RenderedObject at_old = DesiredDeployment();
  const RenderedObject at_new = DesiredDeployment();
  const LiveObject live = ProjectLiveObject(LiveDeployment(at_old));
  const AppSync s = CompareApp(kApp, {at_new}, {live}, {}, true);
  EXPECT_EQ(s.status, SyncCode::kSynced);
  EXPECT_EQ(DecideNewRevision(s), NewRevisionAction::kFastForward);
  EXPECT_EQ(DecideNewRevision(CompareApp(kApp, {DesiredDeployment(4)}, {live}, {}, true)),
            NewRevisionAction::kSync);
  EXPECT_EQ(DecideNewRevision(CompareApp(kApp, {at_new}, {live}, {}, false)),
            NewRevisionAction::kWait);
}

TEST(SyncStatusTest, DecodeIgnoreDifferences) {
  const auto got = DecodeIgnoreDifferences(Obj(R"({"ignoreDifferences":[
      {"group":"apps","kind":"Deployment","jsonPointers":["/spec/replicas", 7, "no-slash"]},
      {"kind":"ConfigMap","name":"c","namespace":"n","jsonPointers":["/data"]},
      {"group":"apps","jsonPointers":["/spec"]},
      {"kind":"Secret","jqPathExpressions":[".data"]},
      "junk"]})"));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].json_pointers, std::vector<std::string>{"/spec/replicas"});
  EXPECT_EQ(got[1].kind, "ConfigMap");
  EXPECT_EQ(IgnoredPointersFor(got, {"", "ConfigMap", "n", "c"}),
            std::vector<std::string>{"/data"});
  EXPECT_TRUE(IgnoredPointersFor(got, {"", "ConfigMap", "n", "other"}).empty());
  EXPECT_TRUE(DecodeIgnoreDifferences(Obj(R"({"ignoreDifferences":{}})")).empty());
}

TEST(ManagedFieldsTest, SetAndIndexElements) {
  const Json fields = Obj(R"({"f:spec":{"f:finalizers":{"v:\"a\"":{},"v:\"b\"":{}},
      "f:args":{"i:1":{}}}})");
  const Json desired = Obj(R"({"spec":{"finalizers":["a","b"],"args":["x","y"]}})");
  EXPECT_TRUE(FindDrift(fields, desired, desired, {}).empty());
  const Json live = Obj(R"({"spec":{"finalizers":["a"],"args":["x","z"]}})");
  const auto drift = FindDrift(fields, desired, live, {});
  ASSERT_EQ(drift.size(), 2u);
  EXPECT_EQ(drift[0].pointer, "/spec/args/1");
  EXPECT_EQ(drift[1].pointer, "/spec/finalizers/1");
  // Malformed entries are skipped, never thrown on.
  EXPECT_TRUE(FindDrift(Obj(R"({"f:spec":{"k:{bad":{}}})"), desired, live, {}).empty());
  EXPECT_TRUE(FindDrift(Json("x"), desired, live, {}).empty());
}

TEST(ManagedFieldsTest, RemovePointer) {
  Json v = Obj(R"({"a":{"b/c":[1,2,3],"d~e":1}})");
  RemovePointer(v, "/a/b~1c/1");
  RemovePointer(v, "/a/d~0e");
  RemovePointer(v, "/missing/x");
  RemovePointer(v, "no-slash");
  RemovePointer(v, "/a/b~1c/9");
  EXPECT_EQ(v, Obj(R"({"a":{"b/c":[1,3]}})"));
}

}  // namespace
}  // namespace fleetwave::engine
