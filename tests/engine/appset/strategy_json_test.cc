// The strategy as the API shows it: Argo's shape, values as written (StrategyJson).
#include "engine/rollingsync/strategy_json.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fleetwave::engine {
namespace {

Strategy DecodeStrategy(const std::string& strategy_yaml) {
  const std::string doc =
      "apiVersion: argoproj.io/v1alpha1\n"
      "kind: ApplicationSet\n"
      "metadata: {name: web, namespace: argocd}\n"
      "spec:\n"
      "  generators: [{list: {elements: [{cluster: a}]}}]\n"
      "  template:\n"
      "    metadata: {name: '{{cluster}}-web'}\n"
      "    spec:\n"
      "      project: default\n"
      "      source: {repoURL: https://git.example.com/r.git, path: web, targetRevision: HEAD}\n"
      "      destination: {server: https://k.example.com, namespace: web}\n" +
      strategy_yaml;
  auto docs = LoadYamlDocuments(doc, "set.yaml");
  EXPECT_TRUE(docs.issues.empty());
  EXPECT_EQ(docs.documents.size(), 1u);
  DecodedApplicationSet decoded = DecodeApplicationSet(docs.documents.at(0), "set.yaml");
  EXPECT_TRUE(decoded.appset.has_value());
  return decoded.appset ? decoded.appset->strategy : Strategy{};
}

TEST(StrategyJsonTest, ShowsTheStrategyAsWritten) {
  struct Case {
    std::string name;
    std::string yaml;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"NoStrategyIsAllAtOnce", "", R"({"type": "AllAtOnce"})"},
      {"AllAtOnceWithDeletionOrder", "  strategy: {type: AllAtOnce, deletionOrder: Reverse}\n",
       R"({"type": "AllAtOnce", "deletionOrder": "Reverse"})"},
      {"RollingSyncWithAGateAndAPercent",
       "  strategy:\n"
       "    type: RollingSync\n"
       "    rollingSync:\n"
       "      steps:\n"
       "        - matchExpressions: [{key: env, operator: In, values: [dev]}]\n"
       "        - matchExpressions: [{key: env, operator: In, values: [qa, staging]}]\n"
       "          maxUpdate: 0\n"
       "        - matchExpressions: [{key: env, operator: NotIn, values: [dev, qa]}]\n"
       "          maxUpdate: 10%\n"
       "          progressDeadlineSeconds: 600\n",
       R"({"type": "RollingSync", "rollingSync": {"steps": [
            {"matchExpressions": [{"key": "env", "operator": "In", "values": ["dev"]}]},
            {"matchExpressions": [{"key": "env", "operator": "In", "values": ["qa", "staging"]}],
             "maxUpdate": 0},
            {"matchExpressions": [{"key": "env", "operator": "NotIn", "values": ["dev", "qa"]}],
             "maxUpdate": "10%", "progressDeadlineSeconds": 600}]}})"},
      {"InvalidMaxUpdateIsShownAsWritten",
       "  strategy:\n"
       "    type: RollingSync\n"
       "    rollingSync:\n"
       "      steps:\n"
       "        - matchExpressions: [{key: env, operator: In, values: [dev]}]\n"
       "          maxUpdate: abc\n",
       R"({"type": "RollingSync", "rollingSync": {"steps": [
            {"matchExpressions": [{"key": "env", "operator": "In", "values": ["dev"]}],
             "maxUpdate": "abc"}]}})"},
      {"RollingSyncWithoutSteps", "  strategy: {type: RollingSync}\n",
       R"({"type": "RollingSync", "rollingSync": {"steps": []}})"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(StrategyJson(DecodeStrategy(c.yaml)), Json::parse(c.want));
  }
}

}  // namespace
}  // namespace fleetwave::engine
