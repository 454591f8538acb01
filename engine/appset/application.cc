#include "engine/appset/application.h"

#include "engine/appset/application_schema.h"

#include <bit>
#include <cmath>
#include <functional>
#include <string_view>
#include <unordered_set>

namespace fleetwave::engine {
namespace {

const Json* Find(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

std::string StringAt(const Json& object, const char* key) {
  const Json* v = Find(object, key);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

// "items[3]" + "metadata.name" -> "items[3].metadata.name"; a top-level object has no prefix.
std::string Sub(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

void AddIssue(Issues& issues, const std::string& file, const std::string& path,
              const std::string& message) {
  issues.push_back({file, {}, path, message});
}

std::optional<Time> TimeAt(const Json& object, const char* key, const std::string& file,
                           const std::string& path, Issues& issues) {
  const Json* v = Find(object, key);
  if (!v) return std::nullopt;
  if (v->is_string()) {
    if (auto t = ParseRfc3339(v->get_ref<const std::string&>())) return t;
  }
  AddIssue(issues, file, Sub(path, key), "not an RFC 3339 time: " + v->dump());
  return std::nullopt;
}

// A streaming 64-bit hash: every value is a type tag followed by its content, sizes
// included, so no two different documents feed the same sequence of words.
class SpecHasher {
 public:
  // False when the document holds a NaN (no fingerprint).
  bool Add(const Json& v) {
    switch (v.type()) {
      case Json::value_t::object:
        Word(kObject, v.size());
        for (auto it = v.begin(); it != v.end(); ++it) {
          Text(it.key());
          if (!Add(it.value())) return false;
        }
        return true;
      case Json::value_t::array:
        Word(kArray, v.size());
        for (const auto& item : v) {
          if (!Add(item)) return false;
        }
        return true;
      case Json::value_t::string:
        Word(kString, 0);
        Text(v.get_ref<const std::string&>());
        return true;
      case Json::value_t::boolean:
        Word(kBool, v.get<bool>() ? 1 : 0);
        return true;
      case Json::value_t::number_integer: {
        // A non-negative integer hashes as the unsigned of the same value: JSON equality
        // does not tell them apart.
        const auto i = v.get<Json::number_integer_t>();
        Word(i < 0 ? kNegative : kUnsigned, static_cast<uint64_t>(i));
        return true;
      }
      case Json::value_t::number_unsigned:
        Word(kUnsigned, v.get<Json::number_unsigned_t>());
        return true;
      case Json::value_t::number_float: {
        const double d = v.get<double>();
        if (std::isnan(d)) return false;
        Word(kFloat, std::bit_cast<uint64_t>(d));
        return true;
      }
      case Json::value_t::null:
        Word(kNull, 0);
        return true;
      case Json::value_t::binary:
      case Json::value_t::discarded:
        return false;  // never in a decoded document; compare those in full
    }
    return false;
  }

  uint64_t Value() const { return h_ == 0 ? 1 : h_; }

 private:
  enum Tag : uint64_t { kObject = 1, kArray, kString, kBool, kNegative, kUnsigned, kFloat, kNull };

  // MurmurHash3's 64-bit finaliser: every input bit reaches every output bit.
  static uint64_t Mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
  }
  // Two bijective rounds per word, one per half, so (tag, value) pairs never alias by
  // arithmetic (as tag * K + value would).
  void Word(uint64_t tag, uint64_t value) {
    h_ = Mix((h_ ^ tag) * 0x9e3779b97f4a7c15ULL);
    h_ = Mix(h_ ^ value);
  }
  void Text(const std::string& s) { Word(s.size(), std::hash<std::string_view>{}(s)); }

  uint64_t h_ = 0x6a09e667f3bcc908ULL;
};

}  // namespace

OperationSummary::OperationSummary(const Json& operation) {
  if (!operation.is_object()) return;
  if (auto info = operation.find("info"); info != operation.end() && info->is_array()) {
    for (const auto& i : *info) {
      if (!i.is_object()) continue;
      auto value = i.find("value");
      if (value != i.end() && value->is_string()) info_values.push_back(value->get<std::string>());
    }
  }
  auto sync = operation.find("sync");
  if (sync == operation.end() || !sync->is_object()) return;
  has_sync = true;
  if (auto it = sync->find("revisions"); it != sync->end() && it->is_array()) {
    for (const auto& r : *it) sync_revisions.push_back(r.is_string() ? r.get<std::string>() : "");
  } else if (auto rev = sync->find("revision"); rev != sync->end() && rev->is_string()) {
    sync_revisions.push_back(rev->get<std::string>());
  }
}

uint64_t SpecFingerprint(const Json& spec) {
  if (!spec.is_object()) return 0;
  SpecHasher hasher;
  return hasher.Add(spec) ? hasher.Value() : 0;
}

bool Application::IsMultiSource() const {
  const Json* sources = Find(spec, "sources");
  return sources && sources->is_array() && !sources->empty();
}

bool Application::HasCondition(const std::string& type) const {
  for (const auto& c : conditions) {
    if (c.type == type) return true;
  }
  return false;
}

std::optional<Application> DecodeApplication(const Json& object, const std::string& file,
                                             const std::string& path, Issues& issues) {
  if (!object.is_object()) {
    AddIssue(issues, file, path, "an Application must be an object");
    return std::nullopt;
  }
  Application app;
  const Json empty = Json::object();
  const Json* metadata = Find(object, "metadata");
  if (!metadata) metadata = &empty;
  app.name = StringAt(*metadata, "name");
  if (app.name.empty()) {
    AddIssue(issues, file, Sub(path, "metadata.name"), "missing Application name");
    return std::nullopt;
  }
  const std::string where = Sub(path, "metadata.labels");
  if (const Json* labels = Find(*metadata, "labels")) {
    if (!labels->is_object()) {
      AddIssue(issues, file, where, "labels must be a map of strings");
    } else {
      for (auto it = labels->begin(); it != labels->end(); ++it) {
        if (it.value().is_string()) {
          app.labels[it.key()] = it.value().get<std::string>();
        } else {
          AddIssue(issues, file, Sub(where, it.key()), "label values must be strings");
        }
      }
    }
  }
  if (const Json* spec = Find(object, "spec"); spec && spec->is_object()) app.spec = *spec;
  // Strict types (issue 30), as for generated apps: a wrong-typed spec field is an issue,
  // never read as a default.
  if (const Json* spec = Find(object, "spec")) {
    for (const FieldTypeProblem& p : CheckApplicationFieldTypes(Json{{"spec", *spec}}))
      AddIssue(issues, file, Sub(path, p.path), p.message);
  }
  app.spec_fingerprint = SpecFingerprint(app.spec);

  const Json* status = Find(object, "status");
  if (!status || !status->is_object()) return app;
  const std::string spath = Sub(path, "status");
  if (const Json* sync = Find(*status, "sync")) {
    app.sync_status = StringAt(*sync, "status");
    if (const Json* revs = Find(*sync, "revisions"); revs && revs->is_array() && !revs->empty()) {
      for (const auto& r : *revs)
        app.revisions.push_back(r.is_string() ? r.get<std::string>() : "");
    } else if (std::string rev = StringAt(*sync, "revision"); !rev.empty()) {
      app.revisions.push_back(std::move(rev));
    }
  }
  if (const Json* health = Find(*status, "health")) app.health_status = StringAt(*health, "status");
  app.reconciled_at = TimeAt(*status, "reconciledAt", file, spath, issues);
  if (const Json* op = Find(*status, "operationState"); op && op->is_object()) {
    OperationState state;
    state.phase = StringAt(*op, "phase");
    state.started_at = TimeAt(*op, "startedAt", file, Sub(spath, "operationState"), issues);
    if (const Json* operation = Find(*op, "operation")) state.operation = *operation;
    app.operation_state = std::move(state);
  }
  if (const Json* conditions = Find(*status, "conditions"); conditions && conditions->is_array()) {
    for (const auto& c : *conditions) {
      app.conditions.push_back({StringAt(c, "type"), StringAt(c, "message")});
    }
  }
  return app;
}

void DecodeApplicationDocument(const Json& document, const std::string& file,
                               DecodedApplications& into) {
  const Json* items = nullptr;
  std::string prefix;
  if (document.is_array()) {
    items = &document;
  } else if (const Json* it = Find(document, "items")) {
    if (!it->is_array()) {
      AddIssue(into.issues, file, "items", "items must be a list");
      return;
    }
    items = it;
    prefix = "items";
  }
  std::unordered_set<std::string> seen;
  for (const auto& a : into.apps) seen.insert(a.name);
  auto add = [&](const Json& object, const std::string& path) {
    auto app = DecodeApplication(object, file, path, into.issues);
    if (!app) return;
    if (!seen.insert(app->name).second) {
      AddIssue(into.issues, file, Sub(path, "metadata.name"),
               "duplicate Application \"" + app->name + "\"");
      return;
    }
    into.apps.push_back(std::move(*app));
  };
  if (!items) {
    add(document, "");
    return;
  }
  for (size_t i = 0; i < items->size(); ++i) {
    add((*items)[i], prefix + "[" + std::to_string(i) + "]");
  }
}

}  // namespace fleetwave::engine
