// `fleetwave generate` on a remote repository (issue 27): the git generator reads it through a
// mirror in the user's cache ($XDG_CACHE_HOME/fleetwave/git) with the --config file's
// repositories: credentials, against a real HTTPS server on loopback (git_servers.h).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <sstream>
#include <string>

#include "engine/yaml_json.h"
#include "tests/sources/git_servers.h"
#include "tests/test_paths.h"
#include "tools/fleetwave/commands.h"

namespace fleetwave::cli {
namespace {

using sources::testing::WriteFile;

TEST(RemoteRepositoryCli, GenerateReadsAGitGeneratorsRemoteThroughTheCache) {
  sources::testing::TempDir tmp;
  const std::string root = tmp.path();
  sources::testing::fs::create_directories(root + "/server");
  sources::testing::HttpsGitServer server(root + "/server", "deploy", "cli-pass-1618");
  sources::testing::ServedRepo repo(root + "/server");
  repo.work().Write("apps/api/cm.yaml", "kind: ConfigMap\n");
  repo.work().Write("apps/web/cm.yaml", "kind: ConfigMap\n");
  repo.CommitAndPush("apps");
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;

  const std::string url = server.Url("repo.git");
  WriteFile(root + "/config/git-password", "cli-pass-1618\n");
  WriteFile(root + "/config/fleetwave.yaml",
            "kubeconfig: " + ::fleetwave::test_paths::TestdataDir() +
                "/kubeconfig/kubectl-built.yaml\n"
                "repositories:\n"
                "  - url: " +
                url + "\n    username: deploy\n    passwordFile: git-password\n    caFile: " +
                server.CaFile() + "\n");
  WriteFile(root + "/appset.yaml",
            "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: web}\n"
            "spec:\n  generators:\n    - git:\n        repoURL: '" +
                url +
                "'\n        revision: main\n        directories: [{path: 'apps/*'}]\n"
                "  template:\n    metadata: {name: '{{path.basename}}'}\n    spec:\n"
                "      project: default\n      source: {repoURL: '" +
                url +
                "', targetRevision: main, path: '{{path}}'}\n"
                "      destination: {server: https://lab.example.test, namespace: web}\n");
  ::setenv("XDG_CACHE_HOME", (root + "/cache").c_str(), 1);

  std::ostringstream out, err;
  const int code = RunGenerate(
      {"-f", root + "/appset.yaml", "--config", root + "/config/fleetwave.yaml", "-o", "json"}, out,
      err);
  ::unsetenv("XDG_CACHE_HOME");
  ASSERT_EQ(code, 0) << err.str();
  const engine::Json list = engine::Json::parse(out.str());
  std::vector<std::string> names;
  for (const auto& app : list["items"]) names.push_back(app["metadata"]["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"api", "web"}));
  EXPECT_TRUE(sources::testing::fs::exists(root + "/cache/fleetwave/git"));
  EXPECT_EQ((out.str() + err.str()).find("cli-pass-1618"), std::string::npos);

  // Without the credentials the error names the repository and the reason.
  std::ostringstream out2, err2;
  ::setenv("XDG_CACHE_HOME", (root + "/cache").c_str(), 1);
  EXPECT_EQ(RunGenerate({"-f", root + "/appset.yaml"}, out2, err2), 1);
  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_NE(err2.str().find(url), std::string::npos) << err2.str();
  EXPECT_NE(err2.str().find("not trusted"), std::string::npos) << err2.str();
}

// A git files generator on the remote reads each team's file; the matrix's second child, a
// directories generator whose repoURL is templated from those files, reads the repository each
// team names (another one on the same server for one of them), through the same credentials.
TEST(RemoteRepositoryCli, GenerateReadsAFilesGeneratorAndTheRepositoriesItsFilesName) {
  sources::testing::TempDir tmp;
  const std::string root = tmp.path();
  sources::testing::fs::create_directories(root + "/server");
  sources::testing::HttpsGitServer server(root + "/server", "deploy", "cli-pass-2718");
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;
  sources::testing::ServedRepo repo(root + "/server");
  repo.work().Write("apps/api/cm.yaml", "kind: ConfigMap\n");
  repo.work().Write("apps/web/cm.yaml", "kind: ConfigMap\n");
  repo.work().Write("teams/alpha.yaml", "{team: alpha, repo: '" + server.Url("repo.git") + "'}\n");
  repo.work().Write("teams/beta.yaml", "{team: beta, repo: '" + server.Url("other.git") + "'}\n");
  repo.CommitAndPush("teams");
  // other.git: the same history plus one more app.
  repo.work().Write("apps/db/cm.yaml", "kind: ConfigMap\n");
  repo.work().Commit("db");
  const std::string other = root + "/server/repos/other.git";
  repo.work().Git("init -q --bare -b main '" + other + "'");
  repo.work().Git("push -q '" + other + "' HEAD:refs/heads/main");

  WriteFile(root + "/config/git-password", "cli-pass-2718\n");
  WriteFile(root + "/config/fleetwave.yaml",
            "kubeconfig: " + ::fleetwave::test_paths::TestdataDir() +
                "/kubeconfig/kubectl-built.yaml\n"
                "repositories:\n"
                "  - url: " +
                server.Url("") + "\n    username: deploy\n    passwordFile: git-password\n" +
                "    caFile: " + server.CaFile() + "\n");
  WriteFile(root + "/appset.yaml",
            "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: web}\n"
            "spec:\n  goTemplate: true\n  generators:\n    - matrix:\n        generators:\n"
            "          - git: {repoURL: '" +
                server.Url("repo.git") +
                "', revision: main, files: [{path: 'teams/*.yaml'}], pathParamPrefix: config}\n"
                "          - git: {repoURL: '{{.repo}}', revision: main, directories: [{path: "
                "'apps/*'}]}\n"
                "  template:\n    metadata: {name: '{{.team}}-{{.path.basename}}'}\n    spec:\n"
                "      project: default\n      source: {repoURL: '{{.repo}}', "
                "targetRevision: main, path: '{{.path.path}}'}\n"
                "      destination: {server: https://lab.example.test, namespace: web}\n");
  ::setenv("XDG_CACHE_HOME", (root + "/cache").c_str(), 1);
  std::ostringstream out, err;
  const int code = RunGenerate(
      {"-f", root + "/appset.yaml", "--config", root + "/config/fleetwave.yaml", "-o", "json"}, out,
      err);
  ::unsetenv("XDG_CACHE_HOME");
  ASSERT_EQ(code, 0) << err.str();
  const engine::Json list = engine::Json::parse(out.str());
  std::vector<std::string> names;
  for (const auto& app : list["items"]) {
    names.push_back(app["metadata"]["name"]);
    const std::string want = app["metadata"]["name"].get<std::string>().rfind("alpha", 0) == 0
                                 ? server.Url("repo.git")
                                 : server.Url("other.git");
    EXPECT_EQ(app["spec"]["source"]["repoURL"], want) << app.dump();
  }
  EXPECT_EQ(names, (std::vector<std::string>{"alpha-api", "alpha-web", "beta-api", "beta-db",
                                             "beta-web"}));
  EXPECT_EQ((out.str() + err.str()).find("cli-pass-2718"), std::string::npos);
}

}  // namespace
}  // namespace fleetwave::cli
