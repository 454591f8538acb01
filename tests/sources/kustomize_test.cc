// Kustomize sources: a base and an overlay in a repository made by the test, rendered through
// `kubectl kustomize` exactly as kubectl prints it for a checkout; Helm charts refused; build
// errors, a missing kubectl and the deadline reported with the path.
#include "sources/kustomize.h"

#include <gtest/gtest.h>

#include "engine/yaml_json.h"
#include "sources/git_source.h"
#include "tests/sources/git_repo.h"

namespace fleetwave::sources {
namespace {

using testing::GitRepo;
using testing::TempDir;

const char* kBase = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.25}]
)";

class KustomizeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_.Write("base/deployment.yaml", kBase);
    repo_.Write("base/kustomization.yaml", "resources: [deployment.yaml]\n");
    repo_.Write("overlays/prod/kustomization.yaml",
                "resources: [../../base]\nnamePrefix: prod-\nlabels:\n  - pairs: {env: prod}\n"
                "patches:\n  - path: replicas.yaml\n");
    repo_.Write("overlays/prod/replicas.yaml",
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: "
                "3}\n");
    repo_.Write("overlays/broken/kustomization.yaml", "resources: [../../nowhere]\n");
    repo_.Write("chart/Chart.yaml", "apiVersion: v2\nname: web\nversion: 0.1.0\n");
    repo_.Write("plain/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n");
    sha_ = repo_.Commit("one");
    resolved_ = source_.Resolve(repo_.dir(), "main");
    ASSERT_TRUE(resolved_.ok());
  }

  // What kubectl prints for the same directory of a checkout, as JSON objects.
  std::vector<engine::Json> Expected(const std::string& path) {
    const std::string text = testing::Run("kubectl kustomize '" + repo_.dir() + "/" + path + "'");
    std::vector<engine::Json> out;
    for (const auto& d : engine::LoadYamlDocuments(text, "kubectl").documents)
      out.push_back(engine::YamlToJson(d));
    return out;
  }

  TempDir dir_;
  GitRepo repo_{dir_.path()};
  std::string sha_;
  GitSource source_;
  Resolution resolved_;
};

TEST_F(KustomizeTest, KindsOfPaths) {
  EXPECT_EQ(KindOf(*resolved_.snapshot, "overlays/prod"), PathKind::kKustomization);
  EXPECT_EQ(KindOf(*resolved_.snapshot, "./base/"), PathKind::kKustomization);
  EXPECT_EQ(KindOf(*resolved_.snapshot, "chart"), PathKind::kHelmChart);
  EXPECT_EQ(KindOf(*resolved_.snapshot, "plain"), PathKind::kManifests);
}

TEST_F(KustomizeTest, OverlayRendersExactlyAsKubectlPrintsIt) {
  ReadResult r = ReadPath(source_, *resolved_.snapshot, "overlays/prod", {"kubectl"});
  ASSERT_TRUE(r.ok()) << r.errors[0].ToString();
  std::vector<engine::Json> got;
  for (const auto& m : r.manifests) got.push_back(m.object);
  const auto want = Expected("overlays/prod");
  ASSERT_EQ(want.size(), 1u);
  EXPECT_EQ(engine::Json(got), engine::Json(want));
  EXPECT_EQ(got[0]["metadata"]["name"], "prod-web");
  EXPECT_EQ(got[0]["spec"]["replicas"], 3);
  EXPECT_EQ(r.manifests[0].file, "overlays/prod/kustomization.yaml");
}

TEST_F(KustomizeTest, PlainDirectoriesAreReadAsManifests) {
  ReadResult r = ReadPath(source_, *resolved_.snapshot, "plain", {"kubectl"});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.manifests.size(), 1u);
  EXPECT_EQ(r.manifests[0].file, "plain/cm.yaml");
}

TEST_F(KustomizeTest, HelmChartsAreRefused) {
  ReadResult r = ReadPath(source_, *resolved_.snapshot, "chart", {"kubectl"});
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].kind, engine::ErrorKind::kPermanent);
  EXPECT_EQ(r.errors[0].ToString(), repo_.dir() + "@" + sha_ +
                                        ":chart: Helm sources are not supported by fleetwave yet "
                                        "(use a directory of manifests or a kustomization)");
}

TEST_F(KustomizeTest, BuildErrorsNameThePath) {
  ReadResult r = ReadPath(source_, *resolved_.snapshot, "overlays/broken", {"kubectl"});
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].kind, engine::ErrorKind::kInvalidInput);
  const std::string prefix =
      repo_.dir() + "@" + sha_ + ":overlays/broken: kubectl kustomize failed (exit 1): ";
  EXPECT_EQ(r.errors[0].ToString().substr(0, prefix.size()), prefix) << r.errors[0].ToString();
  EXPECT_EQ(r.errors[0].ToString().find("fleetwave-kustomize-"), std::string::npos)
      << "the scratch directory is not shown: " << r.errors[0].ToString();
}

TEST_F(KustomizeTest, MissingKubectlIsReported) {
  ReadResult r = ReadPath(source_, *resolved_.snapshot, "base", {"/nonexistent/kubectl"});
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].ToString(), repo_.dir() + "@" + sha_ +
                                        ":base: kubectl kustomize failed: /nonexistent/kubectl: No "
                                        "such file or directory");
}

TEST_F(KustomizeTest, AKubectlThatHangsIsKilledAtTheDeadline) {
  const std::string fake = dir_.path() + "-hang.sh";
  testing::WriteFile(fake, "#!/bin/sh\nexec sleep 30\n");
  testing::Run("chmod +x '" + fake + "'");
  const auto start = std::chrono::steady_clock::now();
  ReadResult r =
      ReadPath(source_, *resolved_.snapshot, "base", {fake, std::chrono::milliseconds(200)});
  const auto took = std::chrono::steady_clock::now() - start;
  std::filesystem::remove(fake);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].ToString(),
            repo_.dir() + "@" + sha_ + ":base: kubectl kustomize did not finish within 200ms");
  EXPECT_LT(took, std::chrono::seconds(20)) << "the child was killed, not waited for";
}

}  // namespace
}  // namespace fleetwave::sources
