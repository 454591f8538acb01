// Issue 30: strict types. A value of the wrong type is an error naming the field and its
// position, never read as a default: `destination.namespace: 123` once deployed into
// "default", `targetRevision: 1` became HEAD, `prune: 5` and `syncOptions: [5, true]` were
// accepted, and `metadata: {name: 5}` aborted validate with an uncaught nlohmann::json
// exception. Argo CD (Go's strict unmarshal) refuses each of these documents too.
#include <gtest/gtest.h>

#include "engine/appset/application.h"
#include "engine/appset/application_schema.h"
#include "engine/appset/generate.h"

namespace fleetwave::engine {
namespace {

// Line 9 holds the template's metadata, line 12 its source, line 13 its destination and line
// 14 an optional extra spec line (FIELD).
std::string Set(const std::string& name, const std::string& source, const std::string& dest,
                const std::string& extra = "") {
  return "apiVersion: argoproj.io/v1alpha1\n"          // 1
         "kind: ApplicationSet\n"                      // 2
         "metadata: {name: web, namespace: argocd}\n"  // 3
         "spec:\n"                                     // 4
         "  generators:\n"                             // 5
         "    - list: {elements: [{env: dev}]}\n"      // 6
         "  template:\n"                               // 7
         "    metadata:\n"                             // 8
         "      name: " +
         name + "\n" +               // 9
         "    spec:\n"               // 10
         "      project: default\n"  // 11
         "      source: " +
         source + "\n" +                                  // 12
         "      destination: " + dest + "\n" +            // 13
         (extra.empty() ? "" : "      " + extra + "\n");  // 14
}

const std::string kName = "'web-{{env}}'";
const std::string kSource = "{repoURL: r, path: p, targetRevision: main}";
const std::string kDest = "{server: 'https://kubernetes.default.svc', namespace: web}";

struct TypeCase {
  const char* name;
  std::string text;
  std::vector<std::string> issues;
};

class StrictTypes : public ::testing::TestWithParam<TypeCase> {};

TEST_P(StrictTypes, AWrongTypeIsAnIssueNamingTheFieldNeverADefault) {
  const TypeCase& c = GetParam();
  auto docs = LoadYamlDocuments(c.text, "set.yaml");
  ASSERT_TRUE(docs.issues.empty()) << FormatIssue(docs.issues[0]);
  const DecodedApplicationSet decoded = DecodeApplicationSet(docs.documents.at(0), "set.yaml");
  std::vector<std::string> got;
  for (const auto& i : decoded.issues) got.push_back(FormatIssue(i));
  EXPECT_EQ(got, c.issues);
  // Generating from the decoded set never throws, and refuses the app for the same reason.
  ASSERT_TRUE(decoded.appset.has_value());
  GenerateResult r;
  EXPECT_NO_THROW(r = GenerateApplications(*decoded.appset, nullptr));
  EXPECT_TRUE(r.apps.empty());
  EXPECT_FALSE(r.issues.empty());
}

const std::string kWrong = "wrong type: expected ";

INSTANTIATE_TEST_SUITE_P(
    Issue30, StrictTypes,
    ::testing::Values(
        TypeCase{"name_number",
                 Set("5", kSource, kDest),
                 {"set.yaml:9:13: spec.template.metadata.name: " + kWrong + "string, got integer"}},
        TypeCase{"name_bool",
                 Set("true", kSource, kDest),
                 {"set.yaml:9:13: spec.template.metadata.name: " + kWrong + "string, got boolean"}},
        TypeCase{"name_list",
                 Set("[a]", kSource, kDest),
                 {"set.yaml:9:13: spec.template.metadata.name: " + kWrong + "string, got array"}},
        TypeCase{"name_map",
                 Set("{a: b}", kSource, kDest),
                 {"set.yaml:9:13: spec.template.metadata.name: " + kWrong + "string, got object"}},
        TypeCase{"destination_namespace_number",
                 Set(kName, kSource, "{server: s, namespace: 123}"),
                 {"set.yaml:13:43: spec.template.spec.destination.namespace: " + kWrong +
                  "string, got integer"}},
        TypeCase{"destination_server_bool",
                 Set(kName, kSource, "{server: true}"),
                 {"set.yaml:13:29: spec.template.spec.destination.server: " + kWrong +
                  "string, got boolean"}},
        TypeCase{
            "destination_a_string",
            Set(kName, kSource, "somewhere"),
            {"set.yaml:13:20: spec.template.spec.destination: " + kWrong + "object, got string"}},
        TypeCase{"target_revision_number",
                 Set(kName, "{repoURL: r, path: p, targetRevision: 1}", kDest),
                 {"set.yaml:12:53: spec.template.spec.source.targetRevision: " + kWrong +
                  "string, got integer"}},
        TypeCase{
            "sources_revision_float",
            Set(kName, kSource, kDest, "sources: [{repoURL: r, path: p, targetRevision: 1.5}]"),
            {"set.yaml:11:7: spec.template.spec.sources: source and sources are mutually "
             "exclusive",
             "set.yaml:14:55: spec.template.spec.sources[0].targetRevision: " + kWrong +
                 "string, got number"}},
        TypeCase{"prune_number",
                 Set(kName, kSource, kDest, "syncPolicy: {automated: {prune: 5}}"),
                 {"set.yaml:14:39: spec.template.spec.syncPolicy.automated.prune: " + kWrong +
                  "boolean, got integer"}},
        TypeCase{"self_heal_string",
                 Set(kName, kSource, kDest, "syncPolicy: {automated: {selfHeal: 'yes'}}"),
                 {"set.yaml:14:42: spec.template.spec.syncPolicy.automated.selfHeal: " + kWrong +
                  "boolean, got string"}},
        TypeCase{"sync_options_not_strings",
                 Set(kName, kSource, kDest, "syncPolicy: {syncOptions: [5, true]}"),
                 {"set.yaml:14:34: spec.template.spec.syncPolicy.syncOptions[0]: " + kWrong +
                      "string, got integer",
                  "set.yaml:14:37: spec.template.spec.syncPolicy.syncOptions[1]: " + kWrong +
                      "string, got boolean"}},
        TypeCase{"retry_limit_string",
                 Set(kName, kSource, kDest, "syncPolicy: {retry: {limit: many}}"),
                 {"set.yaml:14:35: spec.template.spec.syncPolicy.retry.limit: " + kWrong +
                  "integer, got string"}},
        TypeCase{"label_value_number",
                 Set(kName + "\n      labels: {env: 1}", kSource, kDest),
                 {"set.yaml:10:21: spec.template.metadata.labels.env: " + kWrong +
                  "string, got integer"}},
        TypeCase{"info_number",
                 Set(kName, kSource, kDest, "info: 5"),
                 {"set.yaml:14:13: spec.template.spec.info: " + kWrong + "array, got integer"}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(StrictTypes, TheSetsOwnStringsAreStrict) {
  const std::string text =
      "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: 5}\nspec:\n"
      "  generators:\n"
      "    - git: {repoURL: r, revision: 1, directories: [{path: '*'}]}\n"
      "    - clusters: {values: {replicas: 3}}\n" +
      Set(kName, kSource, kDest).substr(Set(kName, kSource, kDest).find("  template:"));
  auto docs = LoadYamlDocuments(text, "set.yaml");
  const DecodedApplicationSet d = DecodeApplicationSet(docs.documents.at(0), "set.yaml");
  std::vector<std::string> got;
  for (const auto& i : d.issues) got.push_back(FormatIssue(i));
  EXPECT_EQ(got,
            (std::vector<std::string>{
                "set.yaml:3:18: metadata.name: " + kWrong + "string, got integer",
                "set.yaml:6:35: spec.generators[0].git.revision: " + kWrong + "string, got integer",
                "set.yaml:7:37: spec.generators[1].clusters.values.replicas: " + kWrong +
                    "string, got integer"}));
}

// A template that reached generation by another way than the decoder (a generator's override
// merged in, a caller building the set in code) is checked again, and never throws.
TEST(StrictTypes, GeneratedApplicationsAreCheckedWhateverBuiltThem) {
  ApplicationSet set;
  set.file = "set.yaml";
  set.name = "web";
  Generator g;
  g.kind = Generator::Kind::kList;
  g.list.elements = {Json{{"env", "dev"}}};
  set.generators = {g};
  for (const Json& metadata :
       {Json{{"name", 5}}, Json("web"), Json::array({1}), Json{{"name", "web"}, {"labels", "x"}}}) {
    set.template_ = {{"metadata", metadata},
                     {"spec", {{"destination", {{"namespace", 123}, {"server", "s"}}}}}};
    GenerateResult r;
    EXPECT_NO_THROW(r = GenerateApplications(set, nullptr)) << metadata.dump();
    EXPECT_TRUE(r.apps.empty()) << metadata.dump();
    ASSERT_FALSE(r.issues.empty());
  }
  set.template_ = {{"metadata", {{"name", "web"}}},
                   {"spec", {{"destination", {{"namespace", 123}, {"server", "s"}}}}}};
  const GenerateResult r = GenerateApplications(set, nullptr);
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(FormatIssue(r.issues[0]),
            "set.yaml: spec.template.spec.destination.namespace: wrong type: expected string, got "
            "integer (parameters from .list.elements[0])");
  // The same template with the right type generates.
  set.template_["spec"]["destination"]["namespace"] = "web";
  EXPECT_EQ(GenerateApplications(set, nullptr).apps.size(), 1u);
}

// A key written twice: the decoder's JSON keeps the last value, yaml-cpp's node the first, so
// locating the wrong-typed field must not subscript a scalar (found by appset_fuzz).
TEST(StrictTypes, DuplicateKeysNeverThrow) {
  const std::string text =
      "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: web}\nspec:\n"
      "  generators: [{list: {elements: [{env: dev}]}}]\n  template:\n"
      "    metadata: {name: web}\n    spec: x\n"
      "    spec: {project: p, source: 5, destination: {server: s}}\n";
  auto docs = LoadYamlDocuments(text, "set.yaml");
  ASSERT_EQ(docs.documents.size(), 1u) << (docs.issues.empty() ? "" : FormatIssue(docs.issues[0]));
  DecodedApplicationSet d;
  EXPECT_NO_THROW(d = DecodeApplicationSet(docs.documents[0], "set.yaml"));
  EXPECT_FALSE(d.issues.empty());
}

// `fleetwave plan` reads live Applications (kubectl's output) with the same types.
TEST(StrictTypes, LiveApplicationsDecodeStrictly) {
  Issues issues;
  const Json app = {{"metadata", {{"name", "a"}}},
                    {"spec", {{"destination", {{"namespace", 123}}}, {"project", "p"}}}};
  EXPECT_TRUE(DecodeApplication(app, "apps.yaml", "items[0]", issues).has_value());
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(FormatIssue(issues[0]),
            "apps.yaml: items[0].spec.destination.namespace: wrong type: expected string, got "
            "integer");
}

TEST(StrictTypes, NullIsAbsentAndUnknownFieldsPass) {
  const Json app = {{"metadata", {{"name", "web"}, {"namespace", nullptr}}},
                    {"spec",
                     {{"destination", {{"namespace", nullptr}, {"server", "s"}}},
                      {"source", {{"repoURL", "r"}, {"helm", {{"values", 5}}}, {"extra", 1}}},
                      {"somethingNew", {1, 2}}}}};
  EXPECT_TRUE(CheckApplicationFieldTypes(app).empty());
}

}  // namespace
}  // namespace fleetwave::engine
