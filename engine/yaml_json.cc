#include "engine/yaml_json.h"

#include "engine/yaml_prescan.h"

#include <utility>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace fleetwave::engine {
namespace {

bool IsNullScalar(const std::string& s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

bool ParseBool(const std::string& s, bool& out) {
  if (s == "true" || s == "True" || s == "TRUE") return out = true, true;
  if (s == "false" || s == "False" || s == "FALSE") return out = false, true;
  return false;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Hand-written matchers instead of std::regex: every scalar of every input passes here, and
// regex matching dominated decoding time for large Application lists.
bool AllOf(const std::string& s, size_t from, bool (*pred)(char)) {
  if (from >= s.size()) return false;
  for (size_t i = from; i < s.size(); ++i) {
    if (!pred(s[i])) return false;
  }
  return true;
}

bool ParseInt(const std::string& s, long long& out) {
  if (s.empty() || !(IsDigit(s[0]) || s[0] == '-' || s[0] == '+')) return false;
  int base = 10;
  size_t digits = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (AllOf(s, digits, IsDigit)) {
    base = 10;
  } else if (s.size() > 2 && s[0] == '0' && s[1] == 'x' && AllOf(s, 2, [](char c) {
               return std::isxdigit(static_cast<unsigned char>(c)) != 0;
             })) {
    base = 16;
    digits = 2;
  } else if (s.size() > 2 && s[0] == '0' && s[1] == 'o' &&
             AllOf(s, 2, [](char c) { return c >= '0' && c <= '7'; })) {
    base = 8;
    digits = 2;
  } else {
    return false;
  }
  errno = 0;
  out = std::strtoll(s.c_str() + (base == 10 ? 0 : digits), nullptr, base);
  return errno == 0;
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?, and the YAML infinities.
bool ParseFloat(const std::string& s, double& out) {
  if (s == ".inf" || s == ".Inf" || s == "+.inf") return out = HUGE_VAL, true;
  if (s == "-.inf" || s == "-.Inf") return out = -HUGE_VAL, true;
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  size_t int_digits = 0, frac_digits = 0;
  while (i < s.size() && IsDigit(s[i])) ++i, ++int_digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && IsDigit(s[i])) ++i, ++frac_digits;
  }
  if (int_digits == 0 && frac_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && IsDigit(s[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  if (i != s.size()) return false;
  out = std::strtod(s.c_str(), nullptr);
  return true;
}

// YAML 1.1 readers (go-yaml v2, PyYAML) take these as booleans.
bool IsYaml11Bool(const std::string& s) {
  static const char* const kWords[] = {"y",  "Y",  "yes", "Yes", "YES", "n",   "N",   "no",
                                       "No", "NO", "on",  "On",  "ON",  "off", "Off", "OFF"};
  for (const char* w : kWords) {
    if (s == w) return true;
  }
  return false;
}

// YAML 1.1 readers also resolve plain dates and timestamps ("2026-03-01T12:00:00Z").
bool LooksLikeTimestamp(const std::string& s) {
  return s.size() >= 10 && IsDigit(s[0]) && IsDigit(s[1]) && IsDigit(s[2]) && IsDigit(s[3]) &&
         s[4] == '-' && IsDigit(s[5]) && IsDigit(s[6]) && s[7] == '-' && IsDigit(s[8]) &&
         IsDigit(s[9]);
}

// yaml-cpp's emitter writes a string holding a control character plain (a carriage return
// from a flow sequence, `[a\r, b]`, comes out as `- a\r` and reads back as "a"); double quotes
// escape them. Found by yaml_json_fuzz; pinned by yaml_json_test.cc,
// ControlCharactersRoundTrip.
bool HasControlCharacter(const std::string& s) {
  for (const char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) return true;
  }
  return false;
}

// A string that would resolve to something else when written plain must be quoted.
bool NeedsQuotes(const std::string& s) {
  long long i;
  double d;
  bool b;
  return IsNullScalar(s) || ParseBool(s, b) || ParseInt(s, i) || ParseFloat(s, d) ||
         IsYaml11Bool(s) || LooksLikeTimestamp(s) || HasControlCharacter(s);
}

void Emit(YAML::Emitter& out, const Json& v) {
  switch (v.type()) {
    case Json::value_t::object:
      if (v.empty()) out << YAML::Flow;  // "{}" inline rather than on a line of its own
      out << YAML::BeginMap;
      for (auto it = v.begin(); it != v.end(); ++it) {
        out << YAML::Key << it.key() << YAML::Value;
        Emit(out, it.value());
      }
      out << YAML::EndMap;
      break;
    case Json::value_t::array:
      if (v.empty()) out << YAML::Flow;
      out << YAML::BeginSeq;
      for (const auto& e : v) Emit(out, e);
      out << YAML::EndSeq;
      break;
    case Json::value_t::string: {
      const auto& s = v.get_ref<const std::string&>();
      if (NeedsQuotes(s)) out << YAML::DoubleQuoted;
      out << s;
      break;
    }
    case Json::value_t::boolean:
      out << v.get<bool>();
      break;
    case Json::value_t::number_integer:
      out << v.get<long long>();
      break;
    case Json::value_t::number_unsigned:
      out << v.get<unsigned long long>();
      break;
    case Json::value_t::number_float: {
      // JSON has no infinities (dump() writes them as null), but YamlToJson reads `.inf`:
      // write YAML's spelling so the value reads back as itself. Found by yaml_json_fuzz;
      // pinned by yaml_json_test.cc, InfinitiesRoundTrip.
      const double d = v.get<double>();
      if (std::isinf(d)) {
        out << (d > 0 ? ".inf" : "-.inf");
      } else if (std::isnan(d)) {
        out << ".nan";
      } else {
        out << v.dump();
      }
      break;
    }
    default:
      out << YAML::Null;
  }
}

}  // namespace

Json YamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      Json obj = Json::object();
      for (const auto& kv : node) obj[kv.first.Scalar()] = YamlToJson(kv.second);
      return obj;
    }
    case YAML::NodeType::Sequence: {
      Json arr = Json::array();
      for (const auto& e : node) arr.push_back(YamlToJson(e));
      return arr;
    }
    case YAML::NodeType::Scalar: {
      const std::string& s = node.Scalar();
      if (node.Tag() == "!") return s;  // quoted: always a string
      if (node.Tag() == "tag:yaml.org,2002:str" || node.Tag() == "!!str") return s;
      if (IsNullScalar(s)) return nullptr;
      bool b;
      if (ParseBool(s, b)) return b;
      long long i;
      if (ParseInt(s, i)) return i;
      double d;
      if (ParseFloat(s, d)) return d;
      return s;
    }
    default:
      return nullptr;
  }
}

