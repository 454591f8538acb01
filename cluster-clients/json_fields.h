// Non-throwing reads of JSON that came from outside the process: API server responses, watch
// events, manifests and exec plugin output. nlohmann's value()/at()/get<T>() throw on a wrong
// type, and a throw on the I/O thread would end the process; these readers report the wrong
// shape instead, naming the field, so the caller turns it into one failed request.
//
// A `FieldReader` reads several fields of one object and keeps the first problem found:
//   FieldReader r(object);
//   std::string name = r.RequiredString({"metadata", "name"});
//   if (!r.ok()) return Fail("apply: " + r.error());  // "metadata is null, expected an object"
// Absent and null fields read as absent (Kubernetes omits empty fields either way); a field
// of another type, or a non-object where an object must be, is a problem. Not thread-safe;
// cheap to create.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "cluster-clients/result.h"

namespace fleetwave::clients {

// "a string", "a number", "null", ...: the JSON type as a message names it.
std::string JsonTypeName(const Json& value);

// "metadata.name" from {"metadata", "name"}.
std::string FieldPath(std::initializer_list<std::string_view> path);

class FieldReader {
 public:
  using Path = std::initializer_list<std::string_view>;

  explicit FieldReader(const Json& object) : object_(object) {}

  // The field, or nullptr when it (or an object on the way) is absent or null.
  const Json* Find(Path path);
  // A string; "" when absent or null.
  std::string String(Path path);
  // A non-empty string; absence is a problem too.
  std::string RequiredString(Path path);
  // An integer (a whole JSON number within int64); nullopt when absent or null.
  std::optional<int64_t> Int(Path path);
  // A boolean; `fallback` when absent or null.
  bool Bool(Path path, bool fallback);
  // An array or an object (as asked); nullptr when absent or null.
  const Json* Array(Path path);
  const Json* Object(Path path);

  bool ok() const { return error_.empty(); }
  // The first problem: "<field> is <type>, expected <type>" or "<field> is missing".
  const std::string& error() const { return error_; }

 private:
  // Walks `path`; records a problem when an intermediate value is not an object.
  const Json* Walk(Path path, bool* null_on_the_way, std::string* null_at);
  void Problem(std::string message);
  const Json* Typed(Path path, bool (Json::*is)() const noexcept, const char* want);

  const Json& object_;
  std::string error_;
};

// Serialises JSON that may hold strings that are not UTF-8 (a manifest read from a file);
// nullopt instead of nlohmann's type_error when one is found.
std::optional<std::string> DumpJson(const Json& value);

}  // namespace fleetwave::clients
