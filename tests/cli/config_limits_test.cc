// Issue 30: `limits:` in fleetwave.yaml, decoded into engine::InputLimits with strict types and
// an error per key (a wrong type or a value out of range is never a default in silence).
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <string>

#include "engine/config.h"
#include "engine/input_limits.h"

namespace fleetwave::engine {
namespace {

DecodedConfig Decode(const std::string& text) {
  return DecodeConfig(YAML::Load(text), "fleetwave.yaml");
}

std::string Issues(const DecodedConfig& d) {
  std::string out;
  for (const auto& i : d.issues) out += FormatIssue(i) + "\n";
  return out;
}

TEST(ConfigLimits, AbsentMeansTheDefaults) {
  const DecodedConfig d = Decode("applicationSets: /x\n");
  ASSERT_TRUE(d.issues.empty()) << Issues(d);
  const InputLimits defaults;
  EXPECT_EQ(d.config.limits.max_file_bytes, defaults.max_file_bytes);
  EXPECT_EQ(d.config.limits.max_apps_per_appset, defaults.max_apps_per_appset);
  EXPECT_EQ(d.config.limits.max_template_depth, defaults.max_template_depth);
}

TEST(ConfigLimits, EveryKeyDecodesIntegersAndQuantities) {
  const DecodedConfig d = Decode(R"(limits:
  maxFileBytes: 1Mi
  maxAppsPerApplicationSet: 500
  maxApplicationBytes: 64Ki
  maxRenderBytes: 2000000
  maxDocumentDepth: 50
  maxTemplateDepth: 40
  maxWatchEventBytes: 1Mi
  maxResponseBytes: 64Mi
)");
  ASSERT_TRUE(d.issues.empty()) << Issues(d);
  EXPECT_EQ(d.config.limits.max_watch_event_bytes, 1u << 20);
  EXPECT_EQ(d.config.limits.max_response_bytes, 64u << 20);
  EXPECT_EQ(d.config.limits.max_file_bytes, 1u << 20);
  EXPECT_EQ(d.config.limits.max_apps_per_appset, 500u);
  EXPECT_EQ(d.config.limits.max_application_bytes, 64u << 10);
  EXPECT_EQ(d.config.limits.max_render_bytes, 2000000u);
  EXPECT_EQ(d.config.limits.max_document_depth, 50u);
  EXPECT_EQ(d.config.limits.max_template_depth, 40u);
}

TEST(ConfigLimits, DecimalQuantitiesToo) {
  const DecodedConfig d = Decode("limits: {maxFileBytes: 3M, maxRenderBytes: 1G}\n");
  ASSERT_TRUE(d.issues.empty()) << Issues(d);
  EXPECT_EQ(d.config.limits.max_file_bytes, 3000000u);
  EXPECT_EQ(d.config.limits.max_render_bytes, 1000000000u);
}

TEST(ConfigLimits, WrongTypesAndValuesAreErrorsNamingTheKeyAndKeepTheDefault) {
  const DecodedConfig d = Decode(R"(limits:
  maxFileBytes: true
  maxAppsPerApplicationSet: "12"
  maxApplicationBytes: 4Zi
  maxRenderBytes: -5
  maxDocumentDepth: 0
  maxTemplateDepth: 2.5
  maxEverything: 1
)");
  const std::string all = Issues(d);
  for (const char* key :
       {"limits.maxFileBytes: wrong type", "limits.maxAppsPerApplicationSet: wrong type",
        "limits.maxApplicationBytes: invalid size", "limits.maxRenderBytes: must be at least 1",
        "limits.maxDocumentDepth: must be at least 1", "limits.maxTemplateDepth: wrong type",
        "limits.maxEverything: unknown field"}) {
    EXPECT_NE(all.find(key), std::string::npos) << key << " not in:\n" << all;
  }
  EXPECT_NE(all.find("fleetwave.yaml:2:"), std::string::npos) << all;
  const InputLimits defaults;
  EXPECT_EQ(d.config.limits.max_file_bytes, defaults.max_file_bytes);
  EXPECT_EQ(d.config.limits.max_document_depth, defaults.max_document_depth);
}

TEST(ConfigLimits, AQuantityThatOverflowsIsAnError) {
  const DecodedConfig d = Decode("limits: {maxFileBytes: 99999999999999999999Ei}\n");
  EXPECT_NE(Issues(d).find("limits.maxFileBytes"), std::string::npos) << Issues(d);
}

TEST(ConfigLimits, LimitsMustBeAnObject) {
  const DecodedConfig d = Decode("limits: 5\n");
  EXPECT_NE(Issues(d).find("limits: wrong type: expected object"), std::string::npos) << Issues(d);
}

}  // namespace
}  // namespace fleetwave::engine