std::string JsonToYaml(const Json& value) {
  YAML::Emitter out;
  out.SetIndent(2);
  out.SetSeqFormat(YAML::Block);
  out.SetMapFormat(YAML::Block);
  Emit(out, value);
  std::string text = out.c_str();
  if (text.empty() || text.back() != '\n') text += '\n';
  return text;
}

SourcePos PosOf(const YAML::Node& node) {
  const YAML::Mark m = node.Mark();
  if (m.line < 0) return {};
  return {m.line + 1, m.column + 1};
}

namespace {

// Aliases let a few hundred bytes stand for a billion nodes ("billion laughs"), or one long
// scalar stand for gigabytes; every reader walks the expanded tree (YamlToJson copies it), so
// such a document would exhaust memory. Weighs the document as expanded, aliases each time they
// are used: one per node plus the bytes of each scalar, and stops as soon as `budget` is spent.
// Found by the fuzz targets; pinned by yaml_json_test.cc, AliasBombs.
// An alias inside its own anchor (`a: &a [*a]`) makes yaml-cpp build a cycle, and any
// recursion over the tree overflows the stack; so does absurd nesting. No real manifest nests
// this deep (pinned by yaml_json_test.cc, NestingIsBounded; found by config_fuzz). The text
// was pre-scanned for depth (PrescanYamlDepth); this is the exact count, aliases included.

enum class Expansion { kWithin, kTooLarge, kTooDeep };

Expansion ExpandsWithin(const YAML::Node& node, std::size_t* budget, std::size_t depth,
                        std::size_t max_depth) {
  if (depth > max_depth) return Expansion::kTooDeep;
  std::size_t weight = 1;
  if (node.IsScalar()) weight += node.Scalar().size();
  if (*budget < weight) return Expansion::kTooLarge;
  *budget -= weight;
  auto visit = [&](const YAML::Node& child) {
    return ExpandsWithin(child, budget, depth + 1, max_depth);
  };
  if (node.IsSequence()) {
    for (const YAML::Node& child : node)
      if (Expansion e = visit(child); e != Expansion::kWithin) return e;
  } else if (node.IsMap()) {
    for (const auto& kv : node) {
      if (Expansion e = visit(kv.first); e != Expansion::kWithin) return e;
      if (Expansion e = visit(kv.second); e != Expansion::kWithin) return e;
    }
  }
  return Expansion::kWithin;
}

// Without aliases a document weighs at most about its text's size (every node and every scalar
// byte is written out); on top of that, aliases may add this much. Far above any real use of
// anchors, and small enough that every reader of the expanded tree (decoders that collect an
// issue per node, YamlToJson, the YAML printer) stays within memory even under ASan: counting
// nodes alone (a million, then 100,000) still let one long aliased scalar take the fuzz
// targets to 2 GB.
constexpr std::size_t kMaxAliasedWeight = 1000000;

// The offset of the first byte that does not belong to a well-formed UTF-8 sequence (no
// overlong forms, no surrogates, nothing above U+10FFFF) or is a control character YAML does
// not allow in its text (NUL, for one: found by yaml_json_fuzz), or npos. YAML text must be UTF-8;
// yaml-cpp would carry other bytes through, and the YAML fleetwave prints from them could not
// be read back (found by yaml_json_fuzz; pinned by yaml_json_test.cc, NotUtf8IsAnIssue).
std::size_t FirstInvalidUtf8(const std::string& text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (c < 0x80) {
      // YAML's printable set: no C0 control but tab, line feed and carriage return, no DEL.
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) return i;
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;  // overlong
      if (c == 0xED) hi = 0x9F;  // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;  // overlong
      if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
    } else {
      return i;
    }
    if (i + len > n || s[i + 1] < lo || s[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k)
      if (s[i + k] < 0x80 || s[i + k] > 0xBF) return i;
    i += len;
  }
  return std::string::npos;
}

