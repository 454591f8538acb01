// Strict readers of the fields of a stored record (issue 30: wrong-typed stored values are
// errors, never defaults). Each reads `object[key]`: absent or null is "absent" (nullopt or the
// caller's empty value, no issue); a value of another type is an issue naming `path.key` and
// the type found, and reads as absent. A caller that got issues must not act on the record.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/issue.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine::stored {

// The member, or nullptr when absent, null or `object` is not an object.
inline const Json* Member(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

inline std::string FieldPath(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

inline void WrongType(const std::string& path, const char* expected, const Json& found,
                      Issues& issues) {
  issues.push_back({"",
                    {},
                    path,
                    std::string("must be ") + expected + ", not " +
                        (found.is_array() || found.is_object() ? "an " : "a ") +
                        found.type_name()});
}

inline std::optional<std::string> String(const Json& object, const char* key,
                                         const std::string& path, Issues& issues) {
  const Json* v = Member(object, key);
  if (v == nullptr) return std::nullopt;
  if (v->is_string()) return v->get<std::string>();
  WrongType(FieldPath(path, key), "a string", *v, issues);
  return std::nullopt;
}

inline std::optional<bool> Bool(const Json& object, const char* key, const std::string& path,
                                Issues& issues) {
  const Json* v = Member(object, key);
  if (v == nullptr) return std::nullopt;
  if (v->is_boolean()) return v->get<bool>();
  WrongType(FieldPath(path, key), "a boolean", *v, issues);
  return std::nullopt;
}

inline std::optional<long long> Int(const Json& object, const char* key, const std::string& path,
                                    Issues& issues) {
  const Json* v = Member(object, key);
  if (v == nullptr) return std::nullopt;
  if (v->is_number_integer()) return v->get<long long>();
  WrongType(FieldPath(path, key), "an integer", *v, issues);
  return std::nullopt;
}

// An object or an array member, by type; nullptr when absent or of another type (an issue).
inline const Json* Object(const Json& object, const char* key, const std::string& path,
                          Issues& issues) {
  const Json* v = Member(object, key);
  if (v == nullptr || v->is_object()) return v;
  WrongType(FieldPath(path, key), "an object", *v, issues);
  return nullptr;
}
inline const Json* Array(const Json& object, const char* key, const std::string& path,
                         Issues& issues) {
  const Json* v = Member(object, key);
  if (v == nullptr || v->is_array()) return v;
  WrongType(FieldPath(path, key), "a list", *v, issues);
  return nullptr;
}

// A list of strings; an element of another type is an issue naming its index.
inline std::vector<std::string> Strings(const Json& object, const char* key,
                                        const std::string& path, Issues& issues) {
  std::vector<std::string> out;
  const Json* list = Array(object, key, path, issues);
  if (list == nullptr) return out;
  for (size_t i = 0; i < list->size(); ++i) {
    const Json& e = (*list)[i];
    if (e.is_string()) {
      out.push_back(e.get<std::string>());
    } else {
      WrongType(FieldPath(path, key) + "[" + std::to_string(i) + "]", "a string", e, issues);
    }
  }
  return out;
}

// An object of strings; a value of another type is an issue naming its key.
inline std::map<std::string, std::string> StringMap(const Json& object, const char* key,
                                                    const std::string& path, Issues& issues) {
  std::map<std::string, std::string> out;
  const Json* map = Object(object, key, path, issues);
  if (map == nullptr) return out;
  for (auto it = map->begin(); it != map->end(); ++it) {
    if (it.value().is_string()) {
      out[it.key()] = it.value().get<std::string>();
    } else {
      WrongType(FieldPath(FieldPath(path, key), it.key()), "a string", it.value(), issues);
    }
  }
  return out;
}

}  // namespace fleetwave::engine::stored
