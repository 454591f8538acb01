// Bridges between the two document models the engine decodes from. Kubernetes objects are
// YAML or JSON on the wire; yaml-cpp reads both (JSON is YAML) and keeps source positions,
// nlohmann::json is the value model the engine computes with and prints.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "engine/input_limits.h"
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

// Parses a multi-document YAML (or a JSON) text. `file` names the source in issues. A text
// nesting deeper than limits.max_document_depth is an issue at the position where it does,
// found before yaml-cpp (which recurses per level) reads it.
LoadedDocuments LoadYamlDocuments(const std::string& text, const std::string& file,
                                  const InputLimits& limits = InputLimits{});

// Parses one JSON text; nullopt with an issue (position, message) when it is not JSON or
// nests deeper than limits.max_document_depth (checked before nlohmann::json builds it).
std::optional<Json> ParseJsonDocument(const std::string& text, const std::string& file,
                                      Issues& issues, const InputLimits& limits = InputLimits{});

}  // namespace fleetwave::engine
