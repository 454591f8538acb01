// Bridges between the two document models the engine decodes from. Kubernetes objects are
// YAML or JSON on the wire; yaml-cpp reads both (JSON is YAML) and keeps source positions,
// nlohmann::json is the value model the engine computes with and prints.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "engine/issue.h"

namespace fleetwave::engine {

using Json = nlohmann::json;

// Converts a YAML node to JSON, resolving plain scalars by the YAML 1.2 core schema
// (null, bool, int, float, else string); quoted scalars stay strings.
Json YamlToJson(const YAML::Node& node);

// Serialises JSON as block YAML, quoting strings that would otherwise read back as
// another type.
std::string JsonToYaml(const Json& value);

// 1-based position of a node (yaml-cpp marks are 0-based).
SourcePos PosOf(const YAML::Node& node);

struct LoadedDocuments {
  std::vector<YAML::Node> documents;  // empty documents are dropped
  Issues issues;                      // syntax errors, with position
};

// Parses a multi-document YAML (or a JSON) text. `file` names the source in issues.
LoadedDocuments LoadYamlDocuments(const std::string& text, const std::string& file);

}  // namespace fleetwave::engine
