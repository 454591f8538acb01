// The validation chain shared by `fleetwave validate` and the daemon: which document is the
// configuration, how kubeconfig clusters meet its labels, and the ApplicationSet checks.
#include "engine/validation.h"

#include <gtest/gtest.h>

#include "engine/yaml_json.h"

namespace fleetwave::engine {
namespace {

const char* kAppSet = R"(apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: a}
spec:
  generators: [{list: {elements: [{env: dev}]}}]
  template:
    metadata: {name: 'a-{{env}}'}
    spec: {source: {repoURL: r}, destination: {server: 'https://1.2.3.4'}}
)";

const char* kConfig = R"(kubeconfig: kc.yaml
clusters:
  - name: dev
    labels: {env: dev}
)";

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  return text.replace(text.find(from), from.size(), to);
}

std::vector<YAML::Node> Docs(const std::string& text) {
  LoadedDocuments docs = LoadYamlDocuments(text, "in.yaml");
  EXPECT_TRUE(docs.issues.empty());
  return docs.documents;
}

TEST(Validation, FindsTheConfigWhereverItIs) {
  struct Case {
    const char* name;
    std::string text;
    std::optional<std::size_t> want;
  };
  const Case cases[] = {
      {"config only", kConfig, 0},
      {"config after an ApplicationSet", std::string(kAppSet) + "---\n" + kConfig, 1},
      {"ApplicationSet only", kAppSet, std::nullopt},
      {"a list is not a config", "- a\n- b\n", std::nullopt},
      {"apiVersion alone makes a Kubernetes object", "apiVersion: v1\n", std::nullopt},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(FindFleetConfig(Docs(c.text)), c.want);
  }
}

TEST(Validation, ConfigAfterAnApplicationSetIsDecodedFromItsOwnDocument) {
  ValidationInputs in;
  in.kubeconfig.clusters = {{"dev", "https://1.2.3.4", {}}, {"qa", "https://5.6.7.8", {}}};
  ValidatedDocuments v =
      ValidateDocuments(Docs(std::string(kAppSet) + "---\n" + kConfig), "in.yaml", in);
  ASSERT_TRUE(v.issues.empty()) << FormatIssue(v.issues[0]);
  ASSERT_TRUE(v.config.has_value());
  EXPECT_EQ(v.config->kubeconfig, (std::vector<std::string>{"kc.yaml"}));
  ASSERT_EQ(v.clusters.size(), 2u);
  EXPECT_EQ(v.clusters[0].labels.at("env"), "dev");
  EXPECT_TRUE(v.clusters[1].labels.empty());
  ASSERT_EQ(v.appsets.size(), 1u);
  EXPECT_EQ(v.appsets[0].name, "a");
}

TEST(Validation, IssuesComeInChainOrder) {
  ValidationInputs in;
  in.kubeconfig.clusters = {{"dev", "https://1.2.3.4", {}}};
  in.kubeconfig.issues = {{"kc.yaml", {3, 5}, "contexts[1]", "context \"x\": broken"}};
  ValidatedDocuments v = ValidateDocuments(
      Docs("kubeconfig: kc.yaml\nclusters: [{name: typo}]\nfoo: 1\n---\n" + std::string(kConfig)),
      "in.yaml", in);
  std::vector<std::string> got;
  for (const auto& i : v.issues) got.push_back(FormatIssue(i));
  // Decoding, then the kubeconfig's own problems, then the label join; a second
  // configuration in one file is refused rather than silently overriding the first.
  EXPECT_EQ(got, (std::vector<std::string>{
                     "in.yaml:3:1: foo: unknown field \"foo\"",
                     "kc.yaml:3:5: contexts[1]: context \"x\": broken",
                     "in.yaml:2:12: clusters[0].name: no kubeconfig context named \"typo\"",
                     "in.yaml:5:1: a second fleetwave configuration in the same file",
                 }));
}

TEST(Validation, ApplicationSetsAreDecodedCheckedAndGenerated) {
  struct Case {
    const char* name;
    std::string text;
    std::string want_issue;  // substring of the only issue; empty = none
  };
  const Case cases[] = {
      {"valid", kAppSet, ""},
      {"decode error", Replace(kAppSet, "spec:\n", "spec:\n  strategy: {type: RollingUpdate}\n"),
       "unsupported value \"RollingUpdate\""},
      {"generation error", Replace(kAppSet, "{{env}}", "{{nope}}"), "nope"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ValidatedDocuments v = ValidateDocuments(Docs(c.text), "in.yaml", {});
    if (c.want_issue.empty()) {
      EXPECT_TRUE(v.issues.empty()) << FormatIssue(v.issues[0]);
      EXPECT_EQ(v.appsets.size(), 1u);
    } else {
      ASSERT_FALSE(v.issues.empty());
      EXPECT_NE(FormatIssue(v.issues[0]).find(c.want_issue), std::string::npos)
          << FormatIssue(v.issues[0]);
    }
    EXPECT_FALSE(v.config.has_value());
  }
}

}  // namespace
}  // namespace fleetwave::engine
