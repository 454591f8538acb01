#include "tools/kubesim/ssa.h"

#include <algorithm>

namespace fleetwave::kubesim {

namespace {

struct ManagedEntry {
  std::string manager;
  std::string operation;
  std::string api_version;
  std::string time;
  std::string subresource;
  FieldSet fields;
};

std::vector<ManagedEntry> ReadManaged(const Json& object) {
  std::vector<ManagedEntry> out;
  if (!object.contains("metadata") || !object["metadata"].contains("managedFields")) return out;
  for (const auto& e : object["metadata"]["managedFields"]) {
    if (!e.is_object()) continue;
    ManagedEntry m;
    m.manager = e.value("manager", "");
    m.operation = e.value("operation", "");
    m.api_version = e.value("apiVersion", "");
    m.time = e.value("time", "");
    m.subresource = e.value("subresource", "");
    if (e.contains("fieldsV1")) m.fields = FromFieldsV1(e["fieldsV1"]);
    out.push_back(std::move(m));
  }
  return out;
}

void WriteManaged(Json& object, const std::vector<ManagedEntry>& entries) {
  Json list = Json::array();
  for (const auto& m : entries) {
    if (m.fields.empty()) continue;
    Json e = {{"manager", m.manager},        {"operation", m.operation},
              {"apiVersion", m.api_version}, {"time", m.time},
              {"fieldsType", "FieldsV1"},    {"fieldsV1", ToFieldsV1(m.fields)}};
    if (!m.subresource.empty()) e["subresource"] = m.subresource;
    list.push_back(std::move(e));
  }
  if (list.empty())
    object["metadata"].erase("managedFields");
  else
    object["metadata"]["managedFields"] = std::move(list);
}

ManagedEntry& EntryFor(std::vector<ManagedEntry>& entries, const ApplyRequest& r,
                       const std::string& operation) {
  for (auto& e : entries)
    if (e.manager == r.manager && e.operation == operation && e.subresource == r.subresource)
      return e;
  entries.push_back({r.manager, operation, r.api_version, r.now, r.subresource, {}});
  return entries.back();
}

bool IsPrefix(const FieldPath& prefix, const FieldPath& path) {
  if (prefix.size() > path.size()) return false;
  return std::equal(prefix.begin(), prefix.end(), path.begin());
}

}  // namespace

void MergeApplied(Json& live, const Json& applied, std::vector<std::string>& names) {
  if (!applied.is_object() || !live.is_object()) {
    live = applied;
    return;
  }
  for (auto it = applied.begin(); it != applied.end(); ++it) {
    const std::string& key = it.key();
    const Json& value = it.value();
    names.push_back(key);
    auto existing = live.find(key);
    if (existing == live.end()) {
      live[key] = value;
    } else if (value.is_object() && existing->is_object()) {
      MergeApplied(*existing, value, names);
    } else if (value.is_array() && existing->is_array() && !MergeKeyFor(names).empty()) {
      std::string mk = MergeKeyFor(names);
      for (const auto& item : value) {
        if (!item.is_object() || !item.contains(mk)) {
          *existing = value;  // not a well-formed keyed list: treat it as atomic
          break;
        }
        auto match = std::find_if(existing->begin(), existing->end(), [&](const Json& l) {
          return l.is_object() && l.contains(mk) && l[mk] == item[mk];
        });
        if (match == existing->end())
          existing->push_back(item);
        else
          MergeApplied(*match, item, names);
      }
    } else {
      *existing = value;
    }
    names.pop_back();
  }
}

ApplyOutcome Apply(const Json& live, const Json& applied, const ApplyRequest& request) {
  ApplyOutcome out;
  Json object = live.is_object() ? live : Json::object();
  std::vector<ManagedEntry> entries = ReadManaged(object);
  FieldSet applied_set = FieldsOf(applied, request.scope);

  // A field another manager owns with a different value than the one applied is contested.
  for (auto& e : entries) {
    if (e.subresource != request.subresource) continue;
    if (e.manager == request.manager && e.operation == "Apply") continue;
    for (const auto& path : applied_set) {
      if (path.back() == "." || !e.fields.count(path)) continue;
      const Json* want = Lookup(applied, path);
      const Json* have = Lookup(object, path);
      if (have && want && *have != *want) out.conflicts.push_back({e.manager, e.api_version, path});
    }
  }
  if (!out.conflicts.empty() && !request.force) return out;
  for (const auto& c : out.conflicts)
    for (auto& e : entries)
      if (e.manager == c.manager && e.subresource == request.subresource) e.fields.erase(c.path);
  out.conflicts.clear();

  ManagedEntry& mine = EntryFor(entries, request, "Apply");
  FieldSet previous = mine.fields;
  mine.fields = applied_set;
  mine.api_version = request.api_version;
  mine.time = request.now;

  std::vector<std::string> names;
  Json body = applied;
  // Identity and server-owned fields are never taken from the applied configuration.
  body.erase("status");
  if (request.scope == FieldScope::kStatus)
    body = Json{{"status", applied.value("status", Json())}};
  if (body.contains("metadata") && body["metadata"].is_object()) {
    for (const char* k : {"uid", "resourceVersion", "generation", "creationTimestamp",
                          "managedFields", "deletionTimestamp"})
      body["metadata"].erase(k);
  }
  MergeApplied(object, body, names);

  // Fields this manager applied before but not now go away unless someone else owns them.
  std::vector<FieldPath> dropped;
  for (const auto& path : previous)
    if (!applied_set.count(path)) dropped.push_back(path);
  std::sort(dropped.begin(), dropped.end(),
            [](const FieldPath& a, const FieldPath& b) { return a.size() > b.size(); });
  for (const auto& path : dropped) {
    bool owned = false;
    for (const auto& e : entries) {
      if (&e == &mine) continue;
      for (const auto& p : e.fields)
        if (IsPrefix(path.back() == "." ? FieldPath(path.begin(), path.end() - 1) : path, p))
          owned = true;
    }
    if (!owned) RemovePath(object, path);
  }
  if (!object.contains("metadata")) object["metadata"] = Json::object();
  WriteManaged(object, entries);
  out.object = std::move(object);
  return out;
}

ApiError ConflictError(const std::vector<FieldConflict>& conflicts, const std::string& group,
                       const std::string& plural, const std::string& name) {
  ApiError e;
  e.code = 409;
  e.reason = "Conflict";
  e.kind = plural;
  e.name = name;
  e.group = group;
  std::string msg = "Apply failed with " + std::to_string(conflicts.size()) + " conflict" +
                    (conflicts.size() == 1 ? "" : "s") + ": ";
  for (std::size_t i = 0; i < conflicts.size(); ++i) {
    const auto& c = conflicts[i];
    std::string who = "conflict with \"" + c.manager + "\"" +
                      (c.api_version.empty() ? "" : " using " + c.api_version);
    if (i) msg += "\n";
    msg += who + ": " + DescribePath(c.path);
    e.causes.push_back({"FieldManagerConflict", who, DescribePath(c.path)});
  }
  e.message = msg;
  return e;
}

void TrackUpdate(const Json* old, Json& updated, const ApplyRequest& request) {
  std::vector<ManagedEntry> entries = old ? ReadManaged(*old) : ReadManaged(updated);
  FieldSet now_set = FieldsOf(updated, request.scope);
  FieldSet changed;
  FieldSet removed;
  if (!old) {
    changed = now_set;
  } else {
    for (const auto& p : now_set) {
      const Json* before = Lookup(*old, p);
      const Json* after = Lookup(updated, p);
      if (!before || !after || (p.back() != "." && *before != *after)) changed.insert(p);
    }
    for (const auto& p : FieldsOf(*old, request.scope))
      if (!now_set.count(p)) removed.insert(p);
  }
  if (!changed.empty() || !removed.empty()) {
    for (auto& e : entries) {
      if (e.subresource != request.subresource) continue;
      for (const auto& p : changed) e.fields.erase(p);
      for (const auto& p : removed) e.fields.erase(p);
    }
    ManagedEntry& mine = EntryFor(entries, request, "Update");
    mine.fields.insert(changed.begin(), changed.end());
    mine.api_version = request.api_version;
    mine.time = request.now;
  }
  if (!updated.contains("metadata")) updated["metadata"] = Json::object();
  WriteManaged(updated, entries);
}

}  // namespace fleetwave::kubesim
