// matrix, merge, per-generator template overrides and post-selectors: table tests with
// hand-written expected Applications, in both template languages.
#include <gtest/gtest.h>

#include "tests/engine/generators/generators_testing.h"

namespace fleetwave::engine {
namespace {

using testing::DecodeSpec;
using testing::ExpectApps;
using testing::Messages;

const std::vector<ClusterInfo> kClusters = {
    {"dev-eu", "https://10.0.0.1:6443", {{"env", "dev"}, {"region", "eu"}}},
    {"prod-us", "https://10.0.0.2:6443", {{"env", "prod"}, {"region", "us"}}},
    {"prod-eu", "https://10.0.0.3:6443", {{"env", "prod"}, {"region", "eu"}}},
    {"bare", "https://10.0.0.4:6443", {}},
};

struct Case {
  const char* name;
  std::string spec;
  std::vector<std::string> want;  // one flow mapping per Application, sorted by name
};

class Generates : public ::testing::TestWithParam<Case> {};

TEST_P(Generates, TheExpectedApplications) {
  auto d = DecodeSpec(GetParam().spec);
  ASSERT_TRUE(d.issues.empty()) << Messages(d.issues)[0];
  ExpectApps(GenerateApplications(*d.appset, &kClusters), GetParam().want);
}

// A template whose every field is one template string, so each case shows its parameters.
std::string Template(const std::string& name, const std::string& path, const std::string& server,
                     const std::string& labels = "{}") {
  return "  template:\n    metadata: {name: '" + name + "', labels: " + labels +
         "}\n    spec: {project: default, source: {repoURL: r, path: '" + path +
         "'}, destination: {server: '" + server + "', namespace: web}}\n";
}

std::string App(const std::string& name, const std::string& path, const std::string& server,
                const std::string& labels = "{}", const std::string& ns = "web") {
  return "{metadata: {name: " + name + ", labels: " + labels +
         "}, spec: {project: default, source: {repoURL: r, path: '" + path +
         "'}, destination: {server: '" + server + "', namespace: " + ns + "}}}";
}

const char* kMatrixGenerators = R"(  generators:
    - matrix:
        generators:
          - clusters: {selector: {matchLabels: {env: prod}}}
          - list: {elements: [{app: api}, {app: ui}]}
)";

const char* kMergeGeneratorsFast = R"(  generators:
    - merge:
        mergeKeys: [server]
        generators:
          - clusters: {values: {kafka: 'true', redis: 'false'}}
          - clusters: {selector: {matchLabels: {env: dev}}, values: {kafka: 'false'}}
          - list:
              elements:
                - {server: 'https://10.0.0.3:6443', values.redis: 'true'}
                - {server: 'https://nowhere', values.redis: 'true'}
)";

const char* kMergeGeneratorsGo = R"(  goTemplate: true
  generators:
    - merge:
        mergeKeys: [server]
        generators:
          - clusters: {values: {kafka: 'true', redis: 'false'}}
          - clusters: {selector: {matchLabels: {env: dev}}, values: {kafka: 'false'}}
          - list:
              elements:
                - {server: 'https://10.0.0.3:6443', values: {redis: 'true'}}
                - {server: 'https://nowhere', values: {redis: 'true'}}
)";

