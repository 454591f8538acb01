// `fleetwave generate` with git generators on repositories the test creates with the git
// CLI: directories with an exclude, files with nested keys and lists, read at the revision
// the generator names (not the work tree).
#include <gtest/gtest.h>

#include <sstream>

#include "engine/yaml_json.h"
#include "tests/sources/git_repo.h"
#include "tools/fleetwave/commands.h"

namespace fleetwave::cli {
namespace {

using sources::testing::GitRepo;
using sources::testing::TempDir;
using sources::testing::WriteFile;

struct Generated {
  int code;
  engine::Json items;  // name -> {path, namespace}
  std::string err;
};

Generated GenerateJson(const std::string& appset_file) {
  std::ostringstream out, err;
  const int code = RunGenerate({"-f", appset_file, "-o", "json"}, out, err);
  Generated g{code, engine::Json::object(), err.str()};
  if (code != 0) return g;
  const engine::Json list = engine::Json::parse(out.str(), nullptr, false);
  if (!list.is_object() || !list.contains("items")) return g;
  for (const auto& app : list["items"]) {
    g.items[app["metadata"]["name"].get<std::string>()] = {
        {"path", app["spec"]["source"]["path"]},
        {"namespace", app["spec"]["destination"]["namespace"]}};
  }
  return g;
}

class GitGeneratorsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_.Write("apps/api/deploy.yaml", "kind: ConfigMap\n");
    repo_.Write("apps/web-ui/deploy.yaml", "kind: ConfigMap\n");
    repo_.Write("apps/legacy/deploy.yaml", "kind: ConfigMap\n");
    repo_.Write("clusters/eu/config.yaml",
                "cluster:\n  name: eu\n  address: https://10.0.0.3:6443\n"
                "apps:\n  - {name: api, replicas: 2}\n");
    repo_.Write("clusters/us/config.json",
                R"({"cluster": {"name": "us", "address": "https://10.0.0.2:6443"},)"
                R"( "apps": [{"name": "web", "replicas": 3}]})");
    repo_.Write("teams/teams.yaml",
                "- {team: alpha, owner: {name: ann}}\n- {team: beta, owner: "
                "{name: bob}}\n");
    repo_.Commit("one");
    repo_.Git("tag v1");
    // A later commit the generators must not see when they ask for v1.
    repo_.Write("apps/late/deploy.yaml", "kind: ConfigMap\n");
    repo_.Commit("two");
  }

  std::string AppSet(const std::string& generators, const std::string& name,
                     const std::string& path, const std::string& ns, bool go = false) {
    const std::string file = dir_.path() + "/appset.yaml";
    WriteFile(file,
              "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: "
              "web}\nspec:\n" +
                  std::string(go ? "  goTemplate: true\n" : "") + "  generators:\n" + generators +
                  "  template:\n    metadata: {name: '" + name +
                  "'}\n    spec:\n      project: default\n      source: {repoURL: '" + repo_.dir() +
                  "', targetRevision: v1, path: '" + path +
                  "'}\n      destination: {server: https://10.0.0.4:6443, namespace: '" + ns +
                  "'}\n");
    return file;
  }

  std::string Git(const std::string& body) {
    return "    - git:\n        repoURL: '" + repo_.dir() + "'\n        revision: v1\n" + body;
  }

  TempDir dir_;
  TempDir repo_dir_;
  GitRepo repo_{repo_dir_.path()};
};

TEST_F(GitGeneratorsCli, DirectoriesWithAnExcludeAtTheNamedRevision) {
  const auto g = GenerateJson(AppSet(Git("        directories:\n          - path: 'apps/*'\n"
                                         "          - {path: apps/legacy, exclude: true}\n"),
                                     "{{path.basename}}", "{{path}}", "{{path[0]}}"));
  ASSERT_EQ(g.code, 0) << g.err;
  EXPECT_EQ(g.items, engine::Json::parse(R"({
    "api": {"path": "apps/api", "namespace": "apps"},
    "web-ui": {"path": "apps/web-ui", "namespace": "apps"}})"));
}

TEST_F(GitGeneratorsCli, DirectoriesGoTemplate) {
  const auto g = GenerateJson(AppSet(Git("        directories: [{path: 'apps/*'}, {path: "
                                         "apps/legacy, exclude: true}]\n"),
                                     "{{.path.basenameNormalized}}", "{{.path.path}}",
                                     "{{index .path.segments 0}}", true));
  ASSERT_EQ(g.code, 0) << g.err;
  EXPECT_EQ(g.items, engine::Json::parse(R"({
    "api": {"path": "apps/api", "namespace": "apps"},
    "web-ui": {"path": "apps/web-ui", "namespace": "apps"}})"));
}

