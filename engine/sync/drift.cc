#include "engine/sync/drift.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "engine/sha256.h"
#include "engine/sync/managed_fields.h"

namespace fleetwave::engine {
namespace {

bool IsSecret(const ObjectRef& ref) { return ref.group.empty() && ref.kind == "Secret"; }

bool StartsWithPointer(const std::string& pointer, const std::string& prefix) {
  return pointer == prefix ||
         (pointer.size() > prefix.size() && pointer.compare(0, prefix.size(), prefix) == 0 &&
          pointer[prefix.size()] == '/');
}

// What the API server omits when it stores an object (Go's omitempty): a desired zero value
// is not drift when the live field is absent. Objects are zero when all their members are.
bool IsZero(const Json& v) {
  if (v.is_null()) return true;
  if (v.is_string()) return v.get_ref<const std::string&>().empty();
  if (v.is_boolean()) return !v.get<bool>();
  if (v.is_number()) return v.get<double>() == 0;
  if (v.is_array()) return v.empty();
  if (v.is_object()) {
    for (const auto& member : v) {
      if (!IsZero(member)) return false;
    }
    return true;
  }
  return false;
}

// The map keys whose values are resource quantities (requests and limits, ResourceQuota's
// hard, LimitRange's bounds, node and PVC capacity, RuntimeClass overhead) and emptyDir's
// sizeLimit: the API server canonicalises them ("0.5" is stored as "500m").
bool IsQuantityField(std::string_view parent, std::string_view key) {
  for (std::string_view p :
       {"limits", "requests", "hard", "capacity", "allocatable", "overhead", "podFixed", "max",
        "min", "default", "defaultRequest", "maxLimitRequestRatio"}) {
    if (parent == p) return true;
  }
  return key == "sizeLimit";
}

std::optional<long double> ParseQuantity(std::string_view s) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  long double number = 0;
  long double scale = 1;
  bool digits = false, point = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      digits = true;
      number = number * 10 + (c - '0');
      if (point) scale *= 10;
    } else if (c == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  if (!digits) return std::nullopt;
  long double value = number / scale;
  const std::string_view suffix = s.substr(i);
  static constexpr struct {
    std::string_view suffix;
    int base;
    int exponent;
  } kSuffixes[] = {{"Ki", 2, 10}, {"Mi", 2, 20}, {"Gi", 2, 30}, {"Ti", 2, 40},
                   {"Pi", 2, 50}, {"Ei", 2, 60}, {"n", 10, -9}, {"u", 10, -6},
                   {"m", 10, -3}, {"", 10, 0},   {"k", 10, 3},  {"M", 10, 6},
                   {"G", 10, 9},  {"T", 10, 12}, {"P", 10, 15}, {"E", 10, 18}};
  bool known = false;
  for (const auto& k : kSuffixes) {
    if (suffix == k.suffix) {
      value *= std::pow(static_cast<long double>(k.base), k.exponent);
      known = true;
      break;
    }
  }
  if (!known) {
    // A decimal exponent: "1e3", "5E-2".
    if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) return std::nullopt;
    size_t j = 1;
    bool negative_exponent = false;
    if (suffix[j] == '+' || suffix[j] == '-') negative_exponent = suffix[j++] == '-';
    if (j >= suffix.size() || suffix.size() - j > 4) return std::nullopt;
    int exponent = 0;
    for (; j < suffix.size(); ++j) {
      if (suffix[j] < '0' || suffix[j] > '9') return std::nullopt;
      exponent = exponent * 10 + (suffix[j] - '0');
    }
    value *= std::pow(10.0L, negative_exponent ? -exponent : exponent);
  }
  return negative ? -value : value;
}

std::optional<long double> QuantityOf(const Json& v) {
  if (v.is_number()) return v.get<long double>();
  if (v.is_string()) return ParseQuantity(v.get_ref<const std::string&>());
  return std::nullopt;
}

// Equal as the API server would store them: numbers by value, quantities canonicalised.
bool SameScalar(const Json& desired, const Json& live, std::string_view parent,
                std::string_view key) {
  if (desired == live) return true;
  return IsQuantityField(parent, key) && SameQuantity(desired, live);
}

std::string Base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t n = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[n & 63] : '=';
  }
  return out;
}

// A list's "k:{...}" field-set entries with their keys parsed, once per list rather than once
// per item (parsing them per item was most of a comparison's cost).
struct KeyedFields {
  Json key;  // the parsed merge key: an object
  const Json* fields = nullptr;
};

