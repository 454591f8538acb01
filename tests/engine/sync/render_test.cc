// Render: namespace defaulting, the three marks, apply order and unusable manifests
// (engine/appset/render.h). Expectations are written from the marking rules, not from a run.
#include "engine/appset/render.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fleetwave::engine {
namespace {

Json Obj(const char* text) { return Json::parse(text); }

RenderInput Input(std::vector<Json> objects, std::string ns = "guestbook") {
  RenderInput in;
  in.app = {"guestbook", "engineering-dev-guestbook"};
  in.destination_namespace = std::move(ns);
  in.discovery = Discovery::BuiltIn();
  int i = 0;
  for (auto& o : objects) in.manifests.push_back({"m.yaml#" + std::to_string(i++), std::move(o)});
  return in;
}

std::vector<std::string> Names(const RenderResult& r) {
  std::vector<std::string> out;
  for (const auto& o : r.objects) out.push_back(o.ref.KindName());
  return out;
}

TEST(FnvTest, KnownVectors) {
  // The published FNV-1a 64-bit test vectors.
  EXPECT_EQ(Fnv1a64Hex(""), "cbf29ce484222325");
  EXPECT_EQ(Fnv1a64Hex("a"), "af63dc4c8601ec8c");
  EXPECT_EQ(Fnv1a64Hex("foobar"), "85944171f73967e8");
}

TEST(TrackingIdTest, FormatAndParse) {
  struct Case {
    const char* name;
    ObjectRef ref;
    const char* id;
  };
  const AppIdentity app{"guestbook", "dev-guestbook"};
  const Case cases[] = {
      {"core namespaced",
       {"", "Service", "guestbook", "ui"},
       "guestbook/dev-guestbook:/Service:guestbook/ui"},
      {"grouped",
       {"apps", "Deployment", "web", "ui"},
       "guestbook/dev-guestbook:apps/Deployment:web/ui"},
      {"cluster-scoped", {"", "Namespace", "", "web"}, "guestbook/dev-guestbook:/Namespace:/web"},
      {"name with colon",
       {"rbac.authorization.k8s.io", "ClusterRole", "", "system:x"},
       "guestbook/dev-guestbook:rbac.authorization.k8s.io/ClusterRole:/system:x"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(TrackingId(app, c.ref), c.id);
    auto parsed = ParseTrackingId(c.id);
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->app, app);
    EXPECT_EQ(parsed->ref, c.ref);
  }
  for (const char* bad : {"", "guestbook", "a/b:c", "a:b/c:d/e", "a/b:/Kind:ns/"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(ParseTrackingId(bad));
  }
}

TEST(RenderTest, Marking) {
  const RenderResult r = Render(Input({Obj(R"({"apiVersion":"v1","kind":"ConfigMap",
      "metadata":{"name":"cfg","labels":{"tier":"web"},"annotations":{"note":"kept"}},
      "data":{"k":"v"}})")}));
  ASSERT_TRUE(r.issues.empty());
  ASSERT_EQ(r.objects.size(), 1u);
  const RenderedObject& o = r.objects[0];
  const std::string id = "guestbook/engineering-dev-guestbook:/ConfigMap:guestbook/cfg";
  EXPECT_EQ(o.tracking_id, id);
  const Json& meta = o.object["metadata"];
  EXPECT_EQ(meta["annotations"]["fleetwave.io/tracking-id"], id);
  EXPECT_EQ(meta["annotations"]["note"], "kept");
  EXPECT_EQ(meta["labels"]["tier"], "web");
  // The app label: FNV-1a 64 of "<appset>/<app>", 16 hex characters (a valid label value).
  EXPECT_EQ(meta["labels"]["fleetwave.io/app"], Fnv1a64Hex("guestbook/engineering-dev-guestbook"));
  EXPECT_EQ(AppLabelValue({"guestbook", "engineering-dev-guestbook"}).size(), 16u);
  // The applied hash: of the canonical JSON of the marked object without the hash itself.
  EXPECT_EQ(meta["annotations"]["fleetwave.io/applied-hash"], o.applied_hash);
  Json without = o.object;
  without["metadata"]["annotations"].erase("fleetwave.io/applied-hash");
  EXPECT_EQ(o.applied_hash, Fnv1a64Hex(without.dump()));
  EXPECT_EQ(ObjectHash(o.object), o.applied_hash);
}

TEST(RenderTest, HashIsStableAndContentSensitive) {
  const char* a =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"x":"1","y":"2"}})";
  const char* same_other_key_order =
      R"({"kind":"ConfigMap","data":{"y":"2","x":"1"},"metadata":{"name":"c"},"apiVersion":"v1"})";
  const char* changed =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"x":"1","y":"3"}})";
  const std::string h = Render(Input({Obj(a)})).objects.at(0).applied_hash;
  EXPECT_EQ(Render(Input({Obj(same_other_key_order)})).objects.at(0).applied_hash, h);
  EXPECT_NE(Render(Input({Obj(changed)})).objects.at(0).applied_hash, h);
  // Another app renders another tracking id, so another hash.
  RenderInput other = Input({Obj(a)});
  other.app.app = "engineering-qa-guestbook";
  EXPECT_NE(Render(other).objects.at(0).applied_hash, h);
  // A hash written into the manifest by hand is replaced, not hashed.
  Json with_stale = Obj(a);
  with_stale["metadata"]["annotations"]["fleetwave.io/applied-hash"] = "0000000000000000";
  EXPECT_EQ(Render(Input({with_stale})).objects.at(0).applied_hash, h);
  // Invalid UTF-8 (YAML passes bytes through) is hashed, not thrown on.
  Json bad_bytes = Obj(a);
  bad_bytes["data"]["x"] = std::string("\xff\xfe");
  RenderResult r;
  EXPECT_NO_THROW(r = Render(Input({bad_bytes})));
  ASSERT_EQ(r.objects.size(), 1u);
  EXPECT_EQ(r.objects[0].applied_hash.size(), 16u);
}

