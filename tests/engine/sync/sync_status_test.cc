// Sync status and drift (engine/sync/sync_status.h, engine/sync/managed_fields.h,
// engine/live_object.h): every reason, ignoreDifferences, the projection of live objects, and the
// new-revision rule.
#include "engine/sync/sync_status.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/sha256.h"
#include "engine/sync/managed_fields.h"
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
  // Of every manager's fields, the shape of the lists (a container's merge key) is what the
  // comparison reads and all that is kept; the values are those of every manager's fields (the
  // controller's status ones too), but no status values, no server defaults; list items keep
  // their key; identity is kept.
  EXPECT_EQ(
      l.managed_fields,
      Obj(R"({"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"ui\"}":{}}}}}})"));
  EXPECT_EQ(l.managed_values["metadata"]["name"], "web");
  EXPECT_EQ(l.managed_values["metadata"]["namespace"], "guestbook");
  EXPECT_FALSE(l.managed_values.contains("status"));
  EXPECT_FALSE(l.managed_values["spec"].contains("strategy"));
  EXPECT_EQ(l.managed_values["spec"]["replicas"], 2);
  EXPECT_EQ(l.managed_values["spec"]["template"]["spec"]["containers"],
            Obj(R"([{"name":"ui","image":"ui:1","ports":[{"containerPort":80}]}])"));
  // Another manager's entry or an Update is not fleetwave's.
  EXPECT_TRUE(ManagedFieldsOf(LiveDeployment(d), "helm").is_null());
  // Status subresource writes are not part of the union.
  Json with_subresource = LiveDeployment(d);
  with_subresource["metadata"]["managedFields"][0]["subresource"] = "status";
  EXPECT_FALSE(AllManagedFields(with_subresource).contains("f:status"));
  EXPECT_TRUE(AllManagedFields(LiveDeployment(d)).contains("f:status"));
}

// `live` after another client changed the field at `pointer` with an ordinary write (kubectl
// patch or edit): the field leaves fleetwave's set (`leaf` under `parent_fields`) for the
// writer's, as the API server records it.
Json EditedBy(Json live, const std::string& pointer, Json value, const std::string& parent_fields,
              const std::string& leaf, const char* writer_fields) {
  live[Json::json_pointer(pointer)] = std::move(value);
  Json& entries = live["metadata"]["managedFields"];
  for (auto& e : entries) {
    if (e["manager"] == "fleetwave") e["fieldsV1"][Json::json_pointer(parent_fields)].erase(leaf);
  }
  entries.push_back(
      {{"manager", "kubectl-patch"}, {"operation", "Update"}, {"fieldsV1", Obj(writer_fields)}});
  return live;
}

RenderedObject DesiredSecret() {
  RenderInput in;
  in.app = kApp;
  in.destination_namespace = "guestbook";
  in.manifests.push_back({"m", Obj(R"({"apiVersion":"v1","kind":"Secret",
      "metadata":{"name":"creds"},"stringData":{"password":"hunter2"}})")});
  return Render(in).objects.at(0);
}

// The Secret as stored: stringData became data ("hunter2" in base64).
Json LiveSecret(const RenderedObject& applied) {
  Json live = applied.object;
  live.erase("stringData");
  live["data"] = {{"password", "aHVudGVyMg=="}};
  live["metadata"]["managedFields"] = Json::array(
      {{{"manager", "fleetwave"},
        {"operation", "Apply"},
        {"fieldsV1", Obj(R"({"f:metadata":{"f:annotations":{"f:fleetwave.io/applied-hash":{},
                     "f:fleetwave.io/tracking-id":{}},"f:labels":{"f:fleetwave.io/app":{}}},
                 "f:stringData":{"f:password":{}}})")}}});
  return live;
}

TEST(LiveObjectTest, SecretValuesAreNeverKept) {
  const Json secret = Obj(R"({"apiVersion":"v1","kind":"Secret",
      "metadata":{"name":"creds","namespace":"guestbook","managedFields":[{"manager":"fleetwave",
          "operation":"Apply","fieldsV1":{"f:stringData":{"f:password":{}}}}]},
      "data":{"password":"aHVudGVyMg=="}})");
  const LiveObject l = ProjectLiveObject(secret);
  EXPECT_EQ(l.managed_values["data"]["password"], "sha256:" + Sha256Hex("aHVudGVyMg=="));
  EXPECT_EQ(l.managed_values.dump().find("aHVudGVyMg"), std::string::npos);
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
  const Json image_taken = EditedBy(
      LiveDeployment(d), "/spec/template/spec/containers/0/image", "attacker/evil:latest",
      "/f:spec/f:template/f:spec/f:containers/k:{\"name\":\"ui\"}", "f:image",
      R"({"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"ui\"}":{"f:image":{}}}}}}})");
  const Json replicas_taken = EditedBy(LiveDeployment(d), "/spec/replicas", 5, "/f:spec",
                                       "f:replicas", R"({"f:spec":{"f:replicas":{}}})");
  const RenderedObject secret = DesiredSecret();
  const Json secret_live = LiveSecret(secret);
  const Json secret_changed = EditedBy(secret_live, "/data/password", "ZXZpbA==", "",
                                       "f:stringData", R"({"f:data":{"f:password":{}}})");

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
      {"no managed fields: the whole object is compared",
       {d},
       {ProjectLiveObject(no_managed)},
       {},
       true,
       SyncCode::kOutOfSync,
       SyncReason::kFieldDrift,
       "Deployment/web has drifted at /spec/replicas"},
      {"another manager took the image (its ownership moved)",
       {d},
       {ProjectLiveObject(image_taken)},
       {},
       true,
       SyncCode::kOutOfSync,
       SyncReason::kFieldDrift,
       "Deployment/web has drifted at /spec/template/spec/containers/0/image"},
      {"another manager took replicas",
       {d},
       {ProjectLiveObject(replicas_taken)},
       {},
       true,
       SyncCode::kOutOfSync,
       SyncReason::kFieldDrift,
       "Deployment/web has drifted at /spec/replicas"},
      {"ignoreDifferences hides a field another manager took",
       {d},
       {ProjectLiveObject(replicas_taken)},
       ignore_replicas,
       true,
       SyncCode::kSynced,
       SyncReason::kNone,
       ""},
      {"a Secret's data changed by another manager: named, never printed",
       {secret},
       {ProjectLiveObject(secret_changed)},
       {},
       true,
       SyncCode::kOutOfSync,
       SyncReason::kFieldDrift,
       "Secret/creds has drifted at /data/password"},
      {"a Secret applied as stringData and stored as data is in sync",
       {secret},
       {ProjectLiveObject(secret_live)},
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

TEST(SyncStatusTest, TheFirstDriftIsATypedValue) {
  const RenderedObject d = DesiredDeployment();
  Json scaled = LiveDeployment(d);
  scaled["spec"]["replicas"] = 5;
  // A missing Service comes first in the message; the drift is still the Deployment's.
  const AppSync s = CompareApp(kApp, {DesiredService(), d}, {ProjectLiveObject(scaled)}, {}, true);
  EXPECT_EQ(s.reason, SyncReason::kMissing);
  ASSERT_TRUE(s.drift.has_value());
  EXPECT_EQ(*s.drift, (Drift{testing::Deploy("web"), "/spec/replicas"}));
  EXPECT_FALSE(
      CompareApp(kApp, {d}, {ProjectLiveObject(LiveDeployment(d))}, {}, true).drift.has_value());
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