std::vector<KeyedFields> ParseKeyedFields(const Json* fields) {
  std::vector<KeyedFields> keyed;
  if (fields == nullptr || !fields->is_object()) return keyed;
  for (auto it = fields->begin(); it != fields->end(); ++it) {
    if (it.key().rfind("k:", 0) != 0) continue;
    Json key = Json::parse(std::string_view(it.key()).substr(2), nullptr, false);
    if (key.is_object()) keyed.push_back({std::move(key), &it.value()});
  }
  return keyed;
}

// The merge key names of an associative list, from its first non-empty "k:{...}" entry.
std::vector<std::string> ListKeys(const std::vector<KeyedFields>& keyed) {
  std::vector<std::string> keys;
  for (const auto& k : keyed) {
    for (auto name = k.key.begin(); name != k.key.end(); ++name) keys.push_back(name.key());
    if (!keys.empty()) break;
  }
  return keys;
}

bool IsSet(const Json* fields) {
  if (fields == nullptr || !fields->is_object()) return false;
  for (auto it = fields->begin(); it != fields->end(); ++it) {
    if (it.key().rfind("v:", 0) == 0) return true;
  }
  return false;
}

// The field set of the live list item at `index`: the "k:{...}" entry naming it.
const Json* ItemFields(const std::vector<KeyedFields>& keyed, const Json& list, size_t index) {
  const Json& item = list[index];
  for (const auto& k : keyed) {
    if (k.key.empty()) continue;
    bool match = true;
    for (auto name = k.key.begin(); name != k.key.end() && match; ++name) {
      auto v = item.find(name.key());
      match = v != item.end() && *v == name.value();
    }
    if (match) return k.fields;
  }
  return nullptr;
}

// The live item whose merge key equals the desired item's (key fields the desired item leaves
// out are defaulted by the server, e.g. a port's protocol, and match anything).
std::optional<size_t> FindByKeys(const Json& live, const Json& desired_item,
                                 const std::vector<std::string>& keys) {
  if (!desired_item.is_object()) return std::nullopt;
  for (size_t j = 0; j < live.size(); ++j) {
    const Json& l = live[j];
    if (!l.is_object()) continue;
    bool any = false, match = true;
    for (const auto& k : keys) {
      auto d = desired_item.find(k);
      if (d == desired_item.end()) continue;
      auto v = l.find(k);
      any = true;
      match = v != l.end() && *v == *d;
      if (!match) break;
    }
    if (any && match) return j;
  }
  return std::nullopt;
}

bool AllObjectsWithName(const Json& list) {
  for (const auto& item : list) {
    if (!item.is_object() || !item.contains("name") || !item["name"].is_string()) return false;
  }
  return true;
}

const Json* Member(const Json* object, const std::string& name) {
  if (object == nullptr || !object->is_object()) return nullptr;
  auto it = object->find(name);
  return it == object->end() ? nullptr : &*it;
}

// Walks the desired value; `pointer` grows and shrinks with the walk (no string per field).
class Walker {
 public:
  explicit Walker(const std::vector<std::string>& ignored) : ignored_(ignored) {}

  std::optional<std::string> Run(const Json& desired, const Json& live, const Json& fields) {
    const Json* f = fields.is_object() ? &fields : nullptr;
    if (desired.is_object()) Object(desired, &live, f, /*top=*/true);
    return found_;
  }

 private:
  bool Ignored() const {
    for (const auto& p : ignored_) {
      if (StartsWithPointer(pointer_, p)) return true;
    }
    return false;
  }

  bool Found() {
    found_ = pointer_;
    return true;
  }

  bool Child(std::string_view token, const Json& d, const Json* l, const Json* f,
             std::string_view parent) {
    const size_t length = pointer_.size();
    pointer_ += '/';
    AppendEscaped(token);
    const bool stop = Value(d, l, f, parent, token);
    pointer_.resize(length);
    return stop;
  }

  // EscapePointerToken appended in place: one compared field costs no string of its own.
  void AppendEscaped(std::string_view token) {
    for (const char c : token) {
      if (c == '~') {
        pointer_ += "~0";
      } else if (c == '/') {
        pointer_ += "~1";
      } else {
        pointer_ += c;
      }
    }
  }

  bool Value(const Json& d, const Json* l, const Json* f, std::string_view parent,
             std::string_view key) {
    if (d.is_null() || Ignored()) return false;  // null in an applied object sets nothing
    if (l != nullptr && l->is_null()) l = nullptr;
    if (d.is_object()) {
      if (l != nullptr && !l->is_object()) return Found();
      return Object(d, l, f, false, key);
    }
    if (l == nullptr) return IsZero(d) ? false : Found();
    if (d.is_array()) {
      if (!l->is_array()) return Found();
      return List(d, *l, f);
    }
    return SameScalar(d, *l, parent, key) ? false : Found();
  }