INSTANTIATE_TEST_SUITE_P(
    Rules, Generates,
    ::testing::Values(
        Case{"MatrixIsTheProductFasttemplate",
             std::string("spec:\n") + kMatrixGenerators +
                 Template("{{app}}-{{name}}", "{{app}}", "{{server}}",
                          "{env: '{{metadata.labels.env}}'}"),
             {App("api-prod-eu", "api", "https://10.0.0.3:6443", "{env: prod}"),
              App("api-prod-us", "api", "https://10.0.0.2:6443", "{env: prod}"),
              App("ui-prod-eu", "ui", "https://10.0.0.3:6443", "{env: prod}"),
              App("ui-prod-us", "ui", "https://10.0.0.2:6443", "{env: prod}")}},
        Case{"MatrixIsTheProductGoTemplate",
             std::string("spec:\n  goTemplate: true\n") + kMatrixGenerators +
                 Template("{{.app}}-{{.name}}", "{{.app}}", "{{.server}}",
                          "{env: '{{.metadata.labels.env}}'}"),
             {App("api-prod-eu", "api", "https://10.0.0.3:6443", "{env: prod}"),
              App("api-prod-us", "api", "https://10.0.0.2:6443", "{env: prod}"),
              App("ui-prod-eu", "ui", "https://10.0.0.3:6443", "{env: prod}"),
              App("ui-prod-us", "ui", "https://10.0.0.2:6443", "{env: prod}")}},
        Case{"MatrixSecondChildUsesTheFirstsParameters",
             std::string(R"(spec:
  generators:
    - matrix:
        generators:
          - list: {elements: [{env: dev}, {env: prod}]}
          - list: {elements: [{svc: '{{env}}-api'}, {svc: '{{env}}-ui'}]}
)") + Template("{{svc}}", "{{env}}", "https://10.0.0.4:6443"),
             {App("dev-api", "dev", "https://10.0.0.4:6443"),
              App("dev-ui", "dev", "https://10.0.0.4:6443"),
              App("prod-api", "prod", "https://10.0.0.4:6443"),
              App("prod-ui", "prod", "https://10.0.0.4:6443")}},
        Case{"MatrixGoTemplateLaterChildWinsOnSharedKeys",
             std::string(R"(spec:
  goTemplate: true
  generators:
    - matrix:
        generators:
          - list: {elements: [{app: a, cfg: {tier: base, zone: z1}}]}
          - list: {elements: [{cfg: {tier: gold}}]}
)") + Template("{{.app}}-{{.cfg.tier}}", "{{.cfg.zone}}", "https://10.0.0.4:6443"),
             {App("a-gold", "z1", "https://10.0.0.4:6443")}},
        Case{"MatrixNestedMergeOneLevel",
             std::string(R"(spec:
  generators:
    - matrix:
        generators:
          - merge:
              mergeKeys: [app]
              generators:
                - list: {elements: [{app: api, ver: '1'}, {app: ui, ver: '1'}]}
                - list: {elements: [{app: ui, ver: '2'}]}
          - list: {elements: [{server: 'https://10.0.0.1:6443'}]}
)") + Template("{{app}}-v{{ver}}", "{{app}}", "{{server}}"),
             {App("api-v1", "api", "https://10.0.0.1:6443"),
              App("ui-v2", "ui", "https://10.0.0.1:6443")}},
        Case{"MergeOverridesMatchingKeysFasttemplate",
             std::string("spec:\n") + kMergeGeneratorsFast +
                 Template("{{name}}", "p", "{{server}}",
                          "{kafka: '{{values.kafka}}', redis: '{{values.redis}}'}"),
             {App("bare", "p", "https://10.0.0.4:6443", "{kafka: 'true', redis: 'false'}"),
              App("dev-eu", "p", "https://10.0.0.1:6443", "{kafka: 'false', redis: 'false'}"),
              App("prod-eu", "p", "https://10.0.0.3:6443", "{kafka: 'true', redis: 'true'}"),
              App("prod-us", "p", "https://10.0.0.2:6443", "{kafka: 'true', redis: 'false'}")}},
        Case{"MergeOverridesMatchingKeysGoTemplate",
             std::string("spec:\n") + kMergeGeneratorsGo +
                 Template("{{.name}}", "p", "{{.server}}",
                          "{kafka: '{{.values.kafka}}', redis: '{{.values.redis}}'}"),
             {App("bare", "p", "https://10.0.0.4:6443", "{kafka: 'true', redis: 'false'}"),
              App("dev-eu", "p", "https://10.0.0.1:6443", "{kafka: 'false', redis: 'false'}"),
              App("prod-eu", "p", "https://10.0.0.3:6443", "{kafka: 'true', redis: 'true'}"),
              App("prod-us", "p", "https://10.0.0.2:6443", "{kafka: 'true', redis: 'false'}")}},
        Case{"MergeOnANestedKeyFasttemplate",
             std::string(R"(spec:
  generators:
    - merge:
        mergeKeys: [metadata.labels.region]
        generators:
          - list: {elements: [{metadata: {labels: {region: eu}}, n: a}, {metadata: {labels: {region: us}}, n: b}]}
          - list: {elements: [{metadata.labels.region: us, n: c}]}
)") + Template("{{n}}-{{metadata.labels.region}}", "p", "https://10.0.0.4:6443"),
             {App("a-eu", "p", "https://10.0.0.4:6443"),
              App("c-us", "p", "https://10.0.0.4:6443")}},
        Case{"TemplateOverrideMergesOverTheSetsTemplate",
             std::string(R"(spec:
  generators:
    - list:
        elements: [{app: api}]
        template:
          metadata: {labels: {tier: special}}
          spec: {destination: {namespace: special}, source: {path: ''}}
    - list: {elements: [{app: ui}]}
)") + Template("{{app}}", "{{app}}", "https://10.0.0.4:6443", "{team: web}"),
             {App("api", "api", "https://10.0.0.4:6443", "{team: web, tier: special}", "special"),
              App("ui", "ui", "https://10.0.0.4:6443", "{team: web}")}},
        Case{"TemplateOverrideOnAMatrixAppliesToAllItsApps",
             std::string(R"(spec:
  goTemplate: true
  generators:
    - matrix:
        generators:
          - list: {elements: [{app: api}]}
          - list: {elements: [{env: dev}, {env: prod}]}
        template:
          metadata: {name: '{{.app}}-{{.env}}-m'}
)") + Template("{{.app}}", "{{.env}}", "https://10.0.0.4:6443"),
             {App("api-dev-m", "dev", "https://10.0.0.4:6443"),
              App("api-prod-m", "prod", "https://10.0.0.4:6443")}},
        Case{"PostSelectorMatchLabelsFasttemplate",
             std::string(R"(spec:
  generators:
    - list:
        elements: [{app: a, env: dev}, {app: b, env: prod}, {app: c, env: prod}]
      selector: {matchLabels: {env: prod}}
)") + Template("{{app}}", "{{env}}", "https://10.0.0.4:6443"),
             {App("b", "prod", "https://10.0.0.4:6443"),
              App("c", "prod", "https://10.0.0.4:6443")}},
        Case{"PostSelectorOverNestedParamsGoTemplate",
             std::string(R"(spec:
  goTemplate: true
  generators:
    - clusters: {}
      selector:
        matchExpressions:
          - {key: metadata.labels.region, operator: In, values: [eu]}
          - {key: metadata.labels.env, operator: NotIn, values: [dev]}
)") + Template("{{.name}}", "{{.metadata.labels.region}}", "{{.server}}"),
             {App("prod-eu", "eu", "https://10.0.0.3:6443")}},
        Case{"PostSelectorOnAMatrixChild",
             std::string(R"(spec:
  generators:
    - matrix:
        generators:
          - clusters: {}
            selector: {matchExpressions: [{key: metadata.labels.env, operator: Exists}]}
          - list: {elements: [{app: api}]}
      selector: {matchLabels: {metadata.labels.region: eu}}
)") + Template("{{app}}-{{name}}", "{{app}}", "{{server}}"),
             {App("api-dev-eu", "api", "https://10.0.0.1:6443"),
              App("api-prod-eu", "api", "https://10.0.0.3:6443")}},
        Case{"ClustersParameterNamesFasttemplate",
             std::string(R"(spec:
  generators:
    - clusters: {selector: {matchLabels: {region: us}}, values: {owner: 'team-{{name}}'}}
)") + Template("{{nameNormalized}}", "{{metadata.labels.env}}/{{values.owner}}", "{{server}}"),
             {App("prod-us", "prod/team-prod-us", "https://10.0.0.2:6443")}},
        Case{"ClustersParameterNamesGoTemplate",
             std::string(R"(spec:
  goTemplate: true
  generators:
    - clusters: {selector: {matchLabels: {region: us}}, values: {owner: 'team-{{.name}}'}}
)") + Template("{{.nameNormalized}}", "{{.metadata.labels.env}}/{{.values.owner}}", "{{.server}}"),
             {App("prod-us", "prod/team-prod-us", "https://10.0.0.2:6443")}},
        Case{"ListParameterNamesBothLanguages",
             std::string(R"(spec:
  generators:
    - list: {elements: [{app: api, cfg: {zone: z1}}]}
)") + Template("{{app}}", "{{cfg.zone}}", "https://10.0.0.4:6443"),
             {App("api", "z1", "https://10.0.0.4:6443")}}),
    [](const auto& info) { return info.param.name; });

