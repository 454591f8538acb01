// Issue 30: a template is hostile input. Its nesting is bounded by limits.maxTemplateDepth in
// the parser and the evaluator (100,000 nested `(` or `if` once overflowed the stack), and what
// it builds by limits.maxApplicationBytes while it builds it (eight nested `replace` once built
// 100 MB from a few hundred bytes).
#include <gtest/gtest.h>

#include "engine/appset/template.h"

namespace fleetwave::engine {
namespace {

const TemplateOptions kGo{true, false};
const TemplateOptions kFast{false, false};
const Json kParams = {{"env", "dev"}, {"pad", std::string(1000, 'p')}};

std::string Parens(std::size_t n) {
  return "{{ " + std::string(n, '(') + ".env" + std::string(n, ')') + " }}";
}
std::string Ifs(std::size_t n, const std::string& inner = "x") {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += "{{if .env}}";
  s += inner;
  for (std::size_t i = 0; i < n; ++i) s += "{{end}}";
  return s;
}
std::string ElseIfs(std::size_t n) {
  std::string s = "{{if .missing}}";
  for (std::size_t i = 0; i < n; ++i) s += "{{else if .missing}}";
  return s + "{{else}}x{{end}}";
}

const std::string kTooDeep =
    "template nests deeper than limits.maxTemplateDepth (100 levels of parentheses and if blocks)";

struct DepthCase {
  const char* name;
  std::string text;
  bool ok;  // renders (at the limit) or is refused (past it)
};

class TemplateDepth : public ::testing::TestWithParam<DepthCase> {};

TEST_P(TemplateDepth, IsBoundedInTheParserAndTheEvaluator) {
  const DepthCase& c = GetParam();
  const auto check = CheckTemplate(c.text, kGo);
  const TemplateResult r = RenderTemplate(c.text, kParams, kGo);
  if (c.ok) {
    EXPECT_FALSE(check.has_value()) << *check;
    EXPECT_TRUE(r.ok()) << r.error.value_or(Error{}).message;
  } else {
    ASSERT_TRUE(check.has_value());
    EXPECT_EQ(*check, kTooDeep);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.error.value_or(Error{}).message, kTooDeep);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Issue30, TemplateDepth,
    ::testing::Values(DepthCase{"parens_at_limit", Parens(100), true},
                      DepthCase{"parens_past_limit", Parens(101), false},
                      DepthCase{"parens_100000", Parens(100000), false},
                      DepthCase{"ifs_at_limit", Ifs(100), true},
                      DepthCase{"ifs_past_limit", Ifs(101), false},
                      DepthCase{"ifs_100000", Ifs(100000), false},
                      DepthCase{"else_if_chain_100000", ElseIfs(100000), false},
                      DepthCase{"parens_inside_ifs_at_limit", Ifs(60, Parens(40)), true},
                      DepthCase{"parens_inside_ifs", Ifs(60, Parens(41)), false},
                      DepthCase{"pipelines_in_parens_100000",
                                "{{ " + std::string(100000, '(') + ".env | lower" +
                                    std::string(100000, ')') + " }}",
                                false}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(TemplateDepth, TheBudgetIsConfigurable) {
  InputLimits limits;
  limits.max_template_depth = 3;
  EXPECT_FALSE(CheckTemplate(Parens(3), kGo, limits).has_value());
  ASSERT_TRUE(CheckTemplate(Parens(4), kGo, limits).has_value());
  EXPECT_EQ(*CheckTemplate(Parens(4), kGo, limits),
            "template nests deeper than limits.maxTemplateDepth (3 levels of parentheses and if "
            "blocks)");
  EXPECT_FALSE(RenderTemplate(Ifs(4), kParams, kGo, limits).ok());
}

std::string NestedReplace(int levels) {
  std::string s = "\"a\"";
  for (int i = 0; i < levels; ++i) s = "(replace \"a\" \"aaaaaaaaaa\" " + s + ")";
  return "{{ " + s.substr(1, s.size() - 2) + " }}";
}

const std::string kTooLarge =
    "template output is larger than limits.maxApplicationBytes (262144 bytes)";

TEST(TemplateBytes, NestedReplaceStopsBeforeBuildingTheOutput) {
  // 10^5 bytes fit; 10^8 would be built one 10x step at a time: refused at 10^6.
  const TemplateResult fits = RenderTemplate(NestedReplace(5), kParams, kGo);
  ASSERT_TRUE(fits.ok()) << fits.error.value_or(Error{}).message;
  EXPECT_EQ(fits.text->size(), 100000u);
  const TemplateResult big = RenderTemplate(NestedReplace(8), kParams, kGo);
  EXPECT_FALSE(big.ok());
  EXPECT_EQ(big.error.value_or(Error{}).message, kTooLarge);
}

TEST(TemplateBytes, EveryWayToGrowIsBounded) {
  InputLimits limits;
  limits.max_application_bytes = 5000;
  const std::string message =
      "template output is larger than limits.maxApplicationBytes (5000 bytes)";
  std::string many_actions, many_fast;
  for (int i = 0; i < 10; ++i) many_actions += "{{.pad}}", many_fast += "{{pad}}";
  for (const auto& [text, opts] : std::vector<std::pair<std::string, TemplateOptions>>{
           {many_actions, kGo},
           {many_fast, kFast},
           {"{{ quote .pad .pad .pad .pad .pad .pad }}", kGo},
           {"{{ replace \"p\" \"pppppp\" .pad }}", kGo},
           {std::string(6000, 'x'), kGo},
       }) {
    const TemplateResult r = RenderTemplate(text, kParams, opts, limits);
    EXPECT_FALSE(r.ok()) << text.substr(0, 40);
    EXPECT_EQ(r.error.value_or(Error{}).message, message) << text.substr(0, 40);
  }
  EXPECT_TRUE(RenderTemplate("{{.pad}}{{.pad}}", kParams, kGo, limits).ok());
}

TEST(TemplateBytes, ADocumentsStringsShareOneBudget) {
  InputLimits limits;
  limits.max_application_bytes = 5000;
  // Each string is within the budget; together they are not.
  Json doc = {{"metadata", {{"name", "x"}}}, {"spec", {{"info", Json::array()}}}};
  for (int i = 0; i < 8; ++i) doc["spec"]["info"].push_back({{"value", "{{.pad}}"}});
  const RenderedDocument r = RenderTemplateDocument(doc, kParams, kGo, limits);
  EXPECT_FALSE(r.document.has_value());
  EXPECT_EQ(r.error.value_or(Error{}).message,
            "template output is larger than limits.maxApplicationBytes (5000 bytes)");
  EXPECT_EQ(r.error.value_or(Error{}).object.rfind("spec.info[", 0), 0u)
      << r.error.value_or(Error{}).object;
  doc["spec"]["info"] = Json::array({{{"value", "{{.pad}}"}}});
  EXPECT_TRUE(RenderTemplateDocument(doc, kParams, kGo, limits).document.has_value());
}

}  // namespace
}  // namespace fleetwave::engine
