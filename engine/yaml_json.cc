#include "engine/yaml_json.h"

#include <cmath>
#include <cstdlib>
#include <regex>

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

bool ParseInt(const std::string& s, long long& out) {
  static const std::regex dec("[-+]?[0-9]+");
  static const std::regex hex("0x[0-9a-fA-F]+");
  static const std::regex oct("0o[0-7]+");
  errno = 0;
  char* end = nullptr;
  if (std::regex_match(s, dec)) {
    out = std::strtoll(s.c_str(), &end, 10);
  } else if (std::regex_match(s, hex)) {
    out = std::strtoll(s.c_str() + 2, &end, 16);
  } else if (std::regex_match(s, oct)) {
    out = std::strtoll(s.c_str() + 2, &end, 8);
  } else {
    return false;
  }
  return errno == 0;
}

bool ParseFloat(const std::string& s, double& out) {
  static const std::regex num("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  if (std::regex_match(s, num)) {
    out = std::strtod(s.c_str(), nullptr);
    return true;
  }
  if (s == ".inf" || s == ".Inf" || s == "+.inf") return out = HUGE_VAL, true;
  if (s == "-.inf" || s == "-.Inf") return out = -HUGE_VAL, true;
  return false;
}

// A string that would resolve to something else when written plain must be quoted.
bool NeedsQuotes(const std::string& s) {
  long long i;
  double d;
  bool b;
  if (IsNullScalar(s) || ParseBool(s, b) || ParseInt(s, i) || ParseFloat(s, d)) return true;
  static const std::regex yaml11("(y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)");
  return std::regex_match(s, yaml11);
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
    case Json::value_t::number_float:
      out << v.dump();
      break;
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

LoadedDocuments LoadYamlDocuments(const std::string& text, const std::string& file) {
  LoadedDocuments result;
  try {
    for (auto& doc : YAML::LoadAll(text)) {
      if (doc.IsNull() || !doc.IsDefined()) continue;
      result.documents.push_back(doc);
    }
  } catch (const YAML::Exception& e) {
    result.issues.push_back({file, {e.mark.line + 1, e.mark.column + 1}, "", e.msg});
  }
  return result;
}

}  // namespace fleetwave::engine
