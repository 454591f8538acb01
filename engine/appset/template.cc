#include "engine/appset/template.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <variant>
#include <vector>

namespace fleetwave::engine {
namespace {

// What one template may cost: how deep its expressions nest and how many bytes it may build.
// Both come from InputLimits; the messages name the budget so a user knows what to change.
struct Budget {
  std::size_t max_depth;
  std::size_t max_bytes;       // what this string may still add to its document
  std::size_t document_bytes;  // the document's whole budget, for messages
};

std::string TooDeep(std::size_t max_depth) {
  return "template nests deeper than limits.maxTemplateDepth (" + std::to_string(max_depth) +
         " levels of parentheses and if blocks)";
}

std::string TooLarge(std::size_t max_bytes) {
  return "template output is larger than limits.maxApplicationBytes (" + std::to_string(max_bytes) +
         " bytes)";
}

// True when `d` converts to long long without undefined behaviour (false for NaN).
bool FitsLongLong(double d) { return d >= -9223372036854775808.0 && d < 9223372036854775808.0; }

// ---------------------------------------------------------------------------------------
// fasttemplate

void Flatten(const Json& value, const std::string& prefix,
             std::map<std::string, std::string>& out) {
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      Flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
    }
    return;
  }
  if (value.is_string()) {
    out[prefix] = value.get<std::string>();
  } else if (value.is_null()) {
    out[prefix] = "";
  } else {
    out[prefix] = value.dump();
  }
}

// Renders into `out`; returns an error when the output passes `max_bytes` (checked as it grows,
// so an over-budget text is never built).
std::string RenderFast(std::string_view text, const Json& params, std::size_t max_bytes,
                       std::string& out) {
  std::map<std::string, std::string> flat;
  Flatten(params, "", flat);
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t open = text.find("{{", pos);
    if (open == std::string_view::npos) break;
    const size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos) break;
    out.append(text.substr(pos, open - pos));
    std::string key(text.substr(open + 2, close - open - 2));
    key.erase(0, key.find_first_not_of(" \t"));
    key.erase(key.find_last_not_of(" \t") + 1);
    if (auto it = flat.find(key); it != flat.end()) {
      if (it->second.size() > max_bytes - std::min(max_bytes, out.size()))
        return TooLarge(max_bytes);
      out += it->second;
    } else {
      out.append(text.substr(open, close + 2 - open));  // unknown: left as written
    }
    if (out.size() > max_bytes) return TooLarge(max_bytes);
    pos = close + 2;
  }
  out.append(text.substr(std::min(pos, text.size())));
  if (out.size() > max_bytes) return TooLarge(max_bytes);
  return "";
}

// ---------------------------------------------------------------------------------------
// Go text/template subset: lexer

enum class Tok { kField, kDot, kIdent, kString, kNumber, kPipe, kLParen, kRParen, kEnd };

struct Token {
  Tok kind;
  std::string text;  // field path "a.b" for kField, value for literals, name for kIdent
};

bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string Lex(std::string_view s, std::vector<Token>& out) {
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '|') {
      out.push_back({Tok::kPipe, "|"});
      ++i;
    } else if (c == '(') {
      out.push_back({Tok::kLParen, "("});
      ++i;
    } else if (c == ')') {
      out.push_back({Tok::kRParen, ")"});
      ++i;
    } else if (c == '.') {
      std::string path;
      ++i;
      if (i >= s.size() || !IsIdentChar(s[i])) {
        out.push_back({Tok::kDot, "."});
        continue;
      }
      while (i < s.size() && (IsIdentChar(s[i]) || s[i] == '.')) path += s[i++];
      if (path.back() == '.') return "bad field path ." + path;
      out.push_back({Tok::kField, path});
    } else if (c == '"') {
      std::string v;
      ++i;
      bool closed = false;
      while (i < s.size()) {
        if (s[i] == '\\' && i + 1 < s.size()) {
          const char e = s[i + 1];
          v += e == 'n' ? '\n' : e == 't' ? '\t' : e;
          i += 2;
        } else if (s[i] == '"') {
          closed = true;
          ++i;
          break;
        } else {
          v += s[i++];
        }
      }
      if (!closed) return "unterminated quoted string";
      out.push_back({Tok::kString, v});
    } else if (c == '`') {
      const size_t end = s.find('`', i + 1);
      if (end == std::string_view::npos) return "unterminated raw string";
      out.push_back({Tok::kString, std::string(s.substr(i + 1, end - i - 1))});
      i = end + 1;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '-' && i + 1 < s.size() &&
                std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      std::string v(1, c);
      ++i;
      while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.'))
        v += s[i++];
      out.push_back({Tok::kNumber, v});
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::string v;
      while (i < s.size() && IsIdentChar(s[i])) v += s[i++];
      out.push_back({Tok::kIdent, v});
    } else if (c == '$') {
      return "unsupported template variable $";
    } else {
      return std::string("unexpected \"") + c + "\" in action";
    }
  }
  out.push_back({Tok::kEnd, ""});
  return "";
}

