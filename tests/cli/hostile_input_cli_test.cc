// Issue 30: `fleetwave validate` on hostile ApplicationSets, run as the binary runs it. Each file
// of tests/testdata/hostile is refused with `file:line:col: field: message` and exit 1, never a
// crash (100,000 nested parentheses or ifs once died with SIGSEGV, `name: 5` with SIGABRT) and
// never accepted (wrong types once deployed into "default" or HEAD; amplifying templates built
// 100 MB; a matrix made 1,000,000 apps). The largest inputs are generated here, not stored.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/test_paths.h"
#include "tools/fleetwave/commands.h"

namespace fleetwave::cli {
namespace {

const std::string kHostile = ::fleetwave::test_paths::TestdataDir() + "/hostile/";

struct Result {
  int code;
  std::string out;
  std::string err;
};

Result Validate(const std::string& file) {
  std::ostringstream out, err;
  const int code = RunValidate({file}, out, err);
  return {code, out.str(), err.str()};
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "fleetwave-hostile-test";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

struct HostileCase {
  const char* file;
  std::string first_line;  // the first line of stderr after "<path>:"
};

class HostileFiles : public ::testing::TestWithParam<HostileCase> {};

TEST_P(HostileFiles, AreRefusedWithFileLineColumnFieldAndMessage) {
  const HostileCase& c = GetParam();
  const std::string path = kHostile + c.file;
  const Result r = Validate(path);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(r.out, "");
  const std::string first = r.err.substr(0, r.err.find('\n'));
  EXPECT_EQ(first, path + ":" + c.first_line) << r.err;
}

const std::string kWrong = "wrong type: expected ";

INSTANTIATE_TEST_SUITE_P(
    Issue30, HostileFiles,
    ::testing::Values(
        HostileCase{"template-deep-parens.yaml",
                    "22:18: spec.template.spec.info[0].value: template nests deeper than "
                    "limits.maxTemplateDepth (100 levels of parentheses and if blocks)"},
        HostileCase{"template-deep-if.yaml",
                    "22:18: spec.template.spec.info[0].value: template nests deeper than "
                    "limits.maxTemplateDepth (100 levels of parentheses and if blocks)"},
        HostileCase{"yaml-deep-nesting.yaml",
                    "11:222: the document nests deeper than limits.maxDocumentDepth (200 levels); "
                    "refusing to read it"},
        HostileCase{"template-name-number.yaml",
                    "14:13: spec.template.metadata.name: " + kWrong + "string, got integer"},
        HostileCase{"template-name-map.yaml",
                    "14:13: spec.template.metadata.name: " + kWrong + "string, got object"},
        HostileCase{
            "destination-namespace-number.yaml",
            "18:74: spec.template.spec.destination.namespace: " + kWrong + "string, got integer"},
        HostileCase{
            "target-revision-number.yaml",
            "17:90: spec.template.spec.source.targetRevision: " + kWrong + "string, got integer"},
        HostileCase{"sync-policy-wrong-types.yaml",
                    "20:28: spec.template.spec.syncPolicy.automated.prune: " + kWrong +
                        "boolean, got integer"},
        HostileCase{"template-replace-amplification.yaml",
                    "14:5: spec.template.spec.info[0].value: template output is larger than "
                    "limits.maxApplicationBytes (262144 bytes) (parameters from "
                    "spec.generators[0].list.elements[0])"},
        HostileCase{"fasttemplate-amplification.yaml",
                    "13:5: spec.template.spec.info[0].value: template output is larger than "
                    "limits.maxApplicationBytes (262144 bytes) (parameters from "
                    "spec.generators[0].list.elements[0])"},
        HostileCase{"matrix-product-over-budget.yaml",
                    "10:9: spec.generators[0]: applicationset \"matrix-product-over-budget\": "
                    "generators produce 40000 applications, more than "
                    "limits.maxAppsPerApplicationSet (25000)"}),
    [](const auto& info) {
      std::string name = info.param.file;
      name = name.substr(0, name.find('.'));
      for (char& ch : name)
        if (ch == '-') ch = '_';
      return name;
    });

// Every file of the folder is a case above: the daemon's e2e test loads the whole folder and
// expects each refused, so a new file needs its expected message here too.
TEST(HostileFiles, EveryFileOfTheFolderIsACase) {
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(kHostile)) {
    ++files;
    const Result r = Validate(e.path().string());
    EXPECT_EQ(r.code, 1) << e.path();
  }
  EXPECT_EQ(files, 11u);
}

std::string SetWithTemplate(const std::string& value) {
  return "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: x}\nspec:\n"
         "  goTemplate: true\n  generators: [{list: {elements: [{env: dev}]}}]\n  template:\n"
         "    metadata: {name: 'a-" +
         value +
         "'}\n    spec: {project: default, source: {repoURL: r, path: p}, destination: {server: "
         "s, namespace: n}}\n";
}

TEST(HostileFiles, OneHundredThousandNestedParenthesesOrIfsAreAnErrorNotACrash) {
  std::string ifs;
  for (int i = 0; i < 100000; ++i) ifs += "{{if .env}}";
  for (int i = 0; i < 100000; ++i) ifs += "{{end}}";
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"parens.yaml",
            "{{ " + std::string(100000, '(') + ".env" + std::string(100000, ')') + " }}"},
           {"ifs.yaml", ifs}}) {
    const std::string path = WriteTemp(name, SetWithTemplate(value));
    const Result r = Validate(path);
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err, path +
                         ":8:22: spec.template.metadata.name: template nests deeper than "
                         "limits.maxTemplateDepth (100 levels of parentheses and if blocks)\n");
  }
}

TEST(HostileFiles, OneHundredThousandNestedBracketsAreAnErrorNotACrash) {
  const std::string path = WriteTemp(
      "brackets.yaml", "a: " + std::string(100000, '[') + std::string(100000, ']') + "\n");
  const Result r = Validate(path);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, path +
                       ":1:203: the document nests deeper than limits.maxDocumentDepth (200 "
                       "levels); refusing to read it\n");
}

TEST(HostileFiles, AListOfOneHundredThousandElementsIsRefusedBeforeItIsExpanded) {
  std::string elements;
  for (int i = 0; i < 100000; ++i) elements += "        - {env: e" + std::to_string(i) + "}\n";
  const std::string path = WriteTemp(
      "long-list.yaml",
      "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: x}\nspec:\n"
      "  generators:\n  - list:\n      elements:\n" +
          elements +
          "  template:\n    metadata: {name: 'a-{{env}}'}\n    spec: {project: default, source: "
          "{repoURL: r, path: p}, destination: {server: s, namespace: n}}\n");
  const Result r = Validate(path);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, path +
                       ":8:9: spec.generators[0].list.elements: 100000 elements, more than "
                       "limits.maxAppsPerApplicationSet (25000)\n");
}

}  // namespace
}  // namespace fleetwave::cli
