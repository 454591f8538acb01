#include "engine/issue.h"

namespace fleetwave::engine {

std::string FormatIssue(const Issue& issue) {
  std::string out;
  if (!issue.file.empty()) {
    out += issue.file;
    if (issue.pos.line > 0) {
      out += ":" + std::to_string(issue.pos.line) + ":" + std::to_string(issue.pos.column);
    }
    out += ": ";
  }
  if (!issue.path.empty()) out += issue.path + ": ";
  out += issue.message;
  return out;
}

}  // namespace fleetwave::engine
