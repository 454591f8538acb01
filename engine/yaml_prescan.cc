#include "engine/yaml_prescan.h"

#include <sstream>
#include <vector>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

namespace fleetwave::engine {
namespace {

// yaml-cpp 0.7's LoadAll calls Parser::HandleNextDocument until the scanner is empty. A
// document's node starts at the next token; when that token starts no node (a flow entry `,`
// after a complete node or at the start of the text: `,`, `!t ,`, `{a: 1} ,`, `- a\n,`,
// `"a"\n,`), SingleDocParser::HandleNode reports a null and consumes nothing, so every later
// call sees the same token and LoadAll appends empty documents until memory runs out. Such a
// document is exactly one null event and starts where the previous one started; the events
// show it whatever the token and however the text led to it, so this needs no second tokenizer
// to agree with yaml-cpp's. yaml-cpp after 0.9.0 stops LoadAll the same way (a document after
// which the next token has not moved); with such a release this pass could go. Found by the appset,
// config and yaml_json fuzz targets; pinned by yaml_prescan_test.cc, RunawayDocumentsAreRefused.
class RunawayDetector : public YAML::EventHandler {
 public:
  // Called after each document: true when this document consumed no token.
  bool Stuck() const { return stuck_; }
  const YAML::Mark& Start() const { return start_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    stuck_ = have_previous_ && previous_was_lone_null_ && mark.pos == start_.pos;
    have_previous_ = true;
    start_ = mark;
    events_ = 0;
    null_events_ = 0;
  }
  void OnDocumentEnd() override { previous_was_lone_null_ = events_ == 1 && null_events_ == 1; }
  void OnNull(const YAML::Mark&, YAML::anchor_t) override { ++events_, ++null_events_; }
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { ++events_; }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {
    ++events_;
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    ++events_;
  }
  void OnSequenceEnd() override { ++events_; }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    ++events_;
  }
  void OnMapEnd() override { ++events_; }
  void OnAnchor(const YAML::Mark&, const std::string&) override { ++events_; }

 private:
  bool have_previous_ = false;
  bool previous_was_lone_null_ = false;
  bool stuck_ = false;
  YAML::Mark start_;
  int events_ = 0;
  int null_events_ = 0;
};

std::string Unexpected(const std::string& text, const YAML::Mark& mark) {
  const auto pos = static_cast<std::size_t>(mark.pos);
  if (mark.pos >= 0 && pos < text.size() && text[pos] > ' ' && text[pos] < 0x7F)
    return "unexpected '" + std::string(1, text[pos]) + "': no YAML node can start here";
  return "unexpected text: no YAML node can start here";
}

}  // namespace

std::optional<YamlReadProblem> PrescanYaml(const std::string& text) {
  std::istringstream in(text);
  try {
    YAML::Parser parser(in);
    RunawayDetector detector;
    while (parser.HandleNextDocument(detector)) {
      if (detector.Stuck()) {
        const YAML::Mark& m = detector.Start();
        return YamlReadProblem{{m.line + 1, m.column + 1}, Unexpected(text, m)};
      }
    }
  } catch (const YAML::Exception& e) {
    return YamlReadProblem{{e.mark.line + 1, e.mark.column + 1}, e.msg};
  }
  return std::nullopt;
}

}  // namespace fleetwave::engine

namespace fleetwave::engine {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// One pass over the text; see PrescanYamlDepth.
class DepthScanner {
 public:
  DepthScanner(const std::string& text, std::size_t max_depth) : t_(text), max_(max_depth) {}

  std::optional<YamlReadProblem> Run() {
    std::size_t line_start = 0;
    int line = 1;
    while (line_start <= t_.size() && !problem_) {
      std::size_t end = t_.find('\n', line_start);
      if (end == std::string::npos) end = t_.size();
      Line(line_start, end, line);
      line_start = end + 1;
      ++line;
    }
    return problem_;
  }

 private:
  void Line(std::size_t b, std::size_t e, int line) {
    line_ = line;
    line_begin_ = b;
    std::size_t indent = 0;
    while (b + indent < e && t_[b + indent] == ' ') ++indent;
    std::size_t i = b + indent;
    const bool blank = i >= e || t_[i] == '\r' || t_[i] == '#';
    if (block_scalar_) {
      if (blank || static_cast<int>(indent) > block_indent_) return;
      block_scalar_ = false;
    }
    if (quote_ || flow_ > 0) {
      Scan(b, e);  // continues a quoted scalar or a flow collection
      return;
    }
    if (blank) return;
    if (t_.compare(i, 3, "---") == 0 || t_.compare(i, 3, "...") == 0) {
      indents_.clear();
      if (i + 3 >= e || IsBlank(t_[i + 3])) return;
    }
    Open(static_cast<int>(indent));
    block_indent_ = static_cast<int>(indent);
    // `- - - a` nests one sequence per dash; `? ` opens a complex key the same way.
    while (i < e && (t_[i] == '-' || t_[i] == '?') && (i + 1 == e || IsBlank(t_[i + 1]))) {
      ++i;
      while (i < e && IsBlank(t_[i])) ++i;
      if (i >= e || t_[i] == '#') return;
      Open(static_cast<int>(i - b));
    }
    Value(i, e);
  }

