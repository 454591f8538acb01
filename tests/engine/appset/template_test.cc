// Both template languages: fasttemplate and the Go text/template subset.
#include "engine/appset/template.h"

#include <gtest/gtest.h>

#include <limits>

namespace fleetwave::engine {
namespace {

const Json kParams = Json::parse(R"({
  "cluster": "Prod-East", "url": "https://1.2.3.4/", "env": "",
  "metadata": {"labels": {"region": "us-east-2", "cluster/region": "use2"}},
  "replicas": 3, "enabled": true, "list": ["a", "b"]
})");

struct Case {
  const char* name;
  bool go;
  bool missing_key_error;
  std::string text;
  std::string want;        // rendered text when want_error is empty
  std::string want_error;  // substring of the error
};

class TemplateRendering : public ::testing::TestWithParam<Case> {};

TEST_P(TemplateRendering, RendersAsArgoCD) {
  const Case& c = GetParam();
  TemplateResult r = RenderTemplate(c.text, kParams, {c.go, c.missing_key_error});
  if (c.want_error.empty()) {
    EXPECT_TRUE(r.ok()) << r.error.value_or(Error{}).message;
    EXPECT_EQ(r.text, c.want);
  } else {
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.error.value_or(Error{}).message.find(c.want_error), std::string::npos)
        << r.error.value_or(Error{}).message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fasttemplate, TemplateRendering,
    ::testing::Values(Case{"FastParam", false, false, "{{cluster}}-web", "Prod-East-web", ""},
                      Case{"FastSpacesInsideTag", false, false, "{{ cluster }}", "Prod-East", ""},
                      Case{"FastNestedKeyIsFlattened", false, false,
                           "{{metadata.labels.cluster/region}}", "use2", ""},
                      Case{"FastUnknownParamIsLeftAsWritten", false, false, "{{nope}}-x",
                           "{{nope}}-x", ""},
                      Case{"FastNumberIsPrinted", false, false, "{{replicas}}", "3", ""},
                      Case{"FastNoTags", false, false, "plain", "plain", ""}),
    [](const auto& info) { return info.param.name; });

INSTANTIATE_TEST_SUITE_P(
    GoTemplate, TemplateRendering,
    ::testing::Values(
        Case{"GoField", true, false, "{{.cluster}}-web", "Prod-East-web", ""},
        Case{"GoNestedField", true, false, "{{ .metadata.labels.region }}", "us-east-2", ""},
        Case{"GoMissingKeyPrintsNoValue", true, false, "{{.nope}}", "<no value>", ""},
        Case{"GoMissingKeyErrorOption", true, true, "{{.nope}}", "",
             "map has no entry for key \"nope\""},
        Case{"GoIndexWithSlash", true, true, "{{index .metadata.labels \"cluster/region\"}}",
             "use2", ""},
        Case{"GoIndexMissingKeyIsNoError", true, true, "{{index .metadata.labels \"zone\"}}",
             "<no value>", ""},
        Case{"GoIndexList", true, false, "{{index .list 1}}", "b", ""},
        Case{"GoLower", true, false, "{{.cluster | lower}}", "prod-east", ""},
        Case{"GoUpperCallForm", true, false, "{{ upper .cluster }}", "PROD-EAST", ""},
        Case{"GoDefaultUsesFallbackForEmpty", true, false, "{{.env | default \"dev\"}}", "dev", ""},
        Case{"GoDefaultKeepsValue", true, false, "{{default \"x\" .cluster}}", "Prod-East", ""},
        Case{"GoReplace", true, false, "{{.cluster | replace \"-\" \"_\"}}", "Prod_East", ""},
        Case{"GoTrunc", true, false, "{{trunc 4 .cluster}}", "Prod", ""},
        Case{"GoTruncNegativeKeepsTail", true, false, "{{trunc -4 .cluster}}", "East", ""},
        Case{"GoQuote", true, false, "{{quote .cluster}}", "\"Prod-East\"", ""},
        Case{"GoTrimSuffix", true, false, "{{.url | trimSuffix \"/\"}}", "https://1.2.3.4", ""},
        Case{"GoTrimPrefix", true, false, "{{trimPrefix \"https://\" .url}}", "1.2.3.4/", ""},
        Case{"GoIfElse", true, false, "{{if .enabled}}on{{else}}off{{end}}", "on", ""},
        Case{"GoIfEmptyStringIsFalse", true, false, "{{if .env}}on{{else}}off{{end}}", "off", ""},
        Case{"GoElseIf", true, false, "{{if .env}}a{{else if .enabled}}b{{else}}c{{end}}", "b", ""},
        Case{"GoTrimMarkers", true, false, "x  {{- .replicas -}}  y", "x3y", ""},
        Case{"GoParenthesised", true, false, "{{upper (trunc 4 .cluster)}}", "PROD", ""},
        Case{"GoNumberPrintsAsGo", true, false, "{{.replicas}}", "3", ""},
        Case{"GoUnsupportedFunction", true, false, "{{.cluster | sha256sum}}", "",
             "unsupported template function sha256sum"},
        Case{"GoUnsupportedEq", true, false, "{{if eq .env \"x\"}}y{{end}}", "",
             "unsupported template function eq"},
        Case{"GoUnsupportedRange", true, false, "{{range .list}}x{{end}}", "",
             "unsupported template action range"},
        Case{"GoUnclosedIf", true, false, "{{if .enabled}}x", "", "missing {{end}}"},
        Case{"GoUnclosedAction", true, false, "{{.cluster", "", "unclosed action"},
        Case{"GoArgsToNonFunction", true, false, "{{.cluster .env}}", "",
             "can't give argument to non-function"},
        Case{"GoFieldOfString", true, false, "{{.cluster.name}}", "",
             "can't evaluate field name in type string"}),
    [](const auto& info) { return info.param.name; });

// Numbers beyond long long are errors or floats, never an undefined conversion (found by
// template_fuzz: `trunc 44444444444444444444-443 .x`).
TEST(TemplateNumbers, OutOfRangeIsAnErrorNotUndefinedBehaviour) {
  const Json params = {
      {"cluster", "Prod-East"}, {"huge", 1e300}, {"nan", std::numeric_limits<double>::quiet_NaN()}};
  struct NumberCase {
    const char* name;
    std::string text;
    std::string want;        // rendered text when want_error is empty
    std::string want_error;  // the error
  } cases[] = {
      {"fuzz finding: huge integer literal", "{{ trunc 44444444444444444444 .cluster }}", "",
       "trunc: length out of range"},
      {"huge float parameter", "{{ trunc .huge .cluster }}", "", "trunc: length out of range"},
      {"NaN parameter", "{{ trunc .nan .cluster }}", "", "trunc: length out of range"},
      {"smallest long long keeps everything", "{{ trunc -9223372036854775808 .cluster }}",
       "Prod-East", ""},
      {"2^63-1 reads as the float 2^63", "{{ trunc 9223372036854775807 .cluster }}", "",
       "trunc: length out of range"},
      {"negative keeps the tail", "{{ trunc -4 .cluster }}", "East", ""},
  };
  for (const NumberCase& c : cases) {
    SCOPED_TRACE(c.name);
    const TemplateResult r = RenderTemplate(c.text, params, {true, false});
    if (c.want_error.empty()) {
      EXPECT_TRUE(r.ok()) << r.error.value_or(Error{}).message;
      EXPECT_EQ(r.text, c.want);
    } else {
      EXPECT_EQ(r.error.value_or(Error{}).message, c.want_error);
    }
  }
}

TEST(TemplateCheck, FasttemplateAcceptsAnything) {
  EXPECT_EQ(CheckTemplate("{{ whatever | x }}", {false, false}), std::nullopt);
}

TEST(TemplateCheck, GoTemplateChecksWithoutParameters) {
  EXPECT_EQ(CheckTemplate("{{ .a | lower }}", {true, true}), std::nullopt);
  EXPECT_EQ(CheckTemplate("{{ toYaml .a }}", {true, false}),
            "unsupported template function toYaml");
}

TEST(TemplateDocument, RendersStringValuesAndNamesTheFailingField) {
  Json doc = Json::parse(R"({"metadata": {"name": "{{.cluster}}", "labels": {"n": "{{.replicas}}"}},
                             "spec": {"list": ["{{.nope}}"], "count": 2}})");
  RenderedDocument failed = RenderTemplateDocument(doc, kParams, {true, true});
  EXPECT_FALSE(failed.document.has_value());
  EXPECT_EQ(failed.error.value_or(Error{}).object, "spec.list[0]");
  EXPECT_EQ(failed.error.value_or(Error{}).kind, ErrorKind::kInvalidInput);
  EXPECT_EQ(failed.error.value_or(Error{}).message, "map has no entry for key \"nope\"");
  RenderedDocument rendered = RenderTemplateDocument(doc, kParams, {true, false});
  ASSERT_TRUE(rendered.document.has_value()) << rendered.error.value_or(Error{}).message;
  const Json& out = *rendered.document;
  EXPECT_EQ(out["metadata"]["name"], "Prod-East");
  EXPECT_EQ(out["metadata"]["labels"]["n"], "3");
  EXPECT_EQ(out["spec"]["count"], 2) << "non-string values are copied";
}

}  // namespace
}  // namespace fleetwave::engine