TEST(RenderTest, NamespaceDefaulting) {
  struct Case {
    const char* name;
    const char* object;
    const char* destination;
    const char* want_ns;  // "" = no metadata.namespace
  };
  const Case cases[] = {
      {"namespaced without namespace gets the destination's",
       R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"}})", "guestbook",
       "guestbook"},
      {"an explicit namespace is kept",
       R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"other"}})",
       "guestbook", "other"},
      {"no destination namespace: default",
       R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"s"}})", "", "default"},
      {"cluster-scoped stays without namespace",
       R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"r"}})",
       "guestbook", ""},
      {"a namespace written on a cluster-scoped object is cleared",
       R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n","namespace":"x"}})",
       "guestbook", ""},
      {"unknown kinds are namespaced",
       R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}})", "guestbook",
       "guestbook"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const RenderResult r = Render(Input({Obj(c.object)}, c.destination));
    ASSERT_TRUE(r.issues.empty());
    ASSERT_EQ(r.objects.size(), 1u);
    const Json& meta = r.objects[0].object["metadata"];
    if (*c.want_ns == '\0') {
      EXPECT_FALSE(meta.contains("namespace"));
    } else {
      EXPECT_EQ(meta["namespace"], c.want_ns);
    }
    EXPECT_EQ(r.objects[0].ref.namespace_, c.want_ns);
  }
}

TEST(RenderTest, DiscoveryDecidesScope) {
  RenderInput in =
      Input({Obj(R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}})")});
  in.discovery.cluster_scoped.insert("example.com/Widget");
  EXPECT_EQ(Render(in).objects.at(0).ref.namespace_, "");
  // A CRD shipped with the app declares its kind cluster-scoped.
  const RenderResult r = Render(Input({
      Obj(R"({"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g"}})"),
      Obj(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
          "metadata":{"name":"gadgets.example.com"},
          "spec":{"group":"example.com","scope":"Cluster","names":{"kind":"Gadget"}}})"),
  }));
  ASSERT_EQ(r.objects.size(), 2u);
  EXPECT_EQ(r.objects[1].ref.KindName(), "Gadget/g");
  EXPECT_EQ(r.objects[1].ref.namespace_, "");
}

