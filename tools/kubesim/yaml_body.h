// Decoding request bodies: JSON, or YAML (kubectl sends apply configurations as
// application/apply-patch+yaml). YAML goes through the engine's YamlToJson, the one
// conversion fleetwave has: plain scalars resolve by the YAML 1.2 core schema, so `0x1F` is
// 31 and `0o17` is 15, while YAML 1.1 words (`yes`, `on`) and timestamps stay strings.
// kubectl itself converts YAML to JSON before sending anything but server-side apply, and
// quotes such strings when it prints YAML, so the difference from a real API server (whose
// YAML 1.1 decoder reads `yes` as true) shows only in hand-written apply-patch bodies. Pure.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace fleetwave::kubesim {

// Parses `text` as JSON, falling back to YAML when `allow_yaml`. nullopt + `error` on failure.
std::optional<nlohmann::json> ParseBody(const std::string& text, bool allow_yaml,
                                        std::string* error);

}  // namespace fleetwave::kubesim