// ---------------------------------------------------------------------------------------
// Go text/template subset: syntax tree

struct Pipeline;

struct Operand {
  enum Kind { kField, kDot, kString, kNumber, kBool, kNil, kFunc, kSub } kind;
  std::string text;
  double number = 0;
  std::shared_ptr<Pipeline> sub;
};

Operand MakeOp(Operand::Kind kind, std::string text) {
  Operand op;
  op.kind = kind;
  op.text = std::move(text);
  return op;
}

using Command = std::vector<Operand>;

struct Pipeline {
  std::vector<Command> commands;
};

struct Node;
using NodeList = std::vector<Node>;

struct Node {
  enum Kind { kText, kAction, kIf } kind;
  std::string text;
  Pipeline pipe;
  NodeList then_nodes;
  NodeList else_nodes;
};

const std::vector<std::string>& SupportedFunctions() {
  static const std::vector<std::string> fns = {"index", "default",    "lower",
                                               "upper", "replace",    "trunc",
                                               "quote", "trimSuffix", "trimPrefix"};
  return fns;
}

class PipelineParser {
 public:
  // `depth` is how deeply the action already nests (its enclosing if blocks): parentheses add
  // to it, and past `max_depth` parsing stops with an error instead of recursing further.
  PipelineParser(const std::vector<Token>& toks, std::size_t depth, std::size_t max_depth)
      : toks_(toks), depth_(depth), max_depth_(max_depth) {}

  std::string Parse(Pipeline& out) {
    std::string err = ParsePipeline(out);
    if (err.empty() && toks_[pos_].kind != Tok::kEnd)
      err = "unexpected \"" + toks_[pos_].text + "\"";
    return err;
  }

 private:
  std::string ParsePipeline(Pipeline& out) {
    for (;;) {
      Command cmd;
      if (auto err = ParseCommand(cmd); !err.empty()) return err;
      if (cmd.empty()) return "missing value for command";
      out.commands.push_back(std::move(cmd));
      if (toks_[pos_].kind != Tok::kPipe) return "";
      ++pos_;
    }
  }

  std::string ParseCommand(Command& cmd) {
    for (;;) {
      const Token& t = toks_[pos_];
      Operand op;
      switch (t.kind) {
        case Tok::kField:
          op = MakeOp(Operand::kField, t.text);
          break;
        case Tok::kDot:
          op = MakeOp(Operand::kDot, ".");
          break;
        case Tok::kString:
          op = MakeOp(Operand::kString, t.text);
          break;
        case Tok::kNumber:
          op = MakeOp(Operand::kNumber, t.text);
          op.number = std::strtod(t.text.c_str(), nullptr);
          break;
        case Tok::kIdent:
          if (t.text == "true" || t.text == "false") {
            op = MakeOp(Operand::kBool, t.text);
          } else if (t.text == "nil") {
            op = MakeOp(Operand::kNil, t.text);
          } else if (std::find(SupportedFunctions().begin(), SupportedFunctions().end(), t.text) !=
                     SupportedFunctions().end()) {
            op = MakeOp(Operand::kFunc, t.text);
          } else {
            return "unsupported template function " + t.text;
          }
          break;
        case Tok::kLParen: {
          if (depth_ >= max_depth_) return TooDeep(max_depth_);
          ++pos_;
          op = MakeOp(Operand::kSub, "(");
          op.sub = std::make_shared<Pipeline>();
          ++depth_;
          std::string err = ParsePipeline(*op.sub);
          --depth_;
          if (!err.empty()) return err;
          if (toks_[pos_].kind != Tok::kRParen) return "unclosed left paren";
          break;
        }
        default:
          return "";
      }
      ++pos_;
      cmd.push_back(std::move(op));
    }
  }

