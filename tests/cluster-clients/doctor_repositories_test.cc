// `fleetwave doctor --config F` checks every remote repository the ApplicationSets name, against
// a real HTTPS git server on loopback (tests/sources/git_servers.h): one row per repository and
// revision, reachable and authenticated with the repositories: entry, the revision resolved by
// a ref listing; a revision the remote does not have is a problem, and no secret is printed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/cluster-clients/kubesim_process.h"
#include "tests/sources/git_servers.h"
#include "tools/fleetwave/commands.h"

namespace fleetwave::cli {
namespace {

using ::testing::HasSubstr;

std::string AppSet(const std::string& name, const std::string& repo, const std::string& rev) {
  return "apiVersion: argoproj.io/v1alpha1\n"
         "kind: ApplicationSet\n"
         "metadata: {name: " +
         name +
         ", namespace: fleetwave}\n"
         "spec:\n"
         "  generators: [{list: {elements: [{cluster: sim-0}]}}]\n"
         "  template:\n"
         "    metadata: {name: '{{cluster}}-" +
         name +
         "'}\n"
         "    spec:\n"
         "      project: default\n"
         "      source: {repoURL: '" +
         repo + "', targetRevision: " + rev +
         ", path: app}\n"
         "      destination: {name: '{{cluster}}', namespace: default}\n";
}

TEST(DoctorRepositoriesTest, EachRemoteRepositoryIsReachableAuthenticatedAndResolvable) {
  clients::testing::KubesimProcess sim;
  std::string error;
  if (!sim.Start(1, {}, &error)) FAIL() << error;
  sources::testing::TempDir tmp;
  const std::string root = tmp.path();
  sources::testing::fs::create_directories(root + "/server");
  sources::testing::HttpsGitServer server(root + "/server", "deploy", "doctor-pass-3141");
  sources::testing::ServedRepo repo(root + "/server");
  repo.work().Write("app/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n");
  const std::string sha = repo.CommitAndPush("first");
  ASSERT_TRUE(server.Start(&error)) << error;

  const std::string config_dir = root + "/config";
  sources::testing::WriteFile(config_dir + "/git-password", "doctor-pass-3141\n");
  sources::testing::WriteFile(config_dir + "/appsets/good.yaml",
                              AppSet("good", server.Url("repo.git"), "main"));
  sources::testing::WriteFile(config_dir + "/appsets/missing.yaml",
                              AppSet("missing", server.Url("repo.git"), "no-such-branch"));
  sources::testing::WriteFile(config_dir + "/fleetwave.yaml", "kubeconfig: " + sim.kubeconfig() +
                                                                  "\n"
                                                                  "applicationSets: appsets\n"
                                                                  "repositories:\n"
                                                                  "  - url: https://127.0.0.1:" +
                                                                  std::to_string(server.port()) +
                                                                  "/\n"
                                                                  "    username: deploy\n"
                                                                  "    passwordFile: git-password\n"
                                                                  "    caFile: " +
                                                                  server.CaFile() + "\n");

  std::ostringstream out, err;
  const int rc = RunDoctor({"--config", config_dir + "/fleetwave.yaml", "-o", "json"}, out, err);
  EXPECT_EQ(rc, 1) << out.str() << err.str();  // the missing branch
  const auto rows = nlohmann::json::parse(out.str());
  std::map<std::string, nlohmann::json> by;
  for (const auto& r : rows) {
    if (r.contains("repository")) by[r["revision"].get<std::string>()] = r;
  }
  ASSERT_EQ(by.size(), 2u) << out.str();
  EXPECT_EQ(by["main"]["ok"], true) << by["main"].dump();
  EXPECT_EQ(by["main"]["commit"], sha);
  EXPECT_EQ(by["main"]["repository"], server.Url("repo.git"));
  EXPECT_EQ(by["no-such-branch"]["ok"], false);
  EXPECT_EQ(by["no-such-branch"]["problem"],
            "revision no-such-branch is no branch or tag of this repository");
  EXPECT_THAT(out.str() + err.str(), ::testing::Not(HasSubstr("doctor-pass-3141")));

  // The table says the same, and a wrong password names the failure, not the password.
  sources::testing::WriteFile(config_dir + "/git-password", "wrong-pass-2718\n");
  std::ostringstream table, table_err;
  EXPECT_EQ(RunDoctor({"--config", config_dir + "/fleetwave.yaml"}, table, table_err), 1);
  EXPECT_THAT(table.str(), HasSubstr("REPOSITORY"));
  EXPECT_THAT(table.str(), HasSubstr("authentication failed"));
  EXPECT_THAT(table.str() + table_err.str(), ::testing::Not(HasSubstr("wrong-pass-2718")));
}

// A git generator whose repoURL and revision are templated from a matrix's list is checked as
// rendered, one row per rendered repository and revision (issue 27).
TEST(DoctorRepositoriesTest, ATemplatedGitGeneratorRepositoryIsCheckedAsTheListRendersIt) {
  clients::testing::KubesimProcess sim;
  std::string error;
  if (!sim.Start(1, {}, &error)) FAIL() << error;
  sources::testing::TempDir tmp;
  const std::string root = tmp.path();
  sources::testing::fs::create_directories(root + "/server");
  sources::testing::HttpsGitServer server(root + "/server", "deploy", "doctor-pass-1414");
  sources::testing::ServedRepo repo(root + "/server");
  repo.work().Write("apps/a/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n");
  const std::string sha = repo.CommitAndPush("first");
  ASSERT_TRUE(server.Start(&error)) << error;

  const std::string config_dir = root + "/config";
  sources::testing::WriteFile(config_dir + "/git-password", "doctor-pass-1414\n");
  sources::testing::WriteFile(
      config_dir + "/appsets/templated.yaml",
      "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: templated}\n"
      "spec:\n  generators:\n    - matrix:\n        generators:\n"
      "          - list: {elements: [{repo: '" +
          server.Url("repo.git") + "', rev: main}, {repo: '" + server.Url("repo.git") +
          "', rev: gone}]}\n"
          "          - git: {repoURL: '{{repo}}', revision: '{{rev}}', directories: [{path: "
          "'apps/*'}]}\n"
          "  template:\n    metadata: {name: '{{path.basename}}-{{rev}}'}\n    spec:\n"
          "      project: default\n      source: {repoURL: '/local/repo', path: '{{path}}'}\n"
          "      destination: {name: sim-0, namespace: default}\n");
  sources::testing::WriteFile(config_dir + "/fleetwave.yaml",
                              "kubeconfig: " + sim.kubeconfig() +
                                  "\napplicationSets: appsets\nrepositories:\n"
                                  "  - url: " +
                                  server.Url("") +
                                  "\n    username: deploy\n    passwordFile: git-password\n"
                                  "    caFile: " +
                                  server.CaFile() + "\n");
  std::ostringstream out, err;
  EXPECT_EQ(RunDoctor({"--config", config_dir + "/fleetwave.yaml", "-o", "json"}, out, err), 1)
      << out.str() << err.str();  // the revision "gone"
  std::map<std::string, nlohmann::json> by;
  for (const auto& r : nlohmann::json::parse(out.str())) {
    if (r.contains("repository")) by[r["revision"].get<std::string>()] = r;
  }
  ASSERT_EQ(by.size(), 2u) << out.str();
  EXPECT_EQ(by["main"]["repository"], server.Url("repo.git"));
  EXPECT_EQ(by["main"]["ok"], true) << by["main"].dump();
  EXPECT_EQ(by["main"]["commit"], sha);
  EXPECT_EQ(by["gone"]["ok"], false) << by["gone"].dump();
}

}  // namespace
}  // namespace fleetwave::cli
