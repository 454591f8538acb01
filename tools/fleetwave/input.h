// The one read-and-parse step for every file a user names on the command line or the daemon
// reads: a path or "-" for standard input, YAML or JSON, any number of documents, source
// positions kept. Every read is bounded by InputLimits::max_file_bytes: a file over it is
// refused before it is read whole (its size from fstat, then a read of at most the limit).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "engine/input_limits.h"
#include "engine/yaml_json.h"

namespace fleetwave::cli {

// The name a file goes by in messages: the path as written, "<stdin>" for "-".
std::string InputName(const std::string& path);

struct ReadOptions {
  std::size_t max_bytes = engine::InputLimits{}.max_file_bytes;
  // The daemon's directory: refuse anything but a regular file (a fifo would block the read,
  // a device never end) and a symlink as the last component (it was resolved and checked).
  bool regular_only = false;
  std::string name;            // the name in messages; empty = InputName(path)
  engine::InputLimits limits;  // max_document_depth for the parse (max_bytes above for the read)
};

// Reads a whole file, or standard input for "-". On failure returns nullopt and sets `*error`
// to "<name>: <reason>".
std::optional<std::string> ReadInput(const std::string& path, std::string* error,
                                     const ReadOptions& options = {});

// Reads and parses a file. A read failure is one issue with the reason ("<path>: No such file
// or directory"); syntax errors are issues with their position, naming the file as
// InputName() (or options.name) does.
engine::LoadedDocuments ReadDocuments(const std::string& path, const ReadOptions& options = {});

}  // namespace fleetwave::cli