  const std::vector<Token>& toks_;
  size_t pos_ = 0;
  std::size_t depth_;
  std::size_t max_depth_;
};

// Splits text into literal text and actions, then builds the if/else tree.
class TemplateParser {
 public:
  TemplateParser(std::string_view text, std::size_t max_depth)
      : text_(text), max_depth_(max_depth) {}

  std::string Parse(NodeList& out) {
    if (auto err = Split(); !err.empty()) return err;
    std::string terminator;
    if (auto err = ParseList(out, terminator); !err.empty()) return err;
    if (!terminator.empty()) return "unexpected {{" + terminator + "}}";
    return "";
  }

 private:
  struct Item {
    bool action;
    std::string text;
  };

  std::string Split() {
    size_t pos = 0;
    while (pos <= text_.size()) {
      const size_t open = text_.find("{{", pos);
      std::string literal(
          text_.substr(pos, open == std::string_view::npos ? std::string_view::npos : open - pos));
      if (open == std::string_view::npos) {
        items_.push_back({false, literal});
        break;
      }
      size_t body = open + 2;
      if (body + 1 < text_.size() && text_[body] == '-' &&
          std::isspace(static_cast<unsigned char>(text_[body + 1]))) {
        literal.erase(literal.find_last_not_of(" \t\r\n") + 1);
        body += 1;
      }
      items_.push_back({false, literal});
      const size_t close = text_.find("}}", body);
      if (close == std::string_view::npos) return "unclosed action";
      size_t end = close;
      bool trim_right = false;
      if (end > body && text_[end - 1] == '-' && end - 1 > body &&
          std::isspace(static_cast<unsigned char>(text_[end - 2]))) {
        trim_right = true;
        end -= 1;
      }
      std::string action(text_.substr(body, end - body));
      const auto first = action.find_first_not_of(" \t\r\n");
      const bool comment = first != std::string::npos && action.compare(first, 2, "/*") == 0;
      if (!comment) items_.push_back({true, action});
      pos = close + 2;
      if (trim_right) {
        while (pos < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos]))) ++pos;
      }
    }
    return "";
  }

  // Parses items until {{end}} or {{else...}}; `terminator` receives which ("" at the end).
  std::string ParseList(NodeList& out, std::string& terminator) {
    while (next_ < items_.size()) {
      const Item& item = items_[next_++];
      if (!item.action) {
        if (!item.text.empty()) out.push_back({Node::kText, item.text, {}, {}, {}});
        continue;
      }
      std::vector<Token> toks;
      if (auto err = Lex(item.text, toks); !err.empty()) return err;
      if (toks[0].kind == Tok::kIdent) {
        const std::string& kw = toks[0].text;
        if (kw == "end" || kw == "else") {
          terminator = kw;
          rest_ = std::vector<Token>(toks.begin() + 1, toks.end());
          return "";
        }
        if (kw == "if") {
          Node node{Node::kIf, "", {}, {}, {}};
          if (auto err = ParseIf(std::vector<Token>(toks.begin() + 1, toks.end()), node);
              !err.empty())
            return err;
          out.push_back(std::move(node));
          continue;
        }
        if (kw == "range" || kw == "with" || kw == "define" || kw == "template" || kw == "block" ||
            kw == "break" || kw == "continue") {
          return "unsupported template action " + kw;
        }
      }
      Node node{Node::kAction, "", {}, {}, {}};
      if (auto err = PipelineParser(toks, depth_, max_depth_).Parse(node.pipe); !err.empty())
        return err;
      out.push_back(std::move(node));
    }
    terminator.clear();
    return "";
  }

  // Every if (an `else if` too: it nests in the else branch) is one level deeper; past the
  // budget parsing stops instead of recursing further.
  std::string ParseIf(const std::vector<Token>& cond, Node& node) {
    if (depth_ >= max_depth_) return TooDeep(max_depth_);
    ++depth_;
    std::string err = ParseIfBody(cond, node);
    --depth_;
    return err;
  }

  std::string ParseIfBody(const std::vector<Token>& cond, Node& node) {
    if (cond.size() <= 1) return "missing condition in if";
    if (auto err = PipelineParser(cond, depth_, max_depth_).Parse(node.pipe); !err.empty())
      return err;
    std::string term;
    if (auto err = ParseList(node.then_nodes, term); !err.empty()) return err;
    if (term.empty()) return "unexpected EOF: missing {{end}}";
    if (term == "end") return "";
    // else, or else if
    if (rest_.size() > 1 && rest_[0].kind == Tok::kIdent && rest_[0].text == "if") {
      Node nested{Node::kIf, "", {}, {}, {}};
      if (auto err = ParseIf(std::vector<Token>(rest_.begin() + 1, rest_.end()), nested);
          !err.empty())
        return err;
      node.else_nodes.push_back(std::move(nested));
      return "";
    }
    if (auto err = ParseList(node.else_nodes, term); !err.empty()) return err;
    if (term != "end") return "unexpected EOF: missing {{end}}";
    return "";
  }

  std::string_view text_;
  std::size_t max_depth_;
  std::size_t depth_ = 0;
  std::vector<Item> items_;
  size_t next_ = 0;
  std::vector<Token> rest_;
};