TEST_F(GitGeneratorsCli, FilesWithNestedKeysAndLists) {
  const auto g =
      GenerateJson(AppSet(Git("        files: [{path: 'clusters/*/config.*'}]\n"),
                          "{{cluster.name}}-{{apps.0.name}}", "{{path}}", "r{{apps.0.replicas}}"));
  ASSERT_EQ(g.code, 0) << g.err;
  EXPECT_EQ(g.items, engine::Json::parse(R"({
    "eu-api": {"path": "clusters/eu", "namespace": "r2"},
    "us-web": {"path": "clusters/us", "namespace": "r3"}})"));
}

TEST_F(GitGeneratorsCli, FileHoldingAListGivesOneAppPerElementGoTemplate) {
  const auto g = GenerateJson(AppSet(Git("        files: [{path: 'teams/*.yaml'}]\n"), "{{.team}}",
                                     "{{.path.path}}", "{{.owner.name}}", true));
  ASSERT_EQ(g.code, 0) << g.err;
  EXPECT_EQ(g.items, engine::Json::parse(R"({
    "alpha": {"path": "teams", "namespace": "ann"},
    "beta": {"path": "teams", "namespace": "bob"}})"));
}

TEST_F(GitGeneratorsCli, AnUnknownRevisionIsReportedOnTheGenerator) {
  std::string set = AppSet(Git("        directories: [{path: 'apps/*'}]\n"), "{{path.basename}}",
                           "{{path}}", "x");
  WriteFile(set, [&] {
    std::ifstream in(set);
    std::stringstream b;
    b << in.rdbuf();
    std::string s = b.str();
    s.replace(s.find("revision: v1"), 12, "revision: v9");
    return s;
  }());
  const auto g = GenerateJson(set);
  EXPECT_EQ(g.code, 1);
  EXPECT_NE(g.err.find("spec.generators[0]: git generator: " + repo_.dir()), std::string::npos)
      << g.err;
  EXPECT_NE(g.err.find("v9"), std::string::npos) << g.err;
}

// Issue 27: a git generator in a matrix's second child with its repoURL, revision and file path
// templated from the first child's parameters (as Argo CD renders them) reads each rendered
// repository at each rendered revision: here one repository at two tags, the second of which
// adds a cluster.
TEST_F(GitGeneratorsCli, ATemplatedRepoUrlRevisionAndPathReadEachRenderedRepository) {
  repo_.Write("clusters/ap/config.yaml",
              "cluster:\n  name: ap\n  address: https://10.0.0.5:6443\napps: [{name: db}]\n");
  repo_.Commit("three");
  repo_.Git("tag v3");
  const auto g = GenerateJson(
      AppSet("    - matrix:\n        generators:\n"
             "          - list:\n              elements:\n"
             "                - {repo: '" +
                 repo_.dir() +
                 "', tag: v1, dir: clusters, stage: old}\n"
                 "                - {repo: 'file://" +
                 repo_.dir() +
                 "', tag: v3, dir: clusters, stage: new}\n"
                 "          - git:\n              repoURL: '{{repo}}'\n              revision: "
                 "'{{tag}}'\n              files: [{path: '{{dir}}/*/config.*'}]\n",
             "{{stage}}-{{cluster.name}}", "{{path}}", "{{tag}}"));
  ASSERT_EQ(g.code, 0) << g.err;
  EXPECT_EQ(g.items, engine::Json::parse(R"({
    "old-eu": {"path": "clusters/eu", "namespace": "v1"},
    "old-us": {"path": "clusters/us", "namespace": "v1"},
    "new-ap": {"path": "clusters/ap", "namespace": "v3"},
    "new-eu": {"path": "clusters/eu", "namespace": "v3"},
    "new-us": {"path": "clusters/us", "namespace": "v3"}})"));
}

TEST_F(GitGeneratorsCli, ARepoUrlTemplateNothingResolvesNamesTheSetAndTheField) {
  const auto g = GenerateJson(
      AppSet("    - git:\n        repoURL: '{{repo}}'\n        directories: [{path: 'apps/*'}]\n",
             "{{path.basename}}", "{{path}}", "x"));
  EXPECT_EQ(g.code, 1);
  EXPECT_NE(g.err.find("spec.generators[0].git.repoURL: applicationset \"web\": the git "
                       "generator's repoURL \"{{repo}}\" is a template no parameter resolves"),
            std::string::npos)
      << g.err;
}

}  // namespace
}  // namespace fleetwave::cli
