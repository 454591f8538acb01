#include "engine/issue.h"

#include <cstddef>

namespace fleetwave::engine {
namespace {

// Issues quote input (a key as the field path, a value in the message): a line of a hostile
// file, or of a file a symlink led to, must not reach the log or the API whole. Each quoted
// run and the path keep at most this many characters, marked as cut; control characters
// (a line break inside a quoted key) become spaces.
constexpr std::size_t kMaxExcerpt = 80;
constexpr const char* kCut = "...(cut)";

void AppendExcerpt(std::string& out, const std::string& text, std::size_t begin, std::size_t end) {
  const std::size_t keep = end - begin > kMaxExcerpt ? kMaxExcerpt : end - begin;
  for (std::size_t i = begin; i < begin + keep; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    out += c < 0x20 ? ' ' : text[i];
  }
  if (keep < end - begin) out += kCut;
}

// The message with each "..." run cut to an excerpt (an unclosed quote runs to the end).
std::string CutQuotes(const std::string& message) {
  std::string out;
  std::size_t i = 0;
  while (i < message.size()) {
    const std::size_t open = message.find('"', i);
    if (open == std::string::npos) {
      out.append(message, i, std::string::npos);  // fleetwave's own words: never cut
      break;
    }
    out.append(message, i, open + 1 - i);
    std::size_t close = message.find('"', open + 1);
    if (close == std::string::npos) close = message.size();
    AppendExcerpt(out, message, open + 1, close);
    if (close < message.size()) out += '"';
    i = close + 1;
  }
  return out;
}

}  // namespace

std::string FormatIssue(const Issue& issue) {
  std::string out;
  if (!issue.file.empty()) {
    out += issue.file;
    if (issue.pos.line > 0) {
      out += ":" + std::to_string(issue.pos.line) + ":" + std::to_string(issue.pos.column);
    }
    out += ": ";
  }
  if (!issue.path.empty()) {
    AppendExcerpt(out, issue.path, 0, issue.path.size());
    out += ": ";
  }
  out += CutQuotes(issue.message);
  return out;
}

}  // namespace fleetwave::engine
