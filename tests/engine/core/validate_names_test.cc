// ValidateDocuments (what `fleetwave validate` and the daemon's loader run) refuses names and
// namespaces that would leave their cluster, path or query in a request (issue 30), with an
// error naming the file, the field and Kubernetes' rule. Every file of
// tests/testdata/hostile-names is refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/validation.h"
#include "engine/yaml_json.h"
#include "tests/test_paths.h"

namespace fleetwave::engine {
namespace {

using ::testing::HasSubstr;

const char* kAppSet = R"(apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: a}
spec:
  generators: [{list: {elements: [{env: dev}]}}]
  template:
    metadata: {name: 'a-{{env}}'}
    spec: {source: {repoURL: r}, destination: {server: 'https://1.2.3.4', namespace: NS}}
)";

std::string WithNamespace(const std::string& ns) {
  std::string text = kAppSet;
  return text.replace(text.find("NS"), 2, ns);
}

std::string Issues(const std::string& text, const std::string& file = "in.yaml") {
  LoadedDocuments docs = LoadYamlDocuments(text, file);
  EXPECT_TRUE(docs.issues.empty());
  ValidatedDocuments v = ValidateDocuments(docs.documents, file, {});
  std::string out;
  for (const auto& i : v.issues) out += FormatIssue(i) + "\n";
  return out;
}

TEST(ValidateNames, AGoodNamespacePasses) { EXPECT_EQ(Issues(WithNamespace("team-a")), ""); }

TEST(ValidateNames, TraversalInTheDestinationNamespace) {
  const std::string ns = "x/../../../../../../sim-0/apis/apps/v1/namespaces/default";
  EXPECT_THAT(Issues(WithNamespace(ns)),
              HasSubstr("in.yaml:7:5: spec.template.spec.destination.namespace: Application "
                        "\"a-dev\": destination.namespace: \"" +
                        ns +
                        "\" is not a valid namespace: a lowercase RFC 1123 label must consist of "
                        "lower case alphanumeric characters or '-'"));
}

TEST(ValidateNames, QueryInTheDestinationNamespace) {
  EXPECT_THAT(Issues(WithNamespace("'x?dryRun=All#'")),
              HasSubstr("destination.namespace: \"x?dryRun=All#\" is not a valid namespace"));
}

TEST(ValidateNames, TheSetsOwnNameAndNamespace) {
  std::string text = kAppSet;
  text.replace(text.find("{name: a}"), 9, "{name: 'a/../b', namespace: 'Argo CD'}");
  text.replace(text.find("NS"), 2, "web");
  const std::string issues = Issues(text);
  EXPECT_THAT(issues, HasSubstr("in.yaml: metadata.name: \"a/../b\" is not a valid "
                                "ApplicationSet name: a lowercase RFC 1123 subdomain"));
  EXPECT_THAT(issues, HasSubstr("in.yaml: metadata.namespace: \"Argo CD\" is not a valid "
                                "namespace"));
}

TEST(ValidateNames, EveryHostileNamesFileIsRefused) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::fleetwave::test_paths::TestdataDir()) / "hostile-names";
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    SCOPED_TRACE(entry.path().filename().string());
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string file = entry.path().filename().string();
    const std::string issues = Issues(text.str(), file);
    EXPECT_THAT(issues, HasSubstr(file + ":"));
    // generate.cc words the Application name check its own way.
    EXPECT_THAT(issues, ::testing::AnyOf(HasSubstr("is not a valid"), HasSubstr("is invalid")));
  }
  EXPECT_GE(files, 6);
}

}  // namespace
}  // namespace fleetwave::engine
