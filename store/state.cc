#include "store/state.h"

#include <utility>

namespace fleetwave::store {
namespace keys {
namespace {

std::string AppKey(const std::string& appset, const char* what, const std::string& app) {
  return AppSetPrefix(appset) + what + "/" + Segment(app);
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

std::string Segment(const std::string& name) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '%' || c == '/' || u < 0x20 || u == 0x7f) {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

std::string Unsegment(const std::string& segment) {
  std::string out;
  for (size_t i = 0; i < segment.size(); ++i) {
    if (segment[i] == '%' && i + 2 < segment.size() && HexValue(segment[i + 1]) >= 0 &&
        HexValue(segment[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(segment[i + 1]) * 16 + HexValue(segment[i + 2]));
      i += 2;
    } else {
      out += segment[i];
    }
  }
  return out;
}

std::string AppSetPrefix(const std::string& appset) { return "appsets/" + Segment(appset) + "/"; }
std::string AppStatus(const std::string& appset, const std::string& app) {
  return AppKey(appset, "status", app);
}
std::string Pin(const std::string& appset, const std::string& app) {
  return AppKey(appset, "pin", app);
}
std::string AppliedHash(const std::string& appset, const std::string& app) {
  return AppKey(appset, "applied", app);
}
std::string AppSpec(const std::string& appset, const std::string& app) {
  return AppKey(appset, "spec", app);
}
std::string Operation(const std::string& appset, const std::string& app) {
  return AppKey(appset, "operation", app);
}
std::string Conditions(const std::string& appset) { return AppSetPrefix(appset) + "conditions"; }
std::string Rollout(const std::string& appset) { return AppSetPrefix(appset) + "rollout"; }
std::string SetDeletion(const std::string& appset) {
  return kDeletionsPrefix + Segment(appset) + "/set";
}
std::string AppDeletion(const std::string& appset, const std::string& app) {
  return kDeletionsPrefix + Segment(appset) + "/app/" + Segment(app);
}
std::string WorkloadClusterPrefix(const std::string& cluster) {
  return "workloads/" + Segment(cluster) + "/";
}
std::string Workload(const std::string& cluster, const std::string& ns, const std::string& kind,
                     const std::string& name) {
  return WorkloadClusterPrefix(cluster) + Segment(ns) + "/" + Segment(kind) + "/" + Segment(name);
}
std::string InputFile(const std::string& path) { return kInputsPrefix + Segment(path); }
std::string WatchedKinds(const std::string& cluster) { return kWatchesPrefix + Segment(cluster); }

namespace {
// The first segment after `prefix`, unescaped; nullopt when `key` is not under it.
std::optional<std::string> FirstSegment(const std::string& key, const std::string& prefix,
                                        bool more) {
  if (key.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  const size_t slash = key.find('/', prefix.size());
  if ((slash != std::string::npos) != more || slash == prefix.size()) return std::nullopt;
  return Unsegment(key.substr(prefix.size(), slash - prefix.size()));
}
}  // namespace

std::optional<std::string> AppSetOfKey(const std::string& key) {
  return FirstSegment(key, kAppSetsPrefix, true);
}
std::optional<std::string> ClusterOfWatchesKey(const std::string& key) {
  return FirstSegment(key, kWatchesPrefix, false);
}

}  // namespace keys

namespace {

// Splits "a/b/c" into segments (unescaped).
std::vector<std::string> Split(const std::string& rest) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t slash = rest.find('/', start);
    out.push_back(keys::Unsegment(rest.substr(start, slash - start)));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return out;
}

// The JSON type a record of that key holds: every record is an object but the set's
// conditions (a list) and an applied spec hash (a string).
enum class Shape { kObject, kArray, kString };
const char* ShapeName(Shape shape) {
  return shape == Shape::kObject ? "an object" : shape == Shape::kArray ? "an array" : "a string";
}
bool HasShape(const Json& v, Shape shape) {
  return shape == Shape::kObject  ? v.is_object()
         : shape == Shape::kArray ? v.is_array()
                                  : v.is_string();
}

// Decodes a stored JSON value of the expected shape; a value that does not parse or has another
// type is reported (kCorrupt, naming the key), never thrown and never read as a default.
bool Decode(const Entry& e, Shape shape, Record& out, Status& status) {
  Json v = Json::parse(e.value, nullptr, /*allow_exceptions=*/false);
  if (v.is_discarded()) {
    status = {Code::kCorrupt, e.key + ": stored value is not JSON"};
    return false;
  }
  if (!HasShape(v, shape)) {
    status = {Code::kCorrupt, e.key + ": stored value must be " + std::string(ShapeName(shape)) +
                                  ", not " + (v.is_array() || v.is_object() ? "an " : "a ") +
                                  v.type_name()};
    return false;
  }
  out = {std::move(v), e.revision};
  return true;
}

}  // namespace

StateBatch& StateBatch::PutJson(std::string key, const Json& v, Expected expected) {
  ops_.push_back(Op::Put(std::move(key), v.dump(), expected));
  return *this;
}

StateBatch& StateBatch::PutAppStatus(const std::string& appset, const std::string& app,
                                     const Json& v, Expected expected) {
  return PutJson(keys::AppStatus(appset, app), v, expected);
}
StateBatch& StateBatch::PutPin(const std::string& appset, const std::string& app, const Json& v,
                               Expected expected) {
  return PutJson(keys::Pin(appset, app), v, expected);
}
StateBatch& StateBatch::PutAppliedHash(const std::string& appset, const std::string& app,
                                       const std::string& hash, Expected expected) {
  return PutJson(keys::AppliedHash(appset, app), Json(hash), expected);
}
StateBatch& StateBatch::PutAppSpec(const std::string& appset, const std::string& app,
                                   const Json& spec, Expected expected) {
  return PutJson(keys::AppSpec(appset, app), spec, expected);
}
StateBatch& StateBatch::PutOperation(const std::string& appset, const std::string& app,
                                     const Json& v, Expected expected) {
  return PutJson(keys::Operation(appset, app), v, expected);
}
StateBatch& StateBatch::PutConditions(const std::string& appset, const Json& v, Expected expected) {
  return PutJson(keys::Conditions(appset), v, expected);
}
StateBatch& StateBatch::PutRollout(const std::string& appset, const Json& v, Expected expected) {
  return PutJson(keys::Rollout(appset), v, expected);
}
StateBatch& StateBatch::PutDeletion(const std::string& appset, const std::string& app,
                                    const Json& v, Expected expected) {
  return PutJson(app.empty() ? keys::SetDeletion(appset) : keys::AppDeletion(appset, app), v,
                 expected);
}
StateBatch& StateBatch::PutWorkload(const std::string& cluster, const std::string& ns,
                                    const std::string& kind, const std::string& name, const Json& v,
                                    Expected expected) {
  return PutJson(keys::Workload(cluster, ns, kind, name), v, expected);
}
StateBatch& StateBatch::PutInputFile(const std::string& path, const std::string& text) {
  ops_.push_back(Op::Put(keys::InputFile(path), text));
  return *this;
}

StateBatch& StateBatch::PutWatchedKinds(const std::string& cluster, const Json& kinds) {
  return PutJson(keys::WatchedKinds(cluster), kinds, std::nullopt);
}

StateBatch& StateBatch::RemoveApp(const std::string& appset, const std::string& app) {
  for (std::string key :
       {keys::AppStatus(appset, app), keys::Pin(appset, app), keys::AppliedHash(appset, app),
        keys::AppSpec(appset, app), keys::Operation(appset, app), keys::AppDeletion(appset, app)}) {
    ops_.push_back(Op::Delete(std::move(key)));
  }
  return *this;
}
StateBatch& StateBatch::RemoveDeletion(const std::string& appset, const std::string& app) {
  return Remove(app.empty() ? keys::SetDeletion(appset) : keys::AppDeletion(appset, app));
}
StateBatch& StateBatch::RemoveWorkload(const std::string& cluster, const std::string& ns,
                                       const std::string& kind, const std::string& name) {
  return Remove(keys::Workload(cluster, ns, kind, name));
}
StateBatch& StateBatch::Remove(std::string key, Expected expected) {
  ops_.push_back(Op::Delete(std::move(key), expected));
  return *this;
}

Loaded<AppSetRecords> State::LoadAppSet(const std::string& appset) {
  ListResult list = store_.List(keys::AppSetPrefix(appset));
  if (!list.ok()) {
    Loaded<AppSetRecords> out;
    out.status = list.status;
    return out;
  }
  return AppSetRecordsOf(appset, list.entries, list.revision);
}

Loaded<AppSetRecords> AppSetRecordsOf(const std::string& appset, const std::vector<Entry>& entries,
                                      int64_t revision) {
  Loaded<AppSetRecords> out;
  const std::string prefix = keys::AppSetPrefix(appset);
  out.value.revision = revision;
  for (const Entry& e : entries) {
    if (e.key.compare(0, prefix.size(), prefix) != 0) continue;
    Record record;
    const std::vector<std::string> parts = Split(e.key.substr(prefix.size()));
    std::map<std::string, Record>* target = nullptr;
    if (parts.size() == 2) {
      target = parts[0] == "status"      ? &out.value.statuses
               : parts[0] == "pin"       ? &out.value.pins
               : parts[0] == "applied"   ? &out.value.applied_hashes
               : parts[0] == "operation" ? &out.value.operations
               : parts[0] == "spec"      ? &out.value.specs
                                         : nullptr;
    }
    const bool single = parts.size() == 1 && (parts[0] == "conditions" || parts[0] == "rollout");
    // Keys of a newer layout are ignored rather than misread.
    if (target == nullptr && !single) continue;
    const Shape shape = single && parts[0] == "conditions"    ? Shape::kArray
                        : target == &out.value.applied_hashes ? Shape::kString
                                                              : Shape::kObject;
    if (!Decode(e, shape, record, out.status)) return out;
    if (parts.size() == 1 && parts[0] == "conditions") {
      out.value.conditions = std::move(record);
    } else if (parts.size() == 1 && parts[0] == "rollout") {
      out.value.rollout = std::move(record);
    } else {
      (*target)[parts[1]] = std::move(record);
    }
  }
  return out;
}

Loaded<std::vector<PendingDeletion>> State::LoadDeletions() {
  Loaded<std::vector<PendingDeletion>> out;
  ListResult list = store_.List(keys::kDeletionsPrefix);
  if (!list.ok()) {
    out.status = list.status;
    return out;
  }
  const size_t skip = std::string(keys::kDeletionsPrefix).size();
  for (const Entry& e : list.entries) {
    PendingDeletion d;
    const std::vector<std::string> parts = Split(e.key.substr(skip));
    if (parts.size() == 2 && parts[1] == "set") {
      d.appset = parts[0];
    } else if (parts.size() == 3 && parts[1] == "app") {
      d.appset = parts[0];
      d.app = parts[2];
    } else {
      continue;
    }
    if (!Decode(e, Shape::kObject, d.record, out.status)) return out;
    out.value.push_back(std::move(d));
  }
  return out;
}

Loaded<std::vector<WorkloadRecord>> State::LoadWorkloads(const std::string& cluster) {
  Loaded<std::vector<WorkloadRecord>> out;
  const std::string prefix = keys::WorkloadClusterPrefix(cluster);
  ListResult list = store_.List(prefix);
  if (!list.ok()) {
    out.status = list.status;
    return out;
  }
  for (const Entry& e : list.entries) {
    WorkloadRecord w;
    const std::vector<std::string> parts = Split(e.key.substr(prefix.size()));
    if (parts.size() != 3) continue;
    if (!Decode(e, Shape::kObject, w.record, out.status)) return out;
    w.cluster = cluster;
    w.ns = parts[0];
    w.kind = parts[1];
    w.name = parts[2];
    out.value.push_back(std::move(w));
  }
  return out;
}

Loaded<std::optional<std::string>> State::LoadInputFile(const std::string& path) {
  Loaded<std::optional<std::string>> out;
  GetResult got = store_.Get(keys::InputFile(path));
  if (got.ok()) {
    out.value = std::move(got.entry.value);
  } else if (got.status.code != Code::kNotFound) {
    out.status = got.status;
  }
  return out;
}

Loaded<std::map<std::string, std::string>> State::LoadInputFiles() {
  Loaded<std::map<std::string, std::string>> out;
  ListResult list = store_.List(keys::kInputsPrefix);
  if (!list.ok()) {
    out.status = list.status;
    return out;
  }
  const size_t skip = std::string(keys::kInputsPrefix).size();
  for (Entry& e : list.entries) {
    out.value[keys::Unsegment(e.key.substr(skip))] = std::move(e.value);
  }
  return out;
}

}  // namespace fleetwave::store