  // `name` is the object's own key (unescaped; an index inside a list): its members' parent,
  // which decides whether a scalar compares as a quantity.
  bool Object(const Json& d, const Json* l, const Json* f, bool top, std::string_view name = {}) {
    for (auto it = d.begin(); it != d.end(); ++it) {
      const std::string& member = it.key();
      if (top && (member == "apiVersion" || member == "kind" || member == "status")) continue;
      field_key_.assign("f:");
      field_key_ += member;
      const Json* child_fields = Member(f, field_key_);
      if (Child(member, it.value(), Member(l, member), child_fields, name)) return true;
    }
    return false;
  }

  bool Item(size_t index, const Json& d, const Json* l, const Json* f) {
    return Child(std::to_string(index), d, l, f, "");
  }

  bool List(const Json& d, const Json& l, const Json* f) {
    const std::vector<KeyedFields> keyed = ParseKeyedFields(f);
    const std::vector<std::string> keys = ListKeys(keyed);
    const bool by_name =
        keys.empty() && !d.empty() && AllObjectsWithName(d) && AllObjectsWithName(l);
    if (!keys.empty() || by_name) {
      const std::vector<std::string> name_key = {"name"};
      for (size_t i = 0; i < d.size(); ++i) {
        const auto j = FindByKeys(l, d[i], by_name ? name_key : keys);
        if (!j) {
          if (d[i].is_null()) continue;
          const size_t length = pointer_.size();
          pointer_ += '/' + std::to_string(i);
          const bool stop = !Ignored() && Found();
          pointer_.resize(length);
          if (stop) return true;
          continue;
        }
        if (Item(*j, d[i], &l[*j], ItemFields(keyed, l, *j))) return true;
      }
      return false;
    }
    if (IsSet(f)) {
      for (size_t i = 0; i < d.size(); ++i) {
        bool present = false;
        for (const auto& member : l) present = present || member == d[i];
        if (!present && Item(i, d[i], nullptr, nullptr)) return true;
      }
      return false;
    }
    // An atomic list: item by item, and no more or fewer items.
    const size_t common = std::min(d.size(), l.size());
    for (size_t i = 0; i < common; ++i) {
      if (Item(i, d[i], &l[i], nullptr)) return true;
    }
    if (d.size() == l.size()) return false;
    const size_t length = pointer_.size();
    pointer_ += '/' + std::to_string(common);
    const bool stop = !Ignored() && Found();
    pointer_.resize(length);
    return stop;
  }

  const std::vector<std::string>& ignored_;
  std::string pointer_;
  std::string field_key_;  // "f:<member>", reused for every member's managed-fields lookup
  std::optional<std::string> found_;
};

}  // namespace

std::optional<std::string> FirstDifference(const Json& desired, const Json& live,
                                           const Json& live_fields,
                                           const std::vector<std::string>& ignored) {
  return Walker(ignored).Run(desired, live, live_fields);
}

void HashSecretData(const ObjectRef& ref, Json& object) {
  if (!IsSecret(ref) || !object.is_object()) return;
  auto data = object.find("data");
  if (data == object.end() || !data->is_object()) return;
  for (auto& value : *data) {
    if (!value.is_string()) continue;
    // Base64 as written may wrap lines; the API server stores the bytes, so compare those.
    std::string text;
    for (char c : value.get_ref<const std::string&>()) {
      if (c != '\n' && c != '\r' && c != ' ' && c != '\t') text += c;
    }
    value = "sha256:" + Sha256Hex(text);
  }
}

bool ChangedByNormalising(const ObjectRef& ref) { return IsSecret(ref); }

Json NormaliseForComparison(const ObjectRef& ref, Json object) {
  if (!IsSecret(ref) || !object.is_object()) return object;
  auto string_data = object.find("stringData");
  if (string_data != object.end()) {
    if (string_data->is_object()) {
      Json& data = object["data"];
      if (!data.is_object()) data = Json::object();
      for (auto it = string_data->begin(); it != string_data->end(); ++it) {
        if (it.value().is_string())
          data[it.key()] = Base64(it.value().get_ref<const std::string&>());
      }
    }
    object.erase("stringData");
  }
  HashSecretData(ref, object);
  return object;
}

bool SameQuantity(const Json& a, const Json& b) {
  const auto x = QuantityOf(a);
  const auto y = QuantityOf(b);
  if (!x || !y) return false;
  const long double scale = std::max(std::fabs(*x), std::fabs(*y));
  return std::fabs(*x - *y) <= scale * 1e-12L;
}

}  // namespace fleetwave::engine
