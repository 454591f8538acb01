// Issue 30: YAML and JSON nesting is bounded by limits.maxDocumentDepth before yaml-cpp or
// nlohmann::json (both recurse per level somewhere) see the text: 100,000 nested brackets,
// dashes or indentation levels are an issue at the position where the text passes the budget,
// never the stack.
#include <gtest/gtest.h>

#include "engine/appset/plan_input.h"
#include "engine/yaml_json.h"
#include "engine/yaml_prescan.h"

namespace fleetwave::engine {
namespace {

const std::string kTooDeep =
    "the document nests deeper than limits.maxDocumentDepth (200 levels); refusing to read it";

std::string Indented(std::size_t levels) {
  std::string s;
  for (std::size_t i = 0; i < levels; ++i) s += std::string(i, ' ') + "k:\n";
  return s + std::string(levels, ' ') + "v\n";
}

struct DeepCase {
  const char* name;
  std::string text;
  std::string where;  // "line:col" of the issue
};

class DocumentDepth : public ::testing::TestWithParam<DeepCase> {};

TEST_P(DocumentDepth, DeepTextIsAnIssueAtItsPosition) {
  const DeepCase& c = GetParam();
  const LoadedDocuments r = LoadYamlDocuments(c.text, "deep.yaml");
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(FormatIssue(r.issues[0]), "deep.yaml:" + c.where + ": " + kTooDeep);
  EXPECT_TRUE(r.documents.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Issue30, DocumentDepth,
    ::testing::Values(
        DeepCase{"flow_sequences_100000",
                 "a: " + std::string(100000, '[') + std::string(100000, ']') + "\n", "1:203"},
        DeepCase{"flow_maps_100000", std::string(100000, '{') + "\n", "1:200"},
        DeepCase{"json_in_a_list_element",
                 "items:\n  - " + std::string(300, '[') + std::string(300, ']') + "\n", "2:202"},
        DeepCase{"dashes_100000",
                 [] {
                   std::string s;
                   for (int i = 0; i < 100000; ++i) s += "- ";
                   return s + "x\n";
                 }(),
                 "1:401"},
        DeepCase{"indentation_1000", Indented(1000), "201:201"},
        DeepCase{"flow_across_lines",
                 "a:\n" + std::string(150, '[') + "\n" + std::string(150, '[') + "\n", "3:50"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(DocumentDepth, BracketsInStringsCommentsAndBlockScalarsDoNotCount) {
  const std::string brackets(300, '[');
  for (const std::string& text :
       {"a: '" + brackets + "'\n", "a: \"" + brackets + "\"\n", "a: 1 # " + brackets + "\n",
        "a: |\n  " + brackets + "\n  " + brackets + "\nb: 1\n", "a: plain " + brackets + "\n",
        "a: \"multi\n  " + brackets + "\"\n", "- it's " + brackets + "\n"}) {
    const LoadedDocuments r = LoadYamlDocuments(text, "ok.yaml");
    EXPECT_TRUE(r.issues.empty()) << text.substr(0, 20) << ": " << FormatIssue(r.issues[0]);
  }
}

TEST(DocumentDepth, AtTheLimitLoadsAndTheLimitIsConfigurable) {
  const std::string at = std::string(199, '[') + std::string(199, ']') + "\n";
  EXPECT_TRUE(LoadYamlDocuments(at, "ok.yaml").issues.empty());
  EXPECT_TRUE(LoadYamlDocuments(Indented(150), "ok.yaml").issues.empty());
  InputLimits limits;
  limits.max_document_depth = 5;
  const LoadedDocuments r = LoadYamlDocuments("a: [[[[[[1]]]]]]\n", "small.yaml", limits);
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(FormatIssue(r.issues[0]),
            "small.yaml:1:8: the document nests deeper than limits.maxDocumentDepth (5 levels); "
            "refusing to read it");
}

TEST(JsonDepth, ParseJsonDocumentIsBounded) {
  Issues issues;
  EXPECT_FALSE(
      ParseJsonDocument(std::string(100000, '[') + std::string(100000, ']'), "deep.json", issues)
          .has_value());
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(FormatIssue(issues[0]), "deep.json:1:201: " + kTooDeep);
  issues.clear();
  auto ok = ParseJsonDocument("{\"a\": \"[[[[\", \"b\": [[1]]}", "ok.json", issues);
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ((*ok)["b"][0][0], 1);
  EXPECT_FALSE(ParseJsonDocument("{", "bad.json", issues).has_value());
  EXPECT_EQ(FormatIssue(issues.back()), "bad.json: not valid JSON");
}

}  // namespace
}  // namespace fleetwave::engine

namespace fleetwave::engine {
namespace {

// `fleetwave plan` reads kubectl's JSON through nlohmann first: a deep or wrong-typed document
// takes the bounded YAML path instead (nlohmann's value() threw on `"kind": 5`).
TEST(JsonDepth, PlanInputsAreBoundedAndNeverThrow) {
  PlanInputs in;
  EXPECT_NO_THROW(
      in = DecodePlanInputs("{\"kind\": 5, \"apiVersion\": \"x\"}", "set.json", "[]", "apps.json"));
  EXPECT_FALSE(in.issues.empty());
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_NO_THROW(in = DecodePlanInputs("{\"kind\": \"ApplicationSet\", \"spec\": " + deep + "}",
                                        "set.json", deep, "apps.json"));
  ASSERT_FALSE(in.issues.empty());
  EXPECT_EQ(FormatIssue(in.issues[0]), "set.json:1:234: " + kTooDeep);
}

}  // namespace
}  // namespace fleetwave::engine
