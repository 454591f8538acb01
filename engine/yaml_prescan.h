// The read step's guard against yaml-cpp 0.7 looping forever: runs yaml-cpp's own scanner and
// parser over a text without building nodes, and says whether loading it would end.
#pragma once

#include <optional>
#include <string>

#include "engine/issue.h"

namespace fleetwave::engine {

struct YamlReadProblem {
  SourcePos pos;  // 1-based
  std::string message;
};

// nullopt when YAML::LoadAll(text) ends; otherwise its syntax error, or where it would loop.
std::optional<YamlReadProblem> PrescanYaml(const std::string& text);

}  // namespace fleetwave::engine

namespace fleetwave::engine {

// The nesting of a YAML (or JSON) text, estimated from its characters alone, before yaml-cpp
// (whose parser recurses once per level) sees it: block indentation levels, `- ` entries and
// flow `[`/`{` brackets outside quotes, comments and block scalars. Returns where the text
// first nests deeper than `max_depth`, or nullopt. Never recurses, so a text of 100,000 `[`
// costs one pass. An estimate: the exact depth is checked again on the loaded tree.
std::optional<YamlReadProblem> PrescanYamlDepth(const std::string& text, std::size_t max_depth);

// The same for a JSON text (brackets outside strings): exact, so nlohmann::json, whose
// documents every later step walks recursively, never holds a deeper one.
std::optional<YamlReadProblem> PrescanJsonDepth(const std::string& text, std::size_t max_depth);

// "the document nests deeper than limits.maxDocumentDepth (N levels)"
std::string TooDeepMessage(std::size_t max_depth);

}  // namespace fleetwave::engine