// ---------------------------------------------------------------------------------------
// Go text/template subset: execution

class Executor {
 public:
  Executor(const Json& root, bool missing_key_error, const Budget& budget)
      : root_(root), missing_key_error_(missing_key_error), budget_(budget) {}

  // The parser already bounds the tree's depth; the executor counts again so that no tree,
  // however it was built, recurses past the budget. Every string it builds is checked against
  // the byte budget as soon as it exists, so an amplifying template stops before the next
  // doubling.
  std::string Run(const NodeList& nodes, std::string& out) {
    if (depth_ >= budget_.max_depth + kSlack) return TooDeep(budget_.max_depth);
    ++depth_;
    std::string err = RunList(nodes, out);
    --depth_;
    return err;
  }

 private:
  std::string RunList(const NodeList& nodes, std::string& out) {
    for (const Node& n : nodes) {
      if (n.kind == Node::kText) {
        out += n.text;
      } else if (n.kind == Node::kAction) {
        Json v;
        if (auto err = Eval(n.pipe, v); !err.empty()) return err;
        out += Print(v);
      } else {
        Json v;
        if (auto err = Eval(n.pipe, v); !err.empty()) return err;
        if (auto err = Run(Truthy(v) ? n.then_nodes : n.else_nodes, out); !err.empty()) return err;
      }
      if (out.size() > budget_.max_bytes) return TooLarge(budget_.document_bytes);
    }
    return "";
  }

  static bool Truthy(const Json& v) {
    if (v.is_null()) return false;
    if (v.is_boolean()) return v.get<bool>();
    if (v.is_number()) return v.get<double>() != 0;
    // nlohmann's empty() is false for every string, so strings are checked by length.
    if (v.is_string()) return !v.get_ref<const std::string&>().empty();
    if (v.is_array() || v.is_object()) return !v.empty();
    return true;
  }

