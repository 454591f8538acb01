#include "engine/sync/managed_fields.h"

#include <algorithm>
#include <optional>

namespace fleetwave::engine {
namespace {

// The list item a "k:{...}" element names: every key field equal.
std::optional<size_t> FindKeyed(const Json& list, const Json& key) {
  if (!list.is_array() || !key.is_object()) return std::nullopt;
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& item = list[i];
    if (!item.is_object()) continue;
    bool match = true;
    for (auto k = key.begin(); k != key.end() && match; ++k) {
      auto it = item.find(k.key());
      match = it != item.end() && *it == k.value();
    }
    if (match) return i;
  }
  return std::nullopt;
}

std::optional<size_t> FindValue(const Json& list, const Json& value) {
  if (!list.is_array()) return std::nullopt;
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i] == value) return i;
  }
  return std::nullopt;
}

std::optional<size_t> ParseIndex(std::string_view s) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  size_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<size_t>(c - '0');
  }
  return n;
}

// The list item element `key` ("k:", "v:" or "i:") names in `list`; `parsed` is the JSON
// after "k:"/"v:" (discarded when it does not parse), read once per element by the caller.
std::optional<size_t> FindParsedElement(const std::string& key, const Json& parsed,
                                        const Json* list) {
  if (list == nullptr || !list->is_array() || key.size() < 2) return std::nullopt;
  if (key[0] == 'i') return ParseIndex(std::string_view(key).substr(2));
  if (parsed.is_discarded()) return std::nullopt;
  if (key[0] == 'k') return FindKeyed(*list, parsed);
  if (key[0] == 'v') return FindValue(*list, parsed);
  return std::nullopt;
}

Json ParseElementKey(const std::string& key) {
  if (key.size() < 2 || key[0] == 'i') return Json(Json::value_t::discarded);
  return Json::parse(std::string_view(key).substr(2), nullptr, false);
}

std::optional<size_t> FindElement(const std::string& key, const Json* list) {
  if (list == nullptr || !list->is_array() || key.size() < 2) return std::nullopt;
  return FindParsedElement(key, ParseElementKey(key), list);
}

void AppendEscaped(std::string& out, std::string_view token) {
  if (std::none_of(token.begin(), token.end(), [](char c) { return c == '~' || c == '/'; })) {
    out.append(token);  // the usual field name: nothing to escape
    return;
  }
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
}

bool IsLeaf(const Json& fields) {
  if (!fields.is_object()) return true;
  for (auto it = fields.begin(); it != fields.end(); ++it) {
    if (it.key() != ".") return false;
  }
  return true;
}

const Json* Member(const Json* object, const std::string& name) {
  if (object == nullptr || !object->is_object()) return nullptr;
  auto it = object->find(name);
  return it == object->end() ? nullptr : &*it;
}

Json Restrict(const Json& fields, const Json& value) {
  if (IsLeaf(fields)) return value;
  if (value.is_object()) {
    Json out = Json::object();
    for (auto it = fields.begin(); it != fields.end(); ++it) {
      const std::string& key = it.key();
      if (key.size() < 2 || key[0] != 'f' || key[1] != ':') continue;
      auto v = value.find(key.substr(2));
      if (v != value.end()) out[key.substr(2)] = Restrict(it.value(), *v);
    }
    return out;
  }
  if (value.is_array()) {
    Json out = Json::array();
    for (auto it = fields.begin(); it != fields.end(); ++it) {
      const std::string& key = it.key();
      const auto index = FindElement(key, &value);
      if (!index || *index >= value.size()) continue;
      Json item = Restrict(it.value(), value[*index]);
      if (key[0] == 'k') {
        // Keep the key fields so the element is still found by its key.
        Json k = Json::parse(key.substr(2), nullptr, false);
        if (k.is_object() && item.is_object()) {
          for (auto kv = k.begin(); kv != k.end(); ++kv) item[kv.key()] = kv.value();
        }
      }
      out.push_back(std::move(item));
    }
    return out;
  }
  return value;
}

