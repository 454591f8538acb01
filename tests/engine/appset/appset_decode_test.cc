// Decoding ApplicationSets: every strategy field, and every error with its position.
#include <gtest/gtest.h>

#include "engine/appset/appset.h"
#include "engine/yaml_json.h"
#include "tests/engine/appset/decode_testing.h"

namespace fleetwave::engine {
namespace {

// A valid set; tests splice a strategy (or other spec fields) in at `{extra}`.
std::string Set(const std::string& extra) {
  std::string doc =
      "apiVersion: argoproj.io/v1alpha1\n"  // 1
      "kind: ApplicationSet\n"              // 2
      "metadata:\n"                         // 3
      "  name: web\n"                       // 4
      "  namespace: argocd\n"               // 5
      "spec:\n"                             // 6
      "  generators:\n"                     // 7
      "    - list:\n"                       // 8
      "        elements:\n"                 // 9
      "          - cluster: a\n"            // 10
      "  template:\n"                       // 11
      "    metadata:\n"                     // 12
      "      name: '{{cluster}}-web'\n"     // 13
      "    spec:\n"                         // 14
      "      project: default\n"            // 15
      "      source: {repoURL: https://git.example.com/r.git, path: web, targetRevision: "
      "HEAD}\n"                                                               // 16
      "      destination: {server: https://k.example.com, namespace: web}\n"  // 17
      "{extra}";                                                              // 18
  doc.replace(doc.find("{extra}"), 7, extra);
  return doc;
}

DecodedApplicationSet Decode(const std::string& text) { return testing::DecodeSetYaml(text); }
std::vector<std::string> Messages(const Issues& issues) { return testing::IssueMessages(issues); }

TEST(AppSetDecode, StrategyFieldsAreDecodedAsWritten) {
  auto r =
      Decode(Set("  strategy:\n"
                 "    type: RollingSync\n"
                 "    deletionOrder: reverse\n"
                 "    rollingSync:\n"
                 "      steps:\n"
                 "        - matchExpressions:\n"
                 "            - {key: env, operator: In, values: [dev, qa]}\n"
                 "          maxUpdate: 10%\n"
                 "          progressDeadlineSeconds: 600\n"
                 "        - matchExpressions:\n"
                 "            - {key: env, operator: NotIn, values: [dev]}\n"
                 "          maxUpdate: 2\n"
                 "        - {}\n"));
  ASSERT_TRUE(r.issues.empty()) << Messages(r.issues)[0];
  const Strategy& s = r.appset->strategy;
  EXPECT_EQ(s.type, "RollingSync");
  EXPECT_TRUE(s.RollingSyncEnabled());
  EXPECT_TRUE(s.ReverseDeletion()) << "deletionOrder is compared case-insensitively";
  ASSERT_EQ(s.steps.size(), 3u);
  EXPECT_EQ(s.steps[0].match_expressions[0].key, "env");
  EXPECT_EQ(s.steps[0].match_expressions[0].op, "In");
  EXPECT_EQ(s.steps[0].match_expressions[0].values, (std::vector<std::string>{"dev", "qa"}));
  ASSERT_TRUE(s.steps[0].max_update);
  EXPECT_FALSE(s.steps[0].max_update->is_int);
  EXPECT_EQ(s.steps[0].max_update->string_value, "10%");
  EXPECT_EQ(s.steps[0].progress_deadline_seconds, 600);
  EXPECT_EQ(s.steps[0].max_update_pos.line, 25);
  EXPECT_EQ(s.steps[1].match_expressions[0].op, "NotIn");
  ASSERT_TRUE(s.steps[1].max_update);
  EXPECT_TRUE(s.steps[1].max_update->is_int);
  EXPECT_EQ(s.steps[1].max_update->int_value, 2);
  EXPECT_FALSE(s.steps[2].max_update) << "absent maxUpdate means unlimited";
  EXPECT_TRUE(s.steps[2].match_expressions.empty());
}

TEST(AppSetDecode, QuotedNumberMaxUpdateIsAString) {
  auto r =
      Decode(Set("  strategy:\n    type: RollingSync\n    rollingSync:\n      steps:\n"
                 "        - maxUpdate: \"3\"\n"));
  ASSERT_TRUE(r.issues.empty());
  EXPECT_FALSE(r.appset->strategy.steps[0].max_update->is_int);
  EXPECT_FALSE(IsValidMaxUpdate(*r.appset->strategy.steps[0].max_update))
      << "\"3\" is not <digits>%";
}

TEST(AppSetDecode, AbsentStrategyIsAllAtOnce) {
  auto r = Decode(Set(""));
  ASSERT_TRUE(r.issues.empty());
  EXPECT_FALSE(r.appset->strategy.IsRollingSync());
  EXPECT_FALSE(r.appset->strategy.ReverseDeletion());
  EXPECT_EQ(r.appset->name, "web");
  EXPECT_EQ(r.appset->namespace_, "argocd");
}

TEST(AppSetDecode, ReverseDeletionNeedsEnabledRollingSync) {
  auto r = Decode(Set("  strategy:\n    type: RollingSync\n    deletionOrder: Reverse\n"));
  ASSERT_TRUE(r.issues.empty());
  EXPECT_FALSE(r.appset->strategy.RollingSyncEnabled()) << "no steps";
  EXPECT_FALSE(r.appset->strategy.ReverseDeletion());
}

TEST(AppSetDecode, TemplateAndStatusPassThrough) {
  auto r =
      Decode(Set("  goTemplate: false\n"
                 "  syncPolicy: {preserveResourcesOnDeletion: true}\n"
                 "  ignoreApplicationDifferences:\n"
                 "    - jsonPointers: [/spec/source/targetRevision]\n"
                 "status:\n"
                 "  applicationStatus: [{application: a-web, status: Healthy}]\n"));
  ASSERT_TRUE(r.issues.empty()) << Messages(r.issues)[0];
  EXPECT_TRUE(r.appset->preserve_resources_on_deletion);
  EXPECT_EQ(r.appset->ignore_application_differences,
            (std::vector<std::string>{"/spec/source/targetRevision"}));
  EXPECT_EQ(r.appset->status["applicationStatus"][0]["application"], "a-web");
  EXPECT_EQ(r.appset->template_["spec"]["project"], "default");
}

struct ErrorCase {
  const char* name;
  std::string extra;
  std::vector<std::string> want;
};

class AppSetDecodeErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(AppSetDecodeErrors, ReportsEveryProblemWithItsPosition) {
  auto r = Decode(Set(GetParam().extra));
  EXPECT_EQ(Messages(r.issues), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Rules, AppSetDecodeErrors,
    ::testing::Values(
        ErrorCase{
            "UnsupportedStrategyType",
            "  strategy:\n    type: RollingUpdate\n",
            {"set.yaml:19:11: spec.strategy.type: unsupported value \"RollingUpdate\" (supported: "
             "AllAtOnce, RollingSync)"}},
        ErrorCase{"UnknownFieldInsideStrategy",
                  "  strategy:\n    type: RollingSync\n    rollingUpdate: {}\n",
                  {"set.yaml:20:5: spec.strategy.rollingUpdate: unknown field \"rollingUpdate\""}},
        ErrorCase{"UnknownFieldInsideStep",
                  "  strategy:\n    type: RollingSync\n    rollingSync:\n      steps:\n        - "
                  "maxUpdates: 1\n",
                  {"set.yaml:22:11: spec.strategy.rollingSync.steps[0].maxUpdates: unknown field "
                   "\"maxUpdates\""}},
        ErrorCase{"UnsupportedDeletionOrder",
                  "  strategy:\n    type: RollingSync\n    deletionOrder: Backwards\n",
                  {"set.yaml:20:20: spec.strategy.deletionOrder: unsupported value \"Backwards\" "
                   "(supported: "
                   "AllAtOnce, Reverse)"}},
        ErrorCase{"StepsMustBeAList",
                  "  strategy:\n    type: RollingSync\n    rollingSync:\n      steps: {}\n",
                  {"set.yaml:21:14: spec.strategy.rollingSync.steps: wrong type: expected array, "
                   "got object"}},
        ErrorCase{"MaxUpdateMustBeScalar",
                  "  strategy:\n    type: RollingSync\n    rollingSync:\n      steps:\n        - "
                  "maxUpdate: [1]\n",
                  {"set.yaml:22:22: spec.strategy.rollingSync.steps[0].maxUpdate: wrong type: "
                   "expected integer "
                   "or string, got array"}},
        ErrorCase{"StepDeadlineMustBePositive",
                  "  strategy:\n    type: RollingSync\n    rollingSync:\n      steps:\n"
                  "        - progressDeadlineSeconds: 0\n",
                  {"set.yaml:22:36: spec.strategy.rollingSync.steps[0].progressDeadlineSeconds: "
                   "must be greater "
                   "than 0"}},
        ErrorCase{"MatchExpressionNeedsKeyAndOperator",
                  "  strategy:\n    type: RollingSync\n    rollingSync:\n      steps:\n"
                  "        - matchExpressions:\n            - values: [a]\n",
                  {"set.yaml:23:15: spec.strategy.rollingSync.steps[0].matchExpressions[0].key: "
                   "required field is "
                   "missing",
                   "set.yaml:23:15: "
                   "spec.strategy.rollingSync.steps[0].matchExpressions[0].operator: required "
                   "field is missing"}},
        ErrorCase{"UnsupportedGeneratorAndSpecField",
                  "  templatePatch: x\n",
                  {"set.yaml:18:3: spec.templatePatch: field is not supported by fleetwave"}},
        ErrorCase{
            "GoTemplateOptionMustBeKnownAndFasttemplateParamsAreNotGo",
            "  goTemplate: true\n  goTemplateOptions: [missingkey=zero]\n",
            {"set.yaml:13:13: spec.template.metadata.name: unsupported template function cluster",
             "set.yaml:19:23: spec.goTemplateOptions[0]: unsupported value \"missingkey=zero\" "
             "(supported: "
             "missingkey=error, missingkey=default)"}},
        ErrorCase{"WrongTypeGoTemplate",
                  "  goTemplate: yes please\n",
                  {"set.yaml:18:15: spec.goTemplate: wrong type: expected boolean, got string"}},
        ErrorCase{"AllProblemsAreCollected",
                  "  strategy:\n    type: Canary\n    deletionOrder: 3\n    extra: true\n",
                  {"set.yaml:19:11: spec.strategy.type: unsupported value \"Canary\" (supported: "
                   "AllAtOnce, "
                   "RollingSync)",
                   // Strict types (issue 30): a number is not the string "3".
                   "set.yaml:20:20: spec.strategy.deletionOrder: wrong type: expected string, "
                   "got integer",
                   "set.yaml:21:5: spec.strategy.extra: unknown field \"extra\""}}),
    [](const auto& info) { return info.param.name; });

TEST(AppSetDecode, UnsupportedGoTemplateFunctionIsReportedAtItsString) {
  std::string text = Set("  goTemplate: true\n");
  text.replace(text.find("'{{cluster}}-web'"), 17, "'{{ .cluster | sha256sum }}'");
  auto r = Decode(text);
  EXPECT_EQ(
      Messages(r.issues),
      (std::vector<std::string>{
          "set.yaml:13:13: spec.template.metadata.name: unsupported template function sha256sum"}));
}

TEST(AppSetDecode, DefaultedEmptyGeneratorTemplateAsKubectlPrintsItLoads) {
  std::string text = Set("");
  text.replace(text.find("        elements:\n"), 0,
               "        template: {metadata: {}, spec: {destination: {}, project: \"\"}}\n");
  auto r = Decode(text);
  EXPECT_TRUE(r.issues.empty()) << Messages(r.issues)[0];
}

TEST(AppSetDecode, RealGeneratorTemplateOverrideIsKept) {
  std::string text = Set("");
  text.replace(text.find("        elements:\n"), 0, "        template: {metadata: {name: x}}\n");
  auto r = Decode(text);
  EXPECT_TRUE(r.issues.empty()) << Messages(r.issues)[0];
  EXPECT_EQ(r.appset->generators.at(0).template_override["metadata"]["name"], "x")
      << "merged over the set's template when generating (tests/engine/generators/)";
}

TEST(AppSetDecode, MissingTemplateFieldsAreRequired) {
  auto docs = LoadYamlDocuments(
      "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: x}\n"
      "spec:\n  template:\n    metadata: {}\n    spec: {project: default}\n",
      "t.yaml");
  auto r = DecodeApplicationSet(docs.documents[0], "t.yaml");
  EXPECT_EQ(Messages(r.issues),
            (std::vector<std::string>{
                "t.yaml:6:15: spec.template.metadata.name: required field is missing",
                "t.yaml:7:11: spec.template.spec.destination: required field is missing",
                "t.yaml:7:11: spec.template.spec.source: one of source or sources is required"}));
}

TEST(AppSetDecode, WrongApiVersionAndKind) {
  auto docs = LoadYamlDocuments("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", "c.yaml");
  auto r = DecodeApplicationSet(docs.documents[0], "c.yaml");
  EXPECT_EQ(
      Messages(r.issues),
      (std::vector<std::string>{
          "c.yaml:1:1: spec: required field is missing",
          "c.yaml:1:13: apiVersion: unsupported value \"v1\" (supported: argoproj.io/v1alpha1)",
          "c.yaml:2:7: kind: unsupported value \"ConfigMap\" (supported: ApplicationSet)"}));
}

struct RolloutConfigCase {
  const char* name;
  std::string strategy;
  std::vector<std::string> want;
};

class RolloutConfigValidation : public ::testing::TestWithParam<RolloutConfigCase> {};

TEST_P(RolloutConfigValidation, ReportsProblemsTheRolloutWouldFlag) {
  auto r = Decode(Set(GetParam().strategy));
  ASSERT_TRUE(r.issues.empty()) << Messages(r.issues)[0];
  EXPECT_EQ(Messages(ValidateRolloutConfig(*r.appset)), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Rules, RolloutConfigValidation,
    ::testing::Values(
        RolloutConfigCase{"ValidConfigHasNoIssues",
                          "  strategy:\n    type: RollingSync\n    rollingSync:\n      steps:\n"
                          "        - matchExpressions: [{key: env, operator: In, values: [dev]}]\n"
                          "          maxUpdate: 0%\n",
                          {}},
        RolloutConfigCase{
            "NoStepsDefined",
            "  strategy:\n    type: RollingSync\n",
            {"set.yaml: spec.strategy.rollingSync.steps: No steps defined for rollout"}},
        RolloutConfigCase{
            "InvalidOperator",
            "  strategy:\n    type: RollingSync\n    rollingSync:\n      steps:\n"
            "        - matchExpressions: [{key: env, operator: Exists}]\n",
            {"set.yaml:22:51: spec.strategy.rollingSync.steps[0].matchExpressions[0].operator: "
             "unsupported value \"Exists\" (supported: In, NotIn)"}},
        RolloutConfigCase{
            "InvalidMaxUpdateString",
            "  strategy:\n    type: RollingSync\n    rollingSync:\n      steps:\n"
            "        - maxUpdate: abc\n",
            {"set.yaml:22:22: spec.strategy.rollingSync.steps[0].maxUpdate: invalid value \"abc\": "
             "must be an integer >= 0 or a percentage such as \"10%\""}},
        RolloutConfigCase{
            "NegativeMaxUpdate",
            "  strategy:\n    type: RollingSync\n    rollingSync:\n      steps:\n"
            "        - maxUpdate: -1\n        - maxUpdate: -10%\n",
            {"set.yaml:22:22: spec.strategy.rollingSync.steps[0].maxUpdate: invalid value \"-1\": "
             "must be an integer >= 0 or a percentage such as \"10%\"",
             "set.yaml:23:22: spec.strategy.rollingSync.steps[1].maxUpdate: invalid value "
             "\"-10%\": "
             "must be an integer >= 0 or a percentage such as \"10%\""}},
        RolloutConfigCase{"AllAtOnceIsNeverChecked",
                          "  strategy:\n    type: AllAtOnce\n    rollingSync:\n      steps:\n"
                          "        - maxUpdate: abc\n",
                          {}}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace fleetwave::engine

namespace fleetwave::engine {
namespace {

// maxUpdate strings are checked by hand: a regex over a long user-written value recursed once
// per character and could overflow the stack.
TEST(MaxUpdateValue, PercentStringsOfAnyLength) {
  auto str = [](std::string s) {
    IntOrString v;
    v.is_int = false;
    v.string_value = std::move(s);
    return v;
  };
  EXPECT_TRUE(IsValidMaxUpdate(str("10%")));
  EXPECT_TRUE(IsValidMaxUpdate(str("0%")));
  EXPECT_FALSE(IsValidMaxUpdate(str("%")));
  EXPECT_FALSE(IsValidMaxUpdate(str("10")));
  EXPECT_FALSE(IsValidMaxUpdate(str("1x%")));
  EXPECT_FALSE(IsValidMaxUpdate(str("")));
  EXPECT_TRUE(IsValidMaxUpdate(str(std::string(1000000, '7') + "%")));
  EXPECT_FALSE(IsValidMaxUpdate(str(std::string(1000000, '7') + "x%")));
}

}  // namespace
}  // namespace fleetwave::engine
