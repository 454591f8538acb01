// Request bodies: JSON as is; YAML through the engine's conversion (YAML 1.2 core schema),
// so kubesim types every scalar exactly as fleetwave does.
#include "tools/kubesim/yaml_body.h"

#include <gtest/gtest.h>

namespace fleetwave::kubesim {
namespace {

TEST(YamlBodyTest, ScalarsResolveByTheCoreSchema) {
  struct Case {
    const char* name;
    const char* yaml;  // the value of key v
    nlohmann::json want;
  };
  const Case cases[] = {
      {"int", "42", 42},
      {"hex int", "0x1F", 31},
      {"octal int", "0o17", 15},
      {"float", "1.5", 1.5},
      {"bool", "true", true},
      {"YAML 1.1 yes stays a string", "yes", "yes"},
      {"YAML 1.1 on stays a string", "on", "on"},
      {"timestamp stays a string", "2024-01-02T03:04:05Z", "2024-01-02T03:04:05Z"},
      {"quoted number stays a string", "'42'", "42"},
      {"tagged string", "!!str 42", "42"},
      {"null", "~", nullptr},
      {"empty", "", nullptr},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string error;
    auto body = ParseBody(std::string("v: ") + c.yaml + "\n", true, &error);
    ASSERT_TRUE(body.has_value()) << error;
    EXPECT_EQ((*body)["v"], c.want);
  }
}

TEST(YamlBodyTest, JsonFirstAndErrorsAsValues) {
  std::string error;
  EXPECT_EQ(ParseBody(R"({"a": "0x1F"})", false, &error), (nlohmann::json{{"a", "0x1F"}}));
  EXPECT_FALSE(ParseBody("a: 1\n", false, &error).has_value());
  EXPECT_EQ(error, "invalid JSON in request body");
  EXPECT_FALSE(ParseBody("a: [1\n", true, &error).has_value());
  EXPECT_EQ(error.rfind("error converting YAML to JSON: ", 0), 0u) << error;
}

}  // namespace
}  // namespace fleetwave::kubesim
