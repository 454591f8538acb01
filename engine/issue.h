// A problem found in a user's file, located precisely enough to fix it without guessing.
// Decoders collect every issue rather than stopping at the first one.
#pragma once

#include <string>
#include <vector>

namespace fleetwave::engine {

// 1-based line and column of a node in its source file; 0 when unknown.
struct SourcePos {
  int line = 0;
  int column = 0;
};

struct Issue {
  std::string file;     // as the user named it; may be empty for in-memory input
  SourcePos pos;        // where the offending node starts
  std::string path;     // dotted field path, e.g. spec.strategy.rollingSync.steps[1].maxUpdate
  std::string message;  // what is wrong, e.g. unsupported value "RollingUpdate" (...)
};

// "file:line:col: path: message", dropping the parts that are unknown.
std::string FormatIssue(const Issue& issue);

using Issues = std::vector<Issue>;

}  // namespace fleetwave::engine
