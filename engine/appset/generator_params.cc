#include "engine/appset/generator_params.h"

#include <cctype>

namespace fleetwave::engine {
namespace {

void Flatten(const Json& value, const std::string& prefix,
             std::map<std::string, std::string>& out) {
  const auto key = [&](const std::string& k) { return prefix.empty() ? k : prefix + "." + k; };
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) Flatten(it.value(), key(it.key()), out);
  } else if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i) Flatten(value[i], key(std::to_string(i)), out);
  } else if (value.is_string()) {
    out[prefix] = value.get<std::string>();
  } else if (value.is_null()) {
    out[prefix] = "";
  } else {
    out[prefix] = value.dump();
  }
}

bool IsEmptyValue(const Json& v) {
  return v.is_null() || (v.is_string() && v.get<std::string>().empty()) ||
         (v.is_array() && v.empty()) || (v.is_object() && v.empty());
}

}  // namespace

std::map<std::string, std::string> FlattenParams(const Json& params) {
  std::map<std::string, std::string> out;
  Flatten(params, "", out);
  return out;
}

Json FlatParamsObject(const Json& params) {
  Json out = Json::object();
  for (const auto& [k, v] : FlattenParams(params)) out[k] = v;
  return out;
}

Json MergeOverride(const Json& base, const Json& over) {
  if (!base.is_object() || !over.is_object()) return over;
  Json out = base;
  for (auto it = over.begin(); it != over.end(); ++it) {
    out[it.key()] = out.contains(it.key()) ? MergeOverride(out[it.key()], it.value()) : it.value();
  }
  return out;
}

Json MergeTemplate(const Json& generator_template, const Json& set_template) {
  if (generator_template.is_object() && set_template.is_object()) {
    Json out = set_template;
    for (auto it = generator_template.begin(); it != generator_template.end(); ++it) {
      if (out.contains(it.key())) {
        out[it.key()] = MergeTemplate(it.value(), out[it.key()]);
      } else {
        out[it.key()] = it.value();
      }
    }
    return out;
  }
  return IsEmptyValue(generator_template) ? set_template : generator_template;
}

std::string SanitizeName(const std::string& name) {
  std::string out;
  for (char c : name) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool ok = (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9') || l == '-' || l == '.';
    out += ok ? l : '-';
  }
  if (out.size() > 253) out.resize(253);
  const size_t b = out.find_first_not_of("-.");
  if (b == std::string::npos) return "";
  const size_t e = out.find_last_not_of("-.");
  return out.substr(b, e - b + 1);
}

}  // namespace fleetwave::engine
