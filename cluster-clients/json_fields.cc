#include "cluster-clients/json_fields.h"

#include <cmath>

namespace fleetwave::clients {

std::string JsonTypeName(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
      return "a number";
    default:
      return "not JSON";
  }
}

std::string FieldPath(std::initializer_list<std::string_view> path) {
  std::string out;
  for (std::string_view step : path) {
    if (!out.empty()) out += '.';
    out += step;
  }
  return out;
}

void FieldReader::Problem(std::string message) {
  if (error_.empty()) error_ = std::move(message);
}

const Json* FieldReader::Walk(Path path, bool* null_on_the_way, std::string* null_at) {
  const Json* cur = &object_;
  std::string walked;
  for (std::string_view step : path) {
    if (cur->is_null()) {
      *null_on_the_way = true;
      *null_at = walked;
      return nullptr;
    }
    if (!cur->is_object()) {
      Problem(walked.empty() ? "not an object (" + JsonTypeName(*cur) + ")"
                             : walked + " is " + JsonTypeName(*cur) + ", expected an object");
      return nullptr;
    }
    auto it = cur->find(step);
    if (!walked.empty()) walked += '.';
    walked += step;
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  if (cur->is_null()) {
    *null_on_the_way = true;
    *null_at = walked;
    return nullptr;
  }
  return cur;
}

const Json* FieldReader::Find(Path path) {
  bool null_seen = false;
  std::string null_at;
  return Walk(path, &null_seen, &null_at);
}

const Json* FieldReader::Typed(Path path, bool (Json::*is)() const noexcept, const char* want) {
  const Json* v = Find(path);
  if (v == nullptr) return nullptr;
  if (!(v->*is)()) {
    Problem(FieldPath(path) + " is " + JsonTypeName(*v) + ", expected " + want);
    return nullptr;
  }
  return v;
}

std::string FieldReader::String(Path path) {
  const Json* v = Typed(path, &Json::is_string, "a string");
  return v ? v->get_ref<const std::string&>() : std::string();
}

std::string FieldReader::RequiredString(Path path) {
  bool null_seen = false;
  std::string null_at;
  const bool was_ok = ok();
  const Json* v = Walk(path, &null_seen, &null_at);
  if (v != nullptr && !v->is_string()) {
    Problem(FieldPath(path) + " is " + JsonTypeName(*v) + ", expected a string");
    return "";
  }
  if (v != nullptr && !v->get_ref<const std::string&>().empty())
    return v->get_ref<const std::string&>();
  if (was_ok && !ok()) return "";  // Walk found a wrong shape and said so
  const std::string field = FieldPath(path);
  if (v != nullptr) {
    Problem(field + " is empty");
  } else if (null_seen && null_at != field) {
    Problem(field + " is missing (" + (null_at.empty() ? "the object" : null_at) + " is null)");
  } else {
    Problem(field + " is missing");
  }
  return "";
}

std::optional<int64_t> FieldReader::Int(Path path) {
  const Json* v = Find(path);
  if (v == nullptr) return std::nullopt;
  if (v->is_number_integer()) return v->get<int64_t>();
  if (v->is_number_unsigned() && v->get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX))
    return static_cast<int64_t>(v->get<uint64_t>());
  if (v->is_number_float()) {
    // Whole floats ("code": 410.0) are integers to Go's decoder too; the bound keeps the cast
    // defined.
    const double d = v->get<double>();
    if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9.0e15)
      return static_cast<int64_t>(d);
  }
  Problem(FieldPath(path) + " is " + JsonTypeName(*v) + ", expected an integer");
  return std::nullopt;
}

bool FieldReader::Bool(Path path, bool fallback) {
  const Json* v = Typed(path, &Json::is_boolean, "a boolean");
  return v ? v->get<bool>() : fallback;
}

const Json* FieldReader::Array(Path path) { return Typed(path, &Json::is_array, "an array"); }

const Json* FieldReader::Object(Path path) { return Typed(path, &Json::is_object, "an object"); }

std::optional<std::string> DumpJson(const Json& value) {
  // The one place a nlohmann exception is expected: dump() reports a string that is not
  // UTF-8 only by throwing type_error 316.
  try {
    return value.dump();
  } catch (const Json::exception&) {
    return std::nullopt;
  }
}

}  // namespace fleetwave::clients