SourcePos PositionOfByte(const std::string& text, std::size_t offset) {
  SourcePos pos{1, 1};
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else {
      ++pos.column;
    }
  }
  return pos;
}

}  // namespace

LoadedDocuments LoadYamlDocuments(const std::string& text, const std::string& file,
                                  const InputLimits& limits) {
  LoadedDocuments result;
  if (const std::size_t bad = FirstInvalidUtf8(text); bad != std::string::npos) {
    result.issues.push_back(
        {file, PositionOfByte(text, bad), "",
         "the text is not valid UTF-8 or holds a control character YAML does not allow"});
    return result;
  }
  // yaml-cpp's parser recurses once per level (and gives up only at 2,000, with a deep stack
  // already spent); a text estimated deeper than the budget never reaches it.
  if (auto problem = PrescanYamlDepth(text, limits.max_document_depth)) {
    result.issues.push_back({file, problem->pos, "", std::move(problem->message)});
    return result;
  }
  // Only a text yaml-cpp reads to its end reaches LoadAll (see yaml_prescan.cc); a syntax
  // error found there is the same one LoadAll would throw.
  if (auto problem = PrescanYaml(text)) {
    result.issues.push_back({file, problem->pos, "", std::move(problem->message)});
    return result;
  }
  try {
    for (auto& doc : YAML::LoadAll(text)) {
      if (doc.IsNull() || !doc.IsDefined()) continue;
      const std::size_t limit = text.size() + kMaxAliasedWeight;
      std::size_t budget = limit;
      const Expansion e = ExpandsWithin(doc, &budget, 0, limits.max_document_depth);
      if (e == Expansion::kTooLarge) {
        result.issues.push_back({file, PosOf(doc), "",
                                 "the document expands to more than " + std::to_string(limit) +
                                     " nodes and bytes through aliases; refusing to read it"});
        continue;
      }
      if (e == Expansion::kTooDeep) {
        result.issues.push_back(
            {file, PosOf(doc), "",
             "the document nests deeper than limits.maxDocumentDepth (" +
                 std::to_string(limits.max_document_depth) +
                 " levels), or an alias refers to its own anchor; refusing to read it"});
        continue;
      }
      result.documents.push_back(doc);
    }
  } catch (const YAML::Exception& e) {
    result.issues.push_back({file, {e.mark.line + 1, e.mark.column + 1}, "", e.msg});
  }
  return result;
}

std::optional<Json> ParseJsonDocument(const std::string& text, const std::string& file,
                                      Issues& issues, const InputLimits& limits) {
  if (auto problem = PrescanJsonDepth(text, limits.max_document_depth)) {
    issues.push_back({file, problem->pos, "", std::move(problem->message)});
    return std::nullopt;
  }
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    issues.push_back({file, {}, "", "not valid JSON"});
    return std::nullopt;
  }
  return doc;
}

}  // namespace fleetwave::engine