  // A node starting at `i` in block context: flow, quoted, block scalar, or plain (maybe a
  // key, then its value).
  void Value(std::size_t i, std::size_t e) {
    for (int guard = 0; guard < 2 && i < e; ++guard) {
      while (i < e && (t_[i] == '&' || t_[i] == '!')) {  // anchors and tags before a node
        while (i < e && !IsBlank(t_[i])) ++i;
        while (i < e && IsBlank(t_[i])) ++i;
      }
      if (i >= e || t_[i] == '#') return;
      const char c = t_[i];
      if (c == '[' || c == '{') {
        Scan(i, e);
        return;
      }
      if (c == '|' || c == '>') {
        block_scalar_ = true;
        return;
      }
      if (c == '"' || c == '\'') {
        Scan(i, e);
        if (quote_) return;
        return;  // a quoted key's value on the same line is rare enough to skip
      }
      // Plain: a key when ": " (or ":" at the end) follows; then its value.
      std::size_t k = i;
      while (k < e && !(t_[k] == ':' && (k + 1 == e || IsBlank(t_[k + 1]) || t_[k + 1] == '\r')) &&
             !(t_[k] == '#' && k > i && IsBlank(t_[k - 1])))
        ++k;
      if (k >= e || t_[k] != ':') return;
      i = k + 1;
      while (i < e && IsBlank(t_[i])) ++i;
    }
  }

  // Characters in flow context or inside quotes: brackets count, quotes and comments hide them.
  void Scan(std::size_t i, std::size_t e) {
    for (; i < e && !problem_; ++i) {
      const char c = t_[i];
      if (quote_ == '"') {
        if (c == '\\') {
          ++i;
        } else if (c == '"') {
          quote_ = 0;
        }
        continue;
      }
      if (quote_ == '\'') {
        if (c == '\'' && i + 1 < e && t_[i + 1] == '\'') {
          ++i;
        } else if (c == '\'') {
          quote_ = 0;
        }
        continue;
      }
      if (c == '#' && (i == line_begin_ || IsBlank(t_[i - 1]))) return;
      if ((c == '"' || c == '\'') && TokenStart(i)) {
        quote_ = c;
      } else if (c == '[' || c == '{') {
        ++flow_;
        Check(i);
      } else if ((c == ']' || c == '}') && flow_ > 0) {
        --flow_;
        if (flow_ == 0) return;  // the rest of the line is outside the collection
      }
    }
  }

  bool TokenStart(std::size_t i) const {
    std::size_t k = i;
    while (k > line_begin_ && IsBlank(t_[k - 1])) --k;
    if (k == line_begin_) return true;
    const char p = t_[k - 1];
    return p == '[' || p == '{' || p == ',' || p == ':' || p == '-' || p == '?';
  }

  void Open(int column) {
    while (!indents_.empty() && indents_.back() >= column) indents_.pop_back();
    indents_.push_back(column);
    Check(line_begin_ + static_cast<std::size_t>(column));
  }

  void Check(std::size_t at) {
    if (indents_.size() + flow_ <= max_ || problem_) return;
    problem_ =
        YamlReadProblem{{line_, static_cast<int>(at - line_begin_) + 1}, TooDeepMessage(max_)};
  }

  const std::string& t_;
  std::size_t max_;
  std::vector<int> indents_;
  std::size_t flow_ = 0;
  char quote_ = 0;
  bool block_scalar_ = false;
  int block_indent_ = 0;
  int line_ = 1;
  std::size_t line_begin_ = 0;
  std::optional<YamlReadProblem> problem_;
};

}  // namespace

std::string TooDeepMessage(std::size_t max_depth) {
  return "the document nests deeper than limits.maxDocumentDepth (" + std::to_string(max_depth) +
         " levels); refusing to read it";
}

std::optional<YamlReadProblem> PrescanYamlDepth(const std::string& text, std::size_t max_depth) {
  return DepthScanner(text, max_depth).Run();
}

std::optional<YamlReadProblem> PrescanJsonDepth(const std::string& text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false;
  SourcePos pos{1, 1};
  for (std::size_t i = 0; i < text.size(); ++i, ++pos.column) {
    const char c = text[i];
    if (c == '\n') {
      ++pos.line;
      pos.column = 0;
    } else if (in_string) {
      if (c == '\\') {
        ++i;
        ++pos.column;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return YamlReadProblem{pos, TooDeepMessage(max_depth)};
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

}  // namespace fleetwave::engine