void MergeFields(Json& into, const Json& fields) {
  for (auto it = fields.begin(); it != fields.end(); ++it) {
    Json& slot = into[it.key()];
    if (slot.is_object() && it.value().is_object()) {
      MergeFields(slot, it.value());
    } else if (!slot.is_object()) {
      slot = it.value().is_object() ? it.value() : Json::object();
    }
  }
}

}  // namespace

Json AllManagedFields(const Json& object) {
  const Json* meta = Member(&object, "metadata");
  const Json* entries = Member(meta, "managedFields");
  if (entries == nullptr || !entries->is_array()) return nullptr;
  Json out = Json::object();
  for (const auto& e : *entries) {
    const Json* sub = Member(&e, "subresource");
    const Json* f = Member(&e, "fieldsV1");
    if (sub != nullptr && !(sub->is_string() && sub->get_ref<const std::string&>().empty())) {
      continue;  // status (or scale) writes: not what git declares
    }
    if (f != nullptr && f->is_object()) MergeFields(out, *f);
  }
  return out;
}

Json ManagedFieldsOf(const Json& object, std::string_view manager) {
  const Json* meta = Member(&object, "metadata");
  const Json* entries = Member(meta, "managedFields");
  if (entries == nullptr || !entries->is_array()) return nullptr;
  for (const auto& e : *entries) {
    const Json* m = Member(&e, "manager");
    const Json* op = Member(&e, "operation");
    const Json* f = Member(&e, "fieldsV1");
    if (m && m->is_string() && *m == manager && op && op->is_string() && *op == "Apply" && f &&
        f->is_object()) {
      return *f;
    }
  }
  return nullptr;
}

Json ListShapeOf(const Json& fields_v1) {
  Json out = Json::object();
  if (!fields_v1.is_object()) return out;
  for (auto it = fields_v1.begin(); it != fields_v1.end(); ++it) {
    const std::string& key = it.key();
    if (key.rfind("k:", 0) == 0) {
      out[key] = ListShapeOf(it.value());
    } else if (key.rfind("v:", 0) == 0) {
      out[key] = Json::object();
    } else if (key.rfind("f:", 0) == 0) {
      Json below = ListShapeOf(it.value());
      if (!below.empty()) out[key] = std::move(below);
    }
  }
  return out;
}

Json RestrictToFields(const Json& fields_v1, const Json& object) {
  if (!fields_v1.is_object()) return Json::object();
  return Restrict(fields_v1, object);
}

std::string EscapePointerToken(std::string_view token) {
  std::string out;
  AppendEscaped(out, token);
  return out;
}

void RemovePointer(Json& value, std::string_view pointer) {
  if (pointer.empty() || pointer.front() != '/') return;
  std::vector<std::string> tokens;
  size_t pos = 1;
  while (true) {
    const size_t slash = pointer.find('/', pos);
    std::string raw(pointer.substr(pos, slash == std::string_view::npos ? slash : slash - pos));
    std::string token;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '~' && i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
        token += raw[i + 1] == '0' ? '~' : '/';
        ++i;
      } else {
        token += raw[i];
      }
    }
    tokens.push_back(std::move(token));
    if (slash == std::string_view::npos) break;
    pos = slash + 1;
  }
  Json* cur = &value;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const bool last = i + 1 == tokens.size();
    if (cur->is_object()) {
      auto it = cur->find(tokens[i]);
      if (it == cur->end()) return;
      if (last) {
        cur->erase(it);
        return;
      }
      cur = &*it;
    } else if (cur->is_array()) {
      const auto index = ParseIndex(tokens[i]);
      if (!index || *index >= cur->size()) return;
      if (last) {
        cur->erase(*index);
        return;
      }
      cur = &(*cur)[*index];
    } else {
      return;
    }
  }
}

}  // namespace fleetwave::engine
