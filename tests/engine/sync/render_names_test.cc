// Render refuses names and namespaces that Kubernetes would refuse, since each becomes a
// request path (issue 30: a namespace "x/../../sim-0/..." sent an apply to another cluster),
// and holds one render to InputLimits::max_render_bytes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/appset/render.h"

namespace fleetwave::engine {
namespace {

using ::testing::HasSubstr;

RenderInput Input(std::vector<Json> objects, std::string ns = "guestbook") {
  RenderInput in;
  in.app = {"guestbook", "dev-guestbook"};
  in.destination_namespace = std::move(ns);
  in.discovery = Discovery::BuiltIn();
  int i = 0;
  for (auto& o : objects) in.manifests.push_back({"m.yaml#" + std::to_string(i++), std::move(o)});
  return in;
}

Json Deployment(const std::string& name, const std::string& ns = "") {
  Json o = {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"metadata", {{"name", name}}}};
  if (!ns.empty()) o["metadata"]["namespace"] = ns;
  return o;
}

std::string All(const RenderResult& r) {
  std::string out;
  for (const auto& i : r.issues) out += FormatIssue(i) + "\n";
  return out;
}

TEST(RenderNames, HostileDestinationNamespaceRendersNothing) {
  const std::string ns = "x/../../../../../../sim-0/apis/apps/v1/namespaces/default";
  RenderResult r = Render(Input({Deployment("web")}, ns));
  EXPECT_TRUE(r.objects.empty());
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].path, "spec.destination.namespace");
  EXPECT_THAT(r.issues[0].message,
              HasSubstr("Application \"dev-guestbook\": \"" + ns +
                        "\" is not a valid namespace: a lowercase RFC 1123 label must consist"));
}

TEST(RenderNames, HostileObjectNamespaceIsAnIssueOnThatObject) {
  RenderResult r = Render(Input({Deployment("web", "x?dryRun=All#"), Deployment("api")}));
  ASSERT_EQ(r.objects.size(), 1u);
  EXPECT_EQ(r.objects[0].ref.name, "api");
  ASSERT_EQ(r.issues.size(), 1u) << All(r);
  EXPECT_EQ(r.issues[0].file, "m.yaml#0");
  EXPECT_EQ(r.issues[0].path, "metadata.namespace");
  EXPECT_THAT(r.issues[0].message,
              HasSubstr("Deployment/web: \"x?dryRun=All#\" is not a valid namespace"));
}

TEST(RenderNames, HostileObjectNameIsAnIssueOnThatObject) {
  RenderResult r = Render(Input({Deployment("../../../../api/v1/namespaces/kube-system")}));
  EXPECT_TRUE(r.objects.empty());
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(r.issues[0].path, "metadata.name");
  EXPECT_THAT(r.issues[0].message,
              HasSubstr("\"../../../../api/v1/namespaces/kube-system\" is not a valid name for "
                        "Deployment: a lowercase RFC 1123 subdomain must consist"));
}

TEST(RenderNames, KindRulesAndThePathSegmentFloor) {
  Json svc = {{"apiVersion", "v1"}, {"kind", "Service"}, {"metadata", {{"name", "1web"}}}};
  Json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "a.b"}}}};
  Json role = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
               {"kind", "ClusterRole"},
               {"metadata", {{"name", "system:reader"}}}};
  Json widget = {
      {"apiVersion", "example.com/v1"}, {"kind", "Widget"}, {"metadata", {{"name", "Big_One"}}}};
  Json dots = {
      {"apiVersion", "example.com/v1"}, {"kind", "Widget"}, {"metadata", {{"name", ".."}}}};
  Json pct = {
      {"apiVersion", "example.com/v1"}, {"kind", "Widget"}, {"metadata", {{"name", "a%2Fb"}}}};
  RenderResult r = Render(Input({svc, ns, role, widget, dots, pct}));
  std::vector<std::string> kept;
  for (const auto& o : r.objects) kept.push_back(o.ref.KindName());
  EXPECT_EQ(kept, (std::vector<std::string>{"ClusterRole/system:reader", "Widget/Big_One"}));
  const std::string issues = All(r);
  EXPECT_THAT(issues, HasSubstr("m.yaml#0: metadata.name: \"1web\" is not a valid name for "
                                "Service: a DNS-1035 label"));
  EXPECT_THAT(issues, HasSubstr("m.yaml#1: metadata.name: \"a.b\" is not a valid name for "
                                "Namespace: must not contain dots"));
  EXPECT_THAT(issues, HasSubstr("m.yaml#4: metadata.name: \"..\" is not a valid name for Widget: "
                                "may not be '..'"));
  EXPECT_THAT(issues, HasSubstr("m.yaml#5: metadata.name: \"a%2Fb\" is not a valid name for "
                                "Widget: may not contain '%'"));
}

TEST(RenderNames, RenderBudget) {
  std::vector<Json> objects;
  for (int i = 0; i < 10; ++i) {
    Json cm = {{"apiVersion", "v1"},
               {"kind", "ConfigMap"},
               {"metadata", {{"name", "cm-" + std::to_string(i)}}},
               {"data", {{"k", std::string(1000, 'x')}}}};
    objects.push_back(cm);
  }
  InputLimits roomy;
  roomy.max_render_bytes = 1 << 20;
  EXPECT_EQ(Render(Input(objects), roomy).objects.size(), 10u);

  InputLimits tight;
  tight.max_render_bytes = 5000;
  RenderResult r = Render(Input(objects), tight);
  EXPECT_TRUE(r.objects.empty());
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_THAT(r.issues[0].message, HasSubstr("exceed limits.maxRenderBytes (5000 bytes) at "));
  EXPECT_THAT(r.issues[0].message, HasSubstr("ConfigMap/cm-"));
}

TEST(RenderNames, DefaultBudgetIsTheInputLimitsOne) {
  Json big = {{"apiVersion", "v1"},
              {"kind", "ConfigMap"},
              {"metadata", {{"name", "big"}}},
              {"data", {{"k", std::string(InputLimits{}.max_render_bytes, 'x')}}}};
  RenderResult r = Render(Input({big}));
  EXPECT_TRUE(r.objects.empty());
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_THAT(r.issues[0].message, HasSubstr("limits.maxRenderBytes"));
}

}  // namespace
}  // namespace fleetwave::engine