TEST(RenderTest, Ordering) {
  const RenderResult r = Render(Input({
      Obj(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"b-svc"}})"),
      Obj(R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}})"),
      Obj(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"}})"),
      Obj(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"a-dep"}})"),
      Obj(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"z-ns"}})"),
      Obj(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a-ns"}})"),
  }));
  ASSERT_TRUE(r.issues.empty());
  // Namespaces, then CRDs, then the rest; source order within each group.
  EXPECT_EQ(Names(r), (std::vector<std::string>{"Namespace/z-ns", "Namespace/a-ns",
                                                "CustomResourceDefinition/widgets.example.com",
                                                "Service/b-svc", "Widget/w", "Deployment/a-dep"}));
}

TEST(RenderTest, ListsAreFlattened) {
  const RenderResult r = Render(Input({Obj(R"({"apiVersion":"v1","kind":"List","items":[
      {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}},
      {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}}]})")}));
  ASSERT_TRUE(r.issues.empty());
  EXPECT_EQ(Names(r), (std::vector<std::string>{"ConfigMap/a", "ConfigMap/b"}));
}

TEST(RenderTest, UnusableDocumentsAreIssues) {
  struct Case {
    const char* name;
    std::vector<const char*> objects;
    std::string want_message;
    size_t want_rendered;
  };
  const Case cases[] = {
      {"not an object", {R"([1,2])"}, "manifest is not an object", 0},
      {"no apiVersion",
       {R"({"kind":"ConfigMap","metadata":{"name":"a"}})"},
       "ConfigMap has no apiVersion",
       0},
      {"no kind", {R"({"apiVersion":"v1","metadata":{"name":"a"}})"}, "object has no kind", 0},
      {"no name",
       {R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{}})"},
       "ConfigMap has no metadata.name",
       0},
      {"defined twice",
       {R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}})",
        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"guestbook"}})"},
       "ConfigMap/a in namespace guestbook is defined twice (first in m.yaml#0)",
       1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<Json> objects;
    for (const char* o : c.objects) objects.push_back(Obj(o));
    const RenderResult r = Render(Input(objects));
    ASSERT_EQ(r.issues.size(), 1u);
    EXPECT_EQ(r.issues[0].message, c.want_message);
    EXPECT_EQ(r.objects.size(), c.want_rendered);
  }
}

TEST(RenderTest, RedactSecret) {
  const Json secret = Obj(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s",
      "annotations":{"fleetwave.io/applied-hash":"0123456789abcdef","keep":"me",
      "kubectl.kubernetes.io/last-applied-configuration":"{\"data\":{\"p\":\"c2VjcmV0\"}}"}},
      "type":"Opaque","data":{"p":"c2VjcmV0"},"stringData":{"q":"plain"}})");
  const Json r = RedactSecret(secret);
  EXPECT_EQ(r["data"]["p"], "<redacted>");
  EXPECT_EQ(r["stringData"]["q"], "<redacted>");
  EXPECT_EQ(r["metadata"]["annotations"]["fleetwave.io/applied-hash"], "<redacted>");
  EXPECT_EQ(r["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"],
            "<redacted>");
  EXPECT_EQ(r["metadata"]["annotations"]["keep"], "me");
  EXPECT_EQ(r["type"], "Opaque");
  EXPECT_EQ(r.dump().find("c2VjcmV0"), std::string::npos);
  // Not a core Secret: unchanged.
  const Json cm =
      Obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"p":"x"}})");
  EXPECT_EQ(RedactSecret(cm), cm);
  const Json other = Obj(
      R"({"apiVersion":"example.com/v1","kind":"Secret","metadata":{"name":"c"},"data":{"p":"x"}})");
  EXPECT_EQ(RedactSecret(other), other);
}

}  // namespace
}  // namespace fleetwave::engine
