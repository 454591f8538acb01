// Decoding request bodies: JSON, or YAML (kubectl sends apply configurations as
// application/apply-patch+yaml). YAML scalars resolve by the YAML 1.2 core schema. Pure.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace fleetwave::kubesim {

// Parses `text` as JSON, falling back to YAML when `allow_yaml`. nullopt + `error` on failure.
std::optional<nlohmann::json> ParseBody(const std::string& text, bool allow_yaml,
                                        std::string* error);

}  // namespace fleetwave::kubesim