  static std::string Print(const Json& v) {
    if (v.is_null()) return "<no value>";
    if (v.is_string()) return v.get<std::string>();
    if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
    if (v.is_number_integer()) return std::to_string(v.get<long long>());
    if (v.is_number_float()) {
      const double d = v.get<double>();
      char buf[64];
      if (std::floor(d) == d && std::fabs(d) < 1e21) {
        std::snprintf(buf, sizeof buf, "%.0f", d);
      } else {
        std::snprintf(buf, sizeof buf, "%g", d);
      }
      return buf;
    }
    if (v.is_object()) {
      std::string s = "map[";
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        s += (first ? "" : " ") + it.key() + ":" + Print(it.value());
        first = false;
      }
      return s + "]";
    }
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + Print(v[i]);
    return s + "]";
  }

  static std::string Str(const Json& v) { return v.is_string() ? v.get<std::string>() : Print(v); }

  std::string Field(const std::string& path, Json& out) {
    const Json* cur = &root_;
    size_t start = 0;
    while (start <= path.size()) {
      const size_t dot = path.find('.', start);
      const std::string key =
          path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      if (cur->is_null()) {
        out = nullptr;
        return "";
      }
      if (!cur->is_object()) return "can't evaluate field " + key + " in type " + TypeName(*cur);
      auto it = cur->find(key);
      if (it == cur->end()) {
        if (missing_key_error_) return "map has no entry for key \"" + key + "\"";
        out = nullptr;
        return "";
      }
      cur = &*it;
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    out = *cur;
    return "";
  }

  static std::string TypeName(const Json& v) {
    if (v.is_string()) return "string";
    if (v.is_boolean()) return "bool";
    if (v.is_number()) return "float64";
    if (v.is_array()) return "[]interface {}";
    return "interface {}";
  }

  std::string EvalOperand(const Operand& op, Json& out) {
    switch (op.kind) {
      case Operand::kField:
        return Field(op.text, out);
      case Operand::kDot:
        out = root_;
        return "";
      case Operand::kString:
        out = op.text;
        return "";
      case Operand::kNumber:
        // An integer literal beyond long long (`trunc 44444444444444444444 .x`) stays a float:
        // converting it is undefined behaviour. Found by template_fuzz; pinned by
        // template_test.cc, TemplateNumbers.OutOfRangeIsAnErrorNotUndefinedBehaviour.
        if (op.text.find('.') == std::string::npos && FitsLongLong(op.number)) {
          out = static_cast<long long>(op.number);
        } else {
          out = op.number;
        }
        return "";
      case Operand::kBool:
        out = op.text == "true";
        return "";
      case Operand::kNil:
        out = nullptr;
        return "";
      case Operand::kSub:
        return Eval(*op.sub, out);
      case Operand::kFunc:
        return Call(op.text, {}, out);
    }
    return "";
  }

  std::string Eval(const Pipeline& pipe, Json& out) {
    if (depth_ >= budget_.max_depth + kSlack) return TooDeep(budget_.max_depth);
    ++depth_;
    std::string err = EvalPipeline(pipe, out);
    --depth_;
    return err;
  }

  std::string EvalPipeline(const Pipeline& pipe, Json& out) {
    std::optional<Json> prev;
    for (const Command& cmd : pipe.commands) {
      Json value;
      if (cmd[0].kind == Operand::kFunc) {
        std::vector<Json> args;
        for (size_t i = 1; i < cmd.size(); ++i) {
          Json a;
          if (auto err = EvalOperand(cmd[i], a); !err.empty()) return err;
          args.push_back(std::move(a));
        }
        if (prev) args.push_back(*prev);
        if (auto err = Call(cmd[0].text, args, value); !err.empty()) return err;
        if (value.is_string() && value.get_ref<const std::string&>().size() > budget_.max_bytes)
          return TooLarge(budget_.document_bytes);
      } else {
        if (cmd.size() > 1 || prev) return "can't give argument to non-function";
        if (auto err = EvalOperand(cmd[0], value); !err.empty()) return err;
      }
      prev = std::move(value);
    }
    out = prev ? *prev : Json();
    return "";
  }

  static std::string Arity(const std::string& fn, size_t want, size_t got) {
    return "wrong number of args for " + fn + ": want " + std::to_string(want) + " got " +
           std::to_string(got);
  }

  static bool Empty(const Json& v) { return !Truthy(v); }

  std::string Call(const std::string& fn, const std::vector<Json>& a, Json& out) {
    auto need = [&](size_t n) { return a.size() == n ? std::string() : Arity(fn, n, a.size()); };
    if (fn == "lower" || fn == "upper") {
      if (auto e = need(1); !e.empty()) return e;
      std::string s = Str(a[0]);
      for (char& c : s)
        c = fn == "lower" ? std::tolower(static_cast<unsigned char>(c))
                          : std::toupper(static_cast<unsigned char>(c));
      out = s;
    } else if (fn == "default") {
      if (a.empty() || a.size() > 2) return Arity(fn, 2, a.size());
      out = (a.size() == 1 || Empty(a[1])) ? a[0] : a[1];
    } else if (fn == "replace") {
      if (auto e = need(3); !e.empty()) return e;
      const std::string from = Str(a[0]), to = Str(a[1]);
      std::string s = Str(a[2]);
      if (!from.empty()) {
        // The result's size before building it: a nested replace grows geometrically.
        std::size_t size = s.size();
        for (size_t at = s.find(from); at != std::string::npos;
             at = s.find(from, at + from.size())) {
          size = size - from.size() + to.size();
          if (size > budget_.max_bytes) return TooLarge(budget_.document_bytes);
        }
        std::string r;
        size_t pos = 0, hit;
        while ((hit = s.find(from, pos)) != std::string::npos) {
          r += s.substr(pos, hit - pos) + to;
          pos = hit + from.size();
        }
        s = r + s.substr(pos);
      }
      out = s;
    } else if (fn == "trunc") {
      if (auto e = need(2); !e.empty()) return e;
      if (!a[0].is_number()) return "trunc: length must be a number";
      if (a[0].is_number_float() && !FitsLongLong(a[0].get<double>()))
        return "trunc: length out of range";
      const long long n = a[0].get<long long>();
      const std::string s = Str(a[1]);
      if (n >= 0) {
        out = s.substr(0, std::min<size_t>(s.size(), static_cast<size_t>(n)));
      } else {
        // 0 - n in size_t: -n overflows for the smallest long long.
        const size_t keep = std::min<size_t>(s.size(), size_t{0} - static_cast<size_t>(n));
        out = s.substr(s.size() - keep);
      }
    } else if (fn == "quote") {
      std::string r;
      for (size_t i = 0; i < a.size(); ++i) {
        if (a[i].is_null()) continue;
        if (!r.empty()) r += " ";
        r += "\"";
        for (char c : Str(a[i])) {
          if (c == '"' || c == '\\') r += '\\';
          r += c;
        }
        r += "\"";
      }
      out = r;
    } else if (fn == "trimSuffix" || fn == "trimPrefix") {
      if (auto e = need(2); !e.empty()) return e;
      const std::string affix = Str(a[0]);
      std::string s = Str(a[1]);
      if (fn == "trimSuffix" && s.size() >= affix.size() &&
          s.compare(s.size() - affix.size(), affix.size(), affix) == 0) {
        s.erase(s.size() - affix.size());
      } else if (fn == "trimPrefix" && s.compare(0, affix.size(), affix) == 0) {
        s.erase(0, affix.size());
      }
      out = s;
    } else if (fn == "index") {
      if (a.empty()) return Arity(fn, 2, 0);
      Json cur = a[0];
      for (size_t i = 1; i < a.size(); ++i) {
        if (cur.is_object() && a[i].is_string()) {
          auto it = cur.find(a[i].get<std::string>());
          cur = it == cur.end() ? Json() : *it;
        } else if (cur.is_array() && a[i].is_number_integer()) {
          const long long k = a[i].get<long long>();
          if (k < 0 || static_cast<size_t>(k) >= cur.size())
            return "index out of range: " + std::to_string(k);
          cur = Json(cur[static_cast<size_t>(k)]);
        } else if (cur.is_null()) {
          return "index of untyped nil";
        } else {
          return "can't index item of type " + TypeName(cur);
        }
      }
      out = cur;
    } else {
      return "unsupported template function " + fn;
    }
    return "";
  }

  const Json& root_;
  bool missing_key_error_;
  // The executor's count includes the top-level list and the action's own pipeline, which the
  // parser's does not: a tree the parser accepted always runs.
  static constexpr std::size_t kSlack = 2;
  Budget budget_;
  std::size_t depth_ = 0;
};

