// `fleetwave render` of a kustomization: a base and an overlay in a git repository the test
// builds, rendered exactly as `kubectl kustomize` prints the same overlay from a checkout,
// plus fleetwave's tracking marks and nothing else.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "engine/yaml_json.h"
#include "tests/sources/git_repo.h"
#include "tools/fleetwave/commands.h"

namespace fleetwave::cli {
namespace {

using engine::Json;
using sources::testing::GitRepo;
using sources::testing::TempDir;
using sources::testing::WriteFile;

TEST(KustomizeRender, OverlayIsWhatKubectlPrintsPlusTheTrackingMarks) {
  TempDir repo_dir, dir;
  GitRepo repo(repo_dir.path());
  repo.Write("base/deployment.yaml",
             "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 1\n"
             "  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: "
             "web}}\n    spec: {containers: [{name: web, image: 'nginx:1.25'}]}\n");
  repo.Write("base/service.yaml",
             "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}], "
             "selector: {app: web}}\n");
  repo.Write("base/kustomization.yaml", "resources: [deployment.yaml, service.yaml]\n");
  repo.Write("overlays/prod/kustomization.yaml",
             "resources: [../../base]\nnamespace: shop\nnamePrefix: prod-\n"
             "labels:\n  - pairs: {env: prod}\n"
             "patches:\n  - patch: |\n      - {op: replace, path: /spec/replicas, value: 3}\n"
             "    target: {kind: Deployment}\n");
  repo.Commit("base and overlay");
  const std::string set = dir.path() + "/appset.yaml";
  WriteFile(set,
            "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: web}\n"
            "spec:\n  generators: [{list: {elements: [{env: prod}]}}]\n  template:\n"
            "    metadata: {name: 'web-{{env}}'}\n    spec:\n      project: default\n"
            "      source: {repoURL: 'file://" +
                repo.dir() +
                "', targetRevision: main, path: 'overlays/{{env}}'}\n"
                "      destination: {server: https://10.0.0.1:6443, namespace: shop}\n");

  std::ostringstream out, err;
  ASSERT_EQ(RunRender({"web-prod", "-f", set, "-o", "json"}, out, err), 0) << err.str();
  const Json rendered = Json::parse(out.str());

  std::vector<Json> want;
  for (const auto& d :
       engine::LoadYamlDocuments(
           sources::testing::Run("kubectl kustomize '" + repo.dir() + "/overlays/prod'"), "k")
           .documents) {
    want.push_back(engine::YamlToJson(d));
  }
  ASSERT_EQ(want.size(), 2u);
  ASSERT_EQ(rendered["items"].size(), want.size());
  std::vector<Json> got;
  for (Json o : rendered["items"]) {
    const std::string kind = o["kind"];
    const std::string group = kind == "Deployment" ? "apps" : "";
    Json& ann = o["metadata"]["annotations"];
    EXPECT_EQ(ann["fleetwave.io/tracking-id"], "web/web-prod:" + group + "/" + kind + ":shop/" +
                                                   o["metadata"]["name"].get<std::string>());
    EXPECT_TRUE(ann.contains("fleetwave.io/applied-hash"));
    EXPECT_TRUE(o["metadata"]["labels"].contains("fleetwave.io/app"));
    ann.erase("fleetwave.io/tracking-id");
    ann.erase("fleetwave.io/applied-hash");
    if (ann.empty()) o["metadata"].erase("annotations");
    o["metadata"]["labels"].erase("fleetwave.io/app");
    got.push_back(o);
  }
  // Same objects; render orders by kind group then source order, kubectl by its own order.
  const auto by_kind = [](const Json& a, const Json& b) {
    return a["kind"].get<std::string>() < b["kind"].get<std::string>();
  };
  std::sort(got.begin(), got.end(), by_kind);
  std::sort(want.begin(), want.end(), by_kind);
  EXPECT_EQ(Json(got).dump(1), Json(want).dump(1));
}

}  // namespace
}  // namespace fleetwave::cli