struct ErrorCase {
  const char* name;
  std::string spec;
  std::vector<std::string> want;  // decode issues, then generation issues
};

class Refuses : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(Refuses, WithAMessageNamingThePath) {
  auto d = DecodeSpec(GetParam().spec);
  std::vector<std::string> got = Messages(d.issues);
  if (d.issues.empty() && d.appset)
    got = Messages(GenerateApplications(*d.appset, &kClusters).issues);
  EXPECT_EQ(got, GetParam().want);
}

const std::string kTpl = Template("{{app}}", "p", "https://10.0.0.4:6443");

INSTANTIATE_TEST_SUITE_P(
    Rules, Refuses,
    ::testing::Values(
        ErrorCase{"MatrixNeedsTwoChildren",
                  "spec:\n  generators:\n    - matrix:\n        generators:\n"
                  "          - list: {elements: [{app: a}]}\n" +
                      kTpl,
                  {"set.yaml:8:11: spec.generators[0].matrix.generators: a matrix needs exactly "
                   "two child generators, found 1"}},
        ErrorCase{"MergeNeedsMergeKeys",
                  "spec:\n  generators:\n    - merge:\n        generators:\n"
                  "          - list: {elements: [{app: a}]}\n"
                  "          - list: {elements: [{app: b}]}\n" +
                      kTpl,
                  {"set.yaml:7:9: spec.generators[0].merge.mergeKeys: required field is missing"}},
        ErrorCase{"MergeSetsMustBeUniqueByKey",
                  "spec:\n  generators:\n    - merge:\n        mergeKeys: [env]\n"
                  "        generators:\n"
                  "          - list: {elements: [{app: a, env: x}, {app: b, env: x}]}\n"
                  "          - list: {elements: [{env: x}]}\n" +
                      kTpl,
                  {"set.yaml:7:9: spec.generators[0]: merge: the parameter sets of "
                   "spec.generators[0].merge.generators[0] are not unique by the merge keys (env): "
                   "[\"x\"] appears more than once"}},
        ErrorCase{"MatrixFasttemplateKeyWithTwoValues",
                  "spec:\n  generators:\n    - matrix:\n        generators:\n"
                  "          - list: {elements: [{app: a}]}\n"
                  "          - list: {elements: [{app: b}]}\n" +
                      kTpl,
                  {"set.yaml:7:9: spec.generators[0]: matrix: parameter \"app\" has two different "
                   "values (\"a\" from spec.generators[0].matrix.generators[0].list.elements[0], "
                   "\"b\" from spec.generators[0].matrix.generators[1].list.elements[0])"}},
        ErrorCase{"NestingTwoLevelsDeep",
                  "spec:\n  generators:\n    - matrix:\n        generators:\n"
                  "          - matrix:\n              generators:\n"
                  "                - merge: {mergeKeys: [a], generators: []}\n"
                  "                - list: {elements: []}\n"
                  "          - list: {elements: []}\n" +
                      kTpl,
                  {"set.yaml:10:19: spec.generators[0].matrix.generators[0].matrix.generators[0]."
                   "merge: matrix and merge generators nest one level deep only (as in Argo CD)"}},
        ErrorCase{"TemplateOnANestedChildIsRefused",
                  "spec:\n  generators:\n    - matrix:\n        generators:\n"
                  "          - list: {elements: [{app: a}], template: {metadata: {name: x}}}\n"
                  "          - list: {elements: [{env: b}]}\n" +
                      kTpl,
                  {"set.yaml:8:52: spec.generators[0].matrix.generators[0].list.template: "
                   "template overrides on generators inside matrix or merge are not applied (Argo "
                   "CD ignores them); put the template on the matrix or merge entry"}},
        ErrorCase{"UnsupportedGeneratorNamesTheSupportedOnes",
                  "spec:\n  generators:\n    - scmProvider: {}\n" + kTpl,
                  {"set.yaml:6:7: spec.generators[0].scmProvider: unsupported generator "
                   "\"scmProvider\" (supported: list, clusters, git, matrix, merge)"}}),
    [](const auto& info) { return info.param.name; });

TEST(HelmSources, AreRefusedWithAClearMessage) {
  auto d = DecodeSpec(
      "spec:\n  generators: []\n  template:\n    metadata: {name: x}\n    spec:\n"
      "      destination: {server: s, namespace: n}\n"
      "      sources:\n        - {repoURL: r, path: p}\n"
      "        - {repoURL: https://charts.example.com, chart: web, helm: {releaseName: w}}\n");
  EXPECT_EQ(Messages(d.issues),
            (std::vector<std::string>{
                "set.yaml:12:56: spec.template.spec.sources[1].chart: Helm sources are not "
                "supported by fleetwave yet (use a directory of manifests or a kustomization)",
                "set.yaml:12:67: spec.template.spec.sources[1].helm: Helm sources are not "
                "supported by fleetwave yet (use a directory of manifests or a kustomization)"}));
}

}  // namespace
}  // namespace fleetwave::engine
