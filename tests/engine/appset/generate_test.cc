// Generators (list, clusters), selectors, parameters, and the checks on generated apps.
#include "engine/appset/generate.h"

#include <gtest/gtest.h>

namespace fleetwave::engine {
namespace {

ApplicationSet Load(const std::string& spec) {
  auto docs = LoadYamlDocuments(
      "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: web, namespace: "
      "argocd}\n" +
          spec,
      "set.yaml");
  auto r = DecodeApplicationSet(docs.documents.at(0), "set.yaml");
  for (const auto& i : r.issues) ADD_FAILURE() << FormatIssue(i);
  return *r.appset;
}

std::vector<std::string> Names(const GenerateResult& r) {
  std::vector<std::string> out;
  for (const auto& a : r.apps) out.push_back(a.name);
  return out;
}

std::vector<std::string> Messages(const GenerateResult& r) {
  std::vector<std::string> out;
  for (const auto& i : r.issues) out.push_back(FormatIssue(i));
  return out;
}

const std::vector<ClusterInfo> kClusters = {
    {"dev-eu", "https://10.0.0.1:6443", {{"env", "dev"}, {"region", "eu"}}},
    {"prod-us", "https://10.0.0.2:6443/", {{"env", "prod"}, {"region", "us"}}},
    {"prod-eu", "https://10.0.0.3:6443", {{"env", "prod"}, {"region", "eu"}, {"tier", "gold"}}},
    {"bare", "https://10.0.0.4:6443", {}},
};

const char* kClusterSpec = R"(spec:
  generators:
    - clusters:
        selector: SELECTOR
        values: {owner: 'team-{{name}}'}
  template:
    metadata:
      name: 'web-{{name}}'
      labels: {env: '{{metadata.labels.env}}', owner: '{{values.owner}}'}
    spec:
      project: default
      source: {repoURL: r, path: p}
      destination: {server: '{{server}}', namespace: web}
)";

std::string WithSelector(const std::string& selector) {
  std::string s = kClusterSpec;
  s.replace(s.find("SELECTOR"), 8, selector);
  return s;
}

struct SelectorCase {
  const char* name;
  std::string selector;
  std::vector<std::string> want;
};

class ClusterSelector : public ::testing::TestWithParam<SelectorCase> {};

TEST_P(ClusterSelector, SelectsClustersByLabels) {
  auto r = GenerateApplications(Load(WithSelector(GetParam().selector)), &kClusters);
  EXPECT_TRUE(r.issues.empty()) << Messages(r)[0];
  EXPECT_EQ(Names(r), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Rules, ClusterSelector,
    ::testing::Values(
        SelectorCase{
            "EmptySelectsAll", "{}", {"web-bare", "web-dev-eu", "web-prod-eu", "web-prod-us"}},
        SelectorCase{"MatchLabels", "{matchLabels: {env: prod}}", {"web-prod-eu", "web-prod-us"}},
        SelectorCase{
            "MatchLabelsAreAnded", "{matchLabels: {env: prod, region: eu}}", {"web-prod-eu"}},
        SelectorCase{"In",
                     "{matchExpressions: [{key: region, operator: In, values: [us, ap]}]}",
                     {"web-prod-us"}},
        SelectorCase{"NotInMatchesAbsentLabel",
                     "{matchExpressions: [{key: env, operator: NotIn, values: [prod]}]}",
                     {"web-bare", "web-dev-eu"}},
        SelectorCase{
            "Exists", "{matchExpressions: [{key: tier, operator: Exists}]}", {"web-prod-eu"}},
        SelectorCase{"DoesNotExist",
                     "{matchExpressions: [{key: env, operator: DoesNotExist}]}",
                     {"web-bare"}},
        SelectorCase{"LabelsAndExpressionsAreAnded",
                     "{matchLabels: {env: prod}, matchExpressions: [{key: region, operator: NotIn, "
                     "values: [eu]}]}",
                     {"web-prod-us"}}),
    [](const auto& info) { return info.param.name; });

TEST(ClustersGenerator, ParametersNameServerLabelsAndValues) {
  auto r = GenerateApplications(Load(WithSelector("{matchLabels: {region: us}}")), &kClusters);
  ASSERT_EQ(r.apps.size(), 1u);
  const Json& app = r.apps[0].object;
  EXPECT_EQ(app["spec"]["destination"]["server"], "https://10.0.0.2:6443/");
  EXPECT_EQ(app["metadata"]["labels"]["env"], "prod");
  EXPECT_EQ(app["metadata"]["labels"]["owner"], "team-prod-us")
      << "values are rendered with the cluster's params";
  EXPECT_EQ(app["metadata"]["namespace"], "argocd");
  EXPECT_EQ(r.apps[0].cluster, "prod-us") << "a trailing slash does not prevent the match";
  EXPECT_EQ(r.apps[0].labels.at("owner"), "team-prod-us");
}

TEST(ClustersGenerator, ProducesNothingWhenClustersAreUnknown) {
  auto r = GenerateApplications(Load(WithSelector("{}")), nullptr);
  EXPECT_TRUE(r.apps.empty());
  EXPECT_TRUE(r.issues.empty());
}

const char* kListSpec = R"(spec:
  goTemplate: GO
  goTemplateOptions: [missingkey=error]
  generators:
    - list:
        elements:
          - {cluster: b, url: 'https://10.0.0.1:6443', env: dev}
          - {cluster: a, url: 'https://10.0.0.9', env: prod}
  template:
    metadata:
      name: NAME
      labels: {env: ENV}
    spec:
      project: default
      source: {repoURL: r, path: 'guestbook/PATH', targetRevision: HEAD}
      destination: {server: SERVER, namespace: guestbook}
      extraField: {kept: true}
)";

std::string ListSpec(bool go, const std::string& name, const std::string& server) {
  std::string s = kListSpec;
  auto put = [&](const std::string& key, const std::string& v) {
    s.replace(s.find(key), key.size(), v);
  };
  put("GO", go ? "true" : "false");
  put("NAME", name);
  put("ENV", go ? "'{{.env}}'" : "'{{env}}'");
  put("PATH", go ? "{{.cluster}}" : "{{cluster}}");
  put("SERVER", server);
  return s;
}

TEST(ListGenerator, FasttemplateRendersEveryElementSortedByName) {
  auto r = GenerateApplications(Load(ListSpec(false, "'{{cluster}}-gb'", "'{{url}}'")), nullptr);
  ASSERT_TRUE(r.issues.empty()) << Messages(r)[0];
  EXPECT_EQ(Names(r), (std::vector<std::string>{"a-gb", "b-gb"}));
  EXPECT_EQ(r.apps[1].object["spec"]["source"]["path"], "guestbook/b");
  EXPECT_EQ(r.apps[1].labels.at("env"), "dev");
  EXPECT_EQ(r.apps[0].object["spec"]["extraField"]["kept"], true)
      << "unknown template fields pass through";
  EXPECT_EQ(r.apps[0].object["apiVersion"], "argoproj.io/v1alpha1");
  EXPECT_EQ(r.apps[0].object["kind"], "Application");
  EXPECT_TRUE(r.apps[0].cluster.empty()) << "no clusters known, nothing resolved";
}

TEST(ListGenerator, GoTemplateRenders) {
  auto r = GenerateApplications(Load(ListSpec(true, "'{{.cluster}}-gb'", "'{{.url}}'")), nullptr);
  ASSERT_TRUE(r.issues.empty()) << Messages(r)[0];
  EXPECT_EQ(Names(r), (std::vector<std::string>{"a-gb", "b-gb"}));
  EXPECT_EQ(r.apps[0].object["spec"]["destination"]["server"], "https://10.0.0.9");
}

struct AppIssueCase {
  const char* name;
  std::string spec;
  bool with_clusters;
  std::vector<std::string> want;
};

class GeneratedAppChecks : public ::testing::TestWithParam<AppIssueCase> {};

TEST_P(GeneratedAppChecks, NameTheApp) {
  auto r =
      GenerateApplications(Load(GetParam().spec), GetParam().with_clusters ? &kClusters : nullptr);
  EXPECT_EQ(Messages(r), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Rules, GeneratedAppChecks,
    ::testing::Values(
        AppIssueCase{
            "DuplicateNames",
            ListSpec(false, "same", "'{{url}}'"),
            false,
            {"set.yaml:13:5: spec.template.metadata.name: duplicate Application name \"same\" "
             "(generated "
             "from spec.generators[0].list.elements[0] and spec.generators[0].list.elements[1])"}},
        AppIssueCase{"MissingKeyError",
                     ListSpec(true, "'{{.cluster}}-{{.zone}}'", "'{{.url}}'"),
                     false,
                     {"set.yaml:13:5: spec.template.metadata.name: map has no entry for key "
                      "\"zone\" (parameters "
                      "from spec.generators[0].list.elements[0])",
                      "set.yaml:13:5: spec.template.metadata.name: map has no entry for key "
                      "\"zone\" (parameters "
                      "from spec.generators[0].list.elements[1])"}},
        AppIssueCase{
            "InvalidName",
            ListSpec(false, "'{{cluster}}_GB'", "'{{url}}'"),
            false,
            {"set.yaml:13:5: spec.template.metadata.name: Application name \"b_GB\" is invalid: "
             "must be a "
             "lowercase RFC 1123 subdomain (parameters from spec.generators[0].list.elements[0])",
             "set.yaml:13:5: spec.template.metadata.name: Application name \"a_GB\" is invalid: "
             "must be a "
             "lowercase RFC 1123 subdomain (parameters from spec.generators[0].list.elements[1])"}},
        AppIssueCase{"DestinationMatchesNoCluster",
                     ListSpec(false, "'{{cluster}}-gb'", "'{{url}}'"),
                     true,
                     {"set.yaml:13:5: spec.template.spec.destination: Application \"a-gb\": "
                      "destination server "
                      "\"https://10.0.0.9\" matches no known cluster"}},
        AppIssueCase{
            "DestinationByName",
            std::string(ListSpec(false, "'{{cluster}}-gb'", "x"))
                .replace(std::string(ListSpec(false, "'{{cluster}}-gb'", "x")).find("server: x"), 9,
                         "name: prod-us"),
            true,
            {}}),
    [](const auto& info) { return info.param.name; });

TEST(Destination, SeveralClustersWithOneServerIsAnError) {
  std::vector<ClusterInfo> clusters = {{"one", "https://10.0.0.1:6443", {}},
                                       {"two", "https://10.0.0.1:6443/", {}}};
  auto r = GenerateApplications(
      Load(ListSpec(false, "'{{cluster}}-gb'", "'https://10.0.0.1:6443'")), &clusters);
  ASSERT_EQ(r.issues.size(), 2u);
  EXPECT_EQ(r.issues[0].message,
            "Application \"b-gb\": destination server \"https://10.0.0.1:6443\" matches 2 "
            "clusters: one, two");
}

}  // namespace
}  // namespace fleetwave::engine
