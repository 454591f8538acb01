#include "tools/kubesim/yaml_body.h"

#include <cerrno>
#include <cstdlib>
#include <regex>

#include <yaml-cpp/yaml.h>

namespace fleetwave::kubesim {

namespace {

using Json = nlohmann::json;

Json Scalar(const YAML::Node& node) {
  const std::string& s = node.Scalar();
  if (node.Tag() == "!") return s;  // quoted: always a string
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  static const std::regex kInt("[-+]?[0-9]+");
  static const std::regex kFloat("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  if (std::regex_match(s, kInt)) {
    errno = 0;
    long long v = std::strtoll(s.c_str(), nullptr, 10);
    if (errno == 0) return v;
  }
  if (std::regex_match(s, kFloat)) return std::strtod(s.c_str(), nullptr);
  return s;
}

Json Convert(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      Json o = Json::object();
      for (const auto& kv : node) o[kv.first.as<std::string>()] = Convert(kv.second);
      return o;
    }
    case YAML::NodeType::Sequence: {
      Json a = Json::array();
      for (const auto& item : node) a.push_back(Convert(item));
      return a;
    }
    case YAML::NodeType::Scalar:
      return Scalar(node);
    default:
      return nullptr;
  }
}

}  // namespace

std::optional<nlohmann::json> ParseBody(const std::string& text, bool allow_yaml,
                                        std::string* error) {
  Json j = Json::parse(text, nullptr, false);
  if (!j.is_discarded()) return j;
  if (!allow_yaml) {
    *error = "invalid JSON in request body";
    return std::nullopt;
  }
  try {
    return Convert(YAML::Load(text));
  } catch (const YAML::Exception& e) {
    *error = std::string("error converting YAML to JSON: ") + e.what();
    return std::nullopt;
  }
}

}  // namespace fleetwave::kubesim