// Renders one string within `budget`.
TemplateResult RenderWithin(std::string_view text, const Json& params,
                            const TemplateOptions& options, const Budget& budget) {
  TemplateResult r;
  std::string out;
  if (!options.go_template) {
    if (RenderFast(text, params, budget.max_bytes, out).empty()) {
      r.text = std::move(out);
    } else {
      r.error = InvalidInputError("", TooLarge(budget.document_bytes));
    }
    return r;
  }
  if (text.find("{{") == std::string_view::npos) {
    if (text.size() > budget.max_bytes) {
      r.error = InvalidInputError("", TooLarge(budget.document_bytes));
    } else {
      r.text = std::string(text);
    }
    return r;
  }
  NodeList nodes;
  std::string error = TemplateParser(text, budget.max_depth).Parse(nodes);
  if (error.empty()) error = Executor(params, options.missing_key_error, budget).Run(nodes, out);
  if (error.empty()) {
    r.text = std::move(out);
  } else {
    r.error = InvalidInputError("", std::move(error));
  }
  return r;
}

}  // namespace

std::optional<std::string> CheckTemplate(std::string_view text, const TemplateOptions& options,
                                         const InputLimits& limits) {
  if (!options.go_template) return std::nullopt;
  NodeList nodes;
  std::string error = TemplateParser(text, limits.max_template_depth).Parse(nodes);
  if (error.empty()) return std::nullopt;
  return error;
}

