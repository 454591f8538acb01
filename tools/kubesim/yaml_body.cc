#include "tools/kubesim/yaml_body.h"

#include <yaml-cpp/yaml.h>

#include "engine/yaml_json.h"

namespace fleetwave::kubesim {

std::optional<nlohmann::json> ParseBody(const std::string& text, bool allow_yaml,
                                        std::string* error) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_discarded()) return j;
  if (!allow_yaml) {
    *error = "invalid JSON in request body";
    return std::nullopt;
  }
  try {
    // The engine's conversion, so a manifest means the same to kubesim as to fleetwave.
    return engine::YamlToJson(YAML::Load(text));
  } catch (const YAML::Exception& e) {
    *error = std::string("error converting YAML to JSON: ") + e.what();
    return std::nullopt;
  }
}

}  // namespace fleetwave::kubesim
