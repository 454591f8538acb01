// Issue 30: what one ApplicationSet may generate is bounded. A 20 KB matrix of two
// 1,000-element lists once made 1,000,000 apps (2.9 GB) and a 100,000-element list held 3 GB:
// limits.maxAppsPerApplicationSet is checked before the apps are built (a matrix's product
// before its rows), and limits.maxApplicationBytes bounds each app while its template renders.
#include <gtest/gtest.h>

#include "tests/engine/generators/generators_testing.h"

namespace fleetwave::engine {
namespace {

using testing::DecodeSpec;
using testing::Messages;

std::string List(const std::string& key, int n, const std::string& indent) {
  std::string s = indent + "- list:\n" + indent + "    elements:\n";
  for (int i = 0; i < n; ++i) s += indent + "      - {" + key + ": '" + std::to_string(i) + "'}\n";
  return s;
}

const char* kTemplate = R"(  template:
    metadata: {name: 'web-{{a}}-{{b}}'}
    spec:
      project: default
      source: {repoURL: r, path: p}
      destination: {server: s, namespace: web}
)";

std::string Matrix(int a, int b) {
  return "spec:\n  generators:\n    - matrix:\n        generators:\n" + List("a", a, "          ") +
         List("b", b, "          ") + kTemplate;
}

TEST(AppBudget, AMatrixProductIsCountedBeforeItIsBuilt) {
  const DecodedApplicationSet d = DecodeSpec(Matrix(1000, 1000));
  ASSERT_TRUE(d.issues.empty()) << Messages(d.issues)[0];
  const GenerateResult r = GenerateApplications(*d.appset, nullptr);
  EXPECT_TRUE(r.apps.empty());
  EXPECT_EQ(Messages(r.issues),
            std::vector<std::string>{
                "set.yaml:7:9: spec.generators[0]: applicationset \"web\": generators produce "
                "1000000 applications, more than limits.maxAppsPerApplicationSet (25000)"});
}

TEST(AppBudget, TheBudgetIsConfigurableAndAtItEverythingIsGenerated) {
  const DecodedApplicationSet d = DecodeSpec(Matrix(10, 10));
  InputLimits limits;
  limits.max_apps_per_appset = 100;
  EXPECT_EQ(GenerateApplications(*d.appset, nullptr, nullptr, limits).apps.size(), 100u);
  limits.max_apps_per_appset = 99;
  const GenerateResult r = GenerateApplications(*d.appset, nullptr, nullptr, limits);
  EXPECT_TRUE(r.apps.empty());
  EXPECT_EQ(Messages(r.issues),
            std::vector<std::string>{
                "set.yaml:7:9: spec.generators[0]: applicationset \"web\": generators produce "
                "100 applications, more than limits.maxAppsPerApplicationSet (99)"});
}

TEST(AppBudget, AMatrixWhoseSecondChildUsesTheFirstStopsAtTheBudget) {
  std::string spec = Matrix(10, 10);
  spec.replace(spec.find("{b: '0'}"), 8, "{b: '{{a}}'}");
  const DecodedApplicationSet d = DecodeSpec(spec);
  ASSERT_TRUE(d.issues.empty()) << Messages(d.issues)[0];
  InputLimits limits;
  limits.max_apps_per_appset = 25;
  const GenerateResult r = GenerateApplications(*d.appset, nullptr, nullptr, limits);
  EXPECT_TRUE(r.apps.empty());
  EXPECT_EQ(Messages(r.issues),
            std::vector<std::string>{
                "set.yaml:7:9: spec.generators[0]: applicationset \"web\": generators produce at "
                "least 30 applications, more than limits.maxAppsPerApplicationSet (25)"});
}

TEST(AppBudget, GeneratorsOfOneSetShareTheBudget) {
  const std::string spec = "spec:\n  generators:\n" + List("a", 6, "    ") + List("a", 6, "    ") +
                           "  template:\n    metadata: {name: 'web-{{a}}'}\n    spec: {project: "
                           "default, source: {repoURL: r, path: p}, destination: {server: s}}\n";
  const DecodedApplicationSet d = DecodeSpec(spec);
  InputLimits limits;
  limits.max_apps_per_appset = 10;
  const GenerateResult r = GenerateApplications(*d.appset, nullptr, nullptr, limits);
  EXPECT_TRUE(r.apps.empty());
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_NE(FormatIssue(r.issues[0]).find("generators produce 12 applications"), std::string::npos)
      << FormatIssue(r.issues[0]);
}

TEST(AppBudget, AListLongerThanTheBudgetIsRefusedWhenDecodedAndWhenGenerated) {
  InputLimits limits;
  limits.max_apps_per_appset = 3;
  auto docs = LoadYamlDocuments(
      "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: web}\nspec:\n"
      "  generators:\n    - list: {elements: [{a: '1'}, {a: '2'}, {a: '3'}, {a: '4'}]}\n" +
          std::string(kTemplate),
      "set.yaml");
  const DecodedApplicationSet d = DecodeApplicationSet(docs.documents.at(0), "set.yaml", limits);
  EXPECT_EQ(Messages(d.issues),
            std::vector<std::string>{"set.yaml:6:24: spec.generators[0].list.elements: 4 elements, "
                                     "more than limits.maxAppsPerApplicationSet (3)"});
  // Built in code, past the decoder: generation counts before expanding.
  ApplicationSet set = *DecodeSpec(Matrix(1, 1)).appset;
  Generator list;
  list.kind = Generator::Kind::kList;
  list.path = "spec.generators[0]";
  list.list.elements.assign(100000, Json{{"a", "x"}, {"b", "y"}});
  set.generators = {list};
  const GenerateResult r = GenerateApplications(set, nullptr);
  EXPECT_TRUE(r.apps.empty());
  EXPECT_EQ(Messages(r.issues),
            std::vector<std::string>{
                "set.yaml: spec.generators[0]: applicationset \"web\": generators produce 100000 "
                "applications, more than limits.maxAppsPerApplicationSet (25000)"});
}

TEST(AppBudget, AGitFilesGeneratorIsCountedBeforeItsSetsAreBuilt) {
  const DecodedApplicationSet d = DecodeSpec(
      "spec:\n  generators:\n    - git: {repoURL: 'https://git/r', files: [{path: 'c/*.json'}]}\n" +
      std::string(kTemplate));
  ASSERT_TRUE(d.issues.empty()) << Messages(d.issues)[0];
  GeneratorInputs inputs;
  GitRepoContent content;
  std::string many = "[";
  for (int i = 0; i < 50; ++i)
    many += std::string(i ? "," : "") + "{\"a\": \"" + std::to_string(i) + "\"}";
  content.files["c/x.json"] = many + "]";
  inputs.git[{"https://git/r", ""}] = content;
  InputLimits limits;
  limits.max_apps_per_appset = 10;
  const GenerateResult r = GenerateApplications(*d.appset, nullptr, &inputs, limits);
  EXPECT_TRUE(r.apps.empty());
  EXPECT_EQ(Messages(r.issues),
            std::vector<std::string>{
                "set.yaml:6:12: spec.generators[0]: git generator: c/x.json: the repository "
                "produces more than limits.maxAppsPerApplicationSet (10) parameter sets"});
}

TEST(AppBudget, AnApplicationLargerThanTheBudgetIsAnIssueOnIt) {
  InputLimits limits;
  limits.max_application_bytes = 2000;
  std::string spec = Matrix(1, 1);
  spec.replace(spec.find("{a: '0'}"), 8, "{a: '0', pad: '" + std::string(1500, 'p') + "'}");
  spec += "      info: [{name: a, value: '{{pad}}'}, {name: b, value: '{{pad}}'}]\n";
  const DecodedApplicationSet d = DecodeSpec(spec);
  ASSERT_TRUE(d.issues.empty()) << Messages(d.issues)[0];
  const GenerateResult r = GenerateApplications(*d.appset, nullptr, nullptr, limits);
  EXPECT_TRUE(r.apps.empty());
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(
      FormatIssue(r.issues[0])
          .rfind("set.yaml:15:5: spec.template.spec.info[1].value: template output is larger than "
                 "limits.maxApplicationBytes (2000 bytes) (parameters from ",
                 0),
      0u)
      << FormatIssue(r.issues[0]);
  EXPECT_EQ(GenerateApplications(*d.appset, nullptr).apps.size(), 1u) << "fits the default";
}

}  // namespace
}  // namespace fleetwave::engine