TemplateResult RenderTemplate(std::string_view text, const Json& params,
                              const TemplateOptions& options, const InputLimits& limits) {
  return RenderWithin(
      text, params, options,
      {limits.max_template_depth, limits.max_application_bytes, limits.max_application_bytes});
}

// The document's strings share one byte budget (with its keys): the rendered document is what
// becomes one Application.
RenderedDocument RenderTemplateDocument(const Json& in, const Json& params,
                                        const TemplateOptions& options, const InputLimits& limits) {
  RenderedDocument result;
  std::size_t used = 0;
  const std::size_t limit = limits.max_application_bytes;
  const auto spend = [&](std::size_t n) {
    used += n;
    return used <= limit;
  };
  const auto too_large = [&](const std::string& path) {
    result.error = InvalidInputError(path, TooLarge(limit));
    return false;
  };
  std::function<bool(const Json&, Json&, const std::string&)> walk = [&](const Json& src, Json& dst,
                                                                         const std::string& path) {
    if (src.is_object()) {
      dst = Json::object();
      for (auto it = src.begin(); it != src.end(); ++it) {
        const std::string sub = path.empty() ? it.key() : path + "." + it.key();
        if (!spend(it.key().size() + 4)) return too_large(sub);
        if (!walk(it.value(), dst[it.key()], sub)) return false;
      }
    } else if (src.is_array()) {
      dst = Json::array();
      for (size_t i = 0; i < src.size(); ++i) {
        dst.push_back(Json());
        if (!walk(src[i], dst.back(), path + "[" + std::to_string(i) + "]")) return false;
      }
    } else if (src.is_string()) {
      const Budget budget{limits.max_template_depth, limit - std::min(limit, used), limit};
      TemplateResult r = RenderWithin(src.get_ref<const std::string&>(), params, options, budget);
      if (!r.ok()) {
        result.error = InvalidInputError(path, r.error->message);
        return false;
      }
      if (!spend(r.text->size() + 2)) return too_large(path);
      dst = std::move(*r.text);
    } else {
      dst = src;
    }
    return spend(1) || too_large(path);
  };
  Json out;
  if (walk(in, out, "")) result.document = std::move(out);
  return result;
}

}  // namespace fleetwave::engine
