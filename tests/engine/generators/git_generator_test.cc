// The git generators over repository content handed in as values: directories with
// include/exclude patterns, files flattened into parameters (lists of objects give one set per
// element), the path parameters in both template languages, pathParamPrefix, values.
#include "engine/git_generator.h"

#include <gtest/gtest.h>

#include "tests/engine/generators/generators_testing.h"

namespace fleetwave::engine {
namespace {

using testing::DecodeSpec;
using testing::ExpectApps;
using testing::Messages;

GeneratorInputs Repo() {
  GitRepoContent c;
  c.directories = {"apps",        "apps/api",         "apps/api/base", "apps/Web_UI",
                   "apps/legacy", "clusters",         "clusters/eu",   "clusters/eu/prod",
                   "clusters/us", "clusters/us/prod", "docs"};
  c.files = {
      {"clusters/eu/prod/config.json",
       R"({"cluster": {"name": "eu-prod", "address": "https://10.0.0.3:6443"}, "zones": ["a", "b"]})"},
      {"clusters/us/prod/config.yaml",
       "cluster:\n  name: us-prod\n  address: https://10.0.0.2:6443\nzones: [c]\n"},
      {"teams/list.yaml", "- {team: alpha, tier: 1}\n- {team: beta, tier: 2}\n"},
  };
  GeneratorInputs in;
  in.git[{"file:///repo", "main"}] = c;
  return in;
}

struct Case {
  const char* name;
  std::string spec;
  std::vector<std::string> want;
};

class GitGenerates : public ::testing::TestWithParam<Case> {};

TEST_P(GitGenerates, TheExpectedApplications) {
  auto d = DecodeSpec(GetParam().spec);
  ASSERT_TRUE(d.issues.empty()) << Messages(d.issues)[0];
  const GeneratorInputs in = Repo();
  ExpectApps(GenerateApplications(*d.appset, nullptr, &in), GetParam().want);
}

std::string Set(const std::string& go, const std::string& git, const std::string& name,
                const std::string& path, const std::string& ns) {
  return "spec:\n" + go + "  generators:\n    - git:\n        repoURL: file:///repo\n" +
         "        revision: main\n" + git + "  template:\n    metadata: {name: '" + name +
         "'}\n    spec: {project: default, source: {repoURL: file:///repo, path: '" + path +
         "'}, destination: {server: https://10.0.0.4:6443, namespace: '" + ns + "'}}\n";
}

std::string App(const std::string& name, const std::string& path, const std::string& ns) {
  return "{metadata: {name: '" + name +
         "'}, spec: {project: default, source: {repoURL: 'file:///repo', path: '" + path +
         "'}, destination: {server: 'https://10.0.0.4:6443', namespace: '" + ns + "'}}}";
}

const char* kDirs =
    "        directories:\n          - path: 'apps/*'\n          - {path: apps/legacy, "
    "exclude: true}\n";

INSTANTIATE_TEST_SUITE_P(
    Rules, GitGenerates,
    ::testing::Values(
        Case{"DirectoriesFasttemplate",
             Set("", kDirs, "{{path.basenameNormalized}}", "{{path}}",
                 "{{path[0]}}-{{path.basename}}"),
             {App("api", "apps/api", "apps-api"), App("web-ui", "apps/Web_UI", "apps-Web_UI")}},
        Case{"DirectoriesGoTemplate",
             Set("  goTemplate: true\n", kDirs, "{{.path.basenameNormalized}}", "{{.path.path}}",
                 "{{index .path.segments 0}}-{{.path.basename}}"),
             {App("api", "apps/api", "apps-api"), App("web-ui", "apps/Web_UI", "apps-Web_UI")}},
        Case{"ExcludeWinsWhateverTheOrder",
             Set("",
                 "        directories:\n          - {path: 'clusters/*/prod', exclude: true}\n"
                 "          - path: 'clusters/**'\n",
                 "{{path.basename}}-{{path[1]}}", "{{path}}", "x"),
             {App("eu-eu", "clusters/eu", "x"), App("us-us", "clusters/us", "x")}},
        Case{"DirectoriesWithPrefixAndValues",
             Set("",
                 kDirs + std::string("        pathParamPrefix: app\n"
                                     "        values: {ns: 'team-{{app.path.basename}}'}\n"),
                 "{{app.path.basenameNormalized}}", "{{app.path}}", "{{values.ns}}"),
             {App("api", "apps/api", "team-api"), App("web-ui", "apps/Web_UI", "team-Web_UI")}},
        Case{"DirectoriesWithPrefixGoTemplate",
             Set("  goTemplate: true\n",
                 kDirs + std::string("        pathParamPrefix: app\n"
                                     "        values: {ns: 'team-{{.app.path.basename}}'}\n"),
                 "{{.app.path.basenameNormalized}}", "{{.app.path.path}}", "{{.values.ns}}"),
             {App("api", "apps/api", "team-api"), App("web-ui", "apps/Web_UI", "team-Web_UI")}},
        Case{"FilesFlattenNestedKeysFasttemplate",
             Set("", "        files:\n          - path: 'clusters/**/config.*'\n",
                 "{{cluster.name}}", "{{path}}/{{path.filename}}", "{{path[1]}}-{{zones.0}}"),
             {App("eu-prod", "clusters/eu/prod/config.json", "eu-a"),
              App("us-prod", "clusters/us/prod/config.yaml", "us-c")}},
        Case{"FilesKeepNestedKeysGoTemplate",
             Set("  goTemplate: true\n",
                 "        files:\n          - path: 'clusters/**/config.*'\n", "{{.cluster.name}}",
                 "{{.path.path}}/{{.path.filenameNormalized}}",
                 "{{index .path.segments 1}}-{{index .zones 0}}"),
             {App("eu-prod", "clusters/eu/prod/config.json", "eu-a"),
              App("us-prod", "clusters/us/prod/config.yaml", "us-c")}},
        Case{"FilesListGivesOneSetPerElement",
             Set("", "        files:\n          - path: teams/*.yaml\n", "{{team}}", "{{path}}",
                 "tier-{{tier}}"),
             {App("alpha", "teams", "tier-1"), App("beta", "teams", "tier-2")}},
        Case{"FilesExcluded",
             Set("",
                 "        files:\n          - path: 'clusters/**'\n"
                 "          - {path: 'clusters/us/**', exclude: true}\n",
                 "{{cluster.name}}", "{{path}}", "x"),
             {App("eu-prod", "clusters/eu/prod", "x")}},
        Case{"GitInAMatrixWithAList",
             "spec:\n  generators:\n    - matrix:\n        generators:\n"
             "          - git: {repoURL: 'file:///repo', revision: main, files: [{path: "
             "'teams/*.yaml'}]}\n"
             "          - list: {elements: [{env: dev}, {env: prod}]}\n"
             "  template:\n    metadata: {name: '{{team}}-{{env}}'}\n"
             "    spec: {project: default, source: {repoURL: file:///repo, path: '{{path}}'}, "
             "destination: {server: https://10.0.0.4:6443, namespace: '{{env}}'}}\n",
             {App("alpha-dev", "teams", "dev"), App("alpha-prod", "teams", "prod"),
              App("beta-dev", "teams", "dev"), App("beta-prod", "teams", "prod")}}),
    [](const auto& info) { return info.param.name; });

TEST(GitGenerator, ARepositoryNotReadIsAnIssue) {
  auto d = DecodeSpec(Set("", kDirs, "{{path.basename}}", "{{path}}", "x"));
  ASSERT_TRUE(d.appset);
  GeneratorInputs empty;
  EXPECT_EQ(Messages(GenerateApplications(*d.appset, nullptr, &empty).issues),
            (std::vector<std::string>{"set.yaml:7:9: spec.generators[0]: git generator: "
                                      "repository \"file:///repo\" at revision \"main\" was not "
                                      "read"}));
  EXPECT_TRUE(GenerateApplications(*d.appset, nullptr).apps.empty())
      << "callers that read no repositories get nothing from git generators";
}

TEST(GitGenerator, AFileThatIsNotAnObjectIsAnIssue) {
  auto d = DecodeSpec(Set("", "        files:\n          - path: x.yaml\n", "{{a}}", "p", "x"));
  ASSERT_TRUE(d.appset);
  GeneratorInputs in;
  in.git[{"file:///repo", "main"}].files = {{"x.yaml", "[1, 2]\n"}};
  EXPECT_EQ(Messages(GenerateApplications(*d.appset, nullptr, &in).issues),
            (std::vector<std::string>{
                "set.yaml:7:9: spec.generators[0]: git generator: x.yaml: element 0 is not an "
                "object: a git files generator needs an object or a list of objects"}));
}

TEST(GitGenerator, RequestsNameEachRepositoryOnceWithTheFilePatterns) {
  auto d = DecodeSpec(
      "spec:\n  generators:\n    - matrix:\n        generators:\n"
      "          - git: {repoURL: r1, revision: main, files: [{path: 'a/*.json'}, {path: 'a/x', "
      "exclude: true}]}\n"
      "          - git: {repoURL: r1, revision: main, directories: [{path: '*'}]}\n"
      "    - git: {repoURL: '{{templated}}', revision: main, directories: [{path: '*'}]}\n"
      "  template:\n    metadata: {name: x}\n    spec: {project: default, source: {repoURL: r, "
      "path: p}, destination: {server: s, namespace: n}}\n");
  ASSERT_TRUE(d.appset) << Messages(d.issues)[0];
  auto reqs = GitRequestsOf(*d.appset);
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].repo_url, "r1");
  EXPECT_EQ(reqs[0].revision, "main");
  ASSERT_EQ(reqs[0].file_patterns.size(), 1u);
  EXPECT_EQ(reqs[0].file_patterns[0].path, "a/*.json");
}

struct GlobCase {
  const char* pattern;
  const char* path;
  bool match;
};

TEST(GitPathMatches, GlobRules) {
  const GlobCase cases[] = {
      {"apps/*", "apps/api", true},
      {"apps/*", "apps/api/base", false},
      {"apps/**", "apps/api/base", true},
      {"apps/?pi", "apps/api", true},
      {"apps/[a-c]*", "apps/api", true},
      {"apps/[!a]*", "apps/api", false},
      {"**/config.json", "x/y/config.json", true},
      {"*.yaml", "a/b.yaml", false},
      {"apps/api", "apps/api", true},
      {"apps", "apps/api", false},
  };
  for (const GlobCase& c : cases) {
    EXPECT_EQ(GitPathMatches(c.pattern, c.path), c.match) << c.pattern << " ~ " << c.path;
  }
}

}  // namespace
}  // namespace fleetwave::engine
