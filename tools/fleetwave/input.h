// The one read-and-parse step for every file a user names on the command line: a path or
// "-" for standard input, YAML or JSON, any number of documents, source positions kept.
#pragma once

#include <optional>
#include <string>

#include "engine/yaml_json.h"

namespace fleetwave::cli {

// The name a file goes by in messages: the path as written, "<stdin>" for "-".
std::string InputName(const std::string& path);

// Reads a whole file, or standard input for "-". On failure returns nullopt and sets `*error`
// to "<path>: <reason>".
std::optional<std::string> ReadInput(const std::string& path, std::string* error);

// Reads and parses a file. A read failure is one issue with the reason ("<path>: No such file
// or directory"); syntax errors are issues with their position, naming the file as
// InputName() does.
engine::LoadedDocuments ReadDocuments(const std::string& path);

}  // namespace fleetwave::cli
