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
