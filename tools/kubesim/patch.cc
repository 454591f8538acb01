#include "tools/kubesim/patch.h"

#include <algorithm>
#include <vector>

#include "tools/kubesim/field_set.h"

namespace fleetwave::kubesim {

namespace {

bool SameKey(const Json& a, const Json& b, const std::string& key) {
  return a.is_object() && b.is_object() && a.contains(key) && b.contains(key) && a[key] == b[key];
}

void Merge(Json& target, const Json& patch, std::vector<std::string>& names);

void MergeList(Json& target, const Json& patch, const Json* order,
               std::vector<std::string>& names) {
  std::string key = MergeKeyFor(names);
  bool keyed = !key.empty() && target.is_array();
  if (keyed)
    for (const auto& item : patch)
      if (!item.is_object() || !item.contains(key)) keyed = false;
  if (!keyed) {
    // Atomic lists are replaced; directives inside them are meaningless and dropped.
    target = Json::array();
    for (const auto& item : patch)
      if (!(item.is_object() && item.contains("$patch"))) target.push_back(item);
    return;
  }
  for (const auto& item : patch) {
    auto match = std::find_if(target.begin(), target.end(),
                              [&](const Json& t) { return SameKey(t, item, key); });
    std::string directive = item.value("$patch", "");
    if (directive == "delete") {
      if (match != target.end()) target.erase(match);
      continue;
    }
    Json clean = item;
    clean.erase("$patch");
    if (match == target.end()) {
      Json fresh = Json::object();
      Merge(fresh, clean, names);
      target.push_back(fresh);
    } else if (directive == "replace") {
      *match = clean;
    } else {
      Merge(*match, clean, names);
    }
  }
  if (order && order->is_array()) {
    // $setElementOrder lists the final order of the keyed items it names.
    Json sorted = Json::array();
    for (const auto& o : *order) {
      auto it = std::find_if(target.begin(), target.end(),
                             [&](const Json& t) { return SameKey(t, o, key); });
      if (it != target.end()) sorted.push_back(*it);
    }
    for (const auto& t : target) {
      bool listed = std::any_of(order->begin(), order->end(),
                                [&](const Json& o) { return SameKey(t, o, key); });
      if (!listed) sorted.push_back(t);
    }
    target = std::move(sorted);
  }
}

void Merge(Json& target, const Json& patch, std::vector<std::string>& names) {
  if (!patch.is_object()) {
    target = patch;
    return;
  }
  if (patch.value("$patch", "") == "replace") {
    target = patch;
    target.erase("$patch");
    return;
  }
  if (!target.is_object()) target = Json::object();
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string& k = it.key();
    const Json& v = it.value();
    if (k == "$patch" || k == "$retainKeys" || k.rfind("$setElementOrder/", 0) == 0) continue;
    if (k.rfind("$deleteFromPrimitiveList/", 0) == 0) {
      std::string field = k.substr(std::string("$deleteFromPrimitiveList/").size());
      if (target.contains(field) && target[field].is_array() && v.is_array()) {
        Json kept = Json::array();
        for (const auto& e : target[field])
          if (std::find(v.begin(), v.end(), e) == v.end()) kept.push_back(e);
        target[field] = kept;
      }
      continue;
    }
    if (v.is_null()) {
      target.erase(k);
      continue;
    }
    names.push_back(k);
    if (v.is_object()) {
      if (v.value("$patch", "") == "delete") {
        target.erase(k);
      } else {
        if (!target.contains(k)) target[k] = Json::object();
        Merge(target[k], v, names);
      }
    } else if (v.is_array()) {
      auto order_it = patch.find("$setElementOrder/" + k);
      if (!target.contains(k) || !target[k].is_array()) target[k] = Json::array();
      MergeList(target[k], v, order_it == patch.end() ? nullptr : &*order_it, names);
    } else {
      target[k] = v;
    }
    names.pop_back();
  }
  if (patch.contains("$retainKeys") && patch["$retainKeys"].is_array()) {
    const Json& keep = patch["$retainKeys"];
    for (auto it = target.begin(); it != target.end();) {
      if (std::find(keep.begin(), keep.end(), Json(it.key())) == keep.end())
        it = target.erase(it);
      else
        ++it;
    }
  }
}

}  // namespace

std::optional<PatchType> PatchTypeOf(const std::string& content_type) {
  std::string ct = content_type.substr(0, content_type.find(';'));
  if (ct == "application/merge-patch+json") return PatchType::kMerge;
  if (ct == "application/json-patch+json") return PatchType::kJson;
  if (ct == "application/strategic-merge-patch+json") return PatchType::kStrategic;
  if (ct == "application/apply-patch+yaml" || ct == "application/apply-patch+json")
    return PatchType::kApply;
  return std::nullopt;
}

Json StrategicMerge(const Json& target, const Json& patch) {
  Json out = target;
  std::vector<std::string> names;
  Merge(out, patch, names);
  return out;
}

std::optional<Json> ApplyPatch(const Json& target, const Json& patch, PatchType type,
                               std::string* error) {
  switch (type) {
    case PatchType::kMerge: {
      if (!patch.is_object()) {
        *error = "merge patch must be a JSON object";
        return std::nullopt;
      }
      Json out = target;
      out.merge_patch(patch);
      return out;
    }
    case PatchType::kJson:
      if (!patch.is_array()) {
        *error = "json patch must be a JSON array";
        return std::nullopt;
      }
      try {
        return target.patch(patch);
      } catch (const Json::exception& e) {
        *error = e.what();
        return std::nullopt;
      }
    case PatchType::kStrategic:
      if (!patch.is_object()) {
        *error = "strategic merge patch must be a JSON object";
        return std::nullopt;
      }
      return StrategicMerge(target, patch);
    case PatchType::kApply:
      break;
  }
  *error = "unsupported patch type";
  return std::nullopt;
}

}  // namespace fleetwave::kubesim
