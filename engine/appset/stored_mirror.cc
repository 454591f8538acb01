#include "engine/appset/stored_mirror.h"

#include <utility>

#include "engine/rollingsync/rollout_status.h"

namespace fleetwave::engine {
namespace {

// `object[key]`, or null when `object` is not an object or has no such member.
const Json& MemberOrNull(const Json& object, const char* key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

}  // namespace

DecisionChange ChangeOfDecision(const StoredMirror& mirror, const AppSetReconcileResult& result) {
  DecisionChange out;
  MirrorChange& change = out.change;
  const Json& entries = MemberOrNull(result.status, "applicationStatus");
  if (entries.is_array()) {
    for (const auto& entry : entries) {
      const Json& name = MemberOrNull(entry, "application");
      if (!name.is_string()) continue;
      const std::string app = name.get<std::string>();
      out.present.insert(app);
      auto it = mirror.statuses.find(app);
      if (it == mirror.statuses.end() || it->second != entry) change.statuses[app] = entry;
    }
  }
  const Json& conditions = MemberOrNull(result.status, "conditions");
  Json new_conditions = conditions.is_array() ? conditions : Json::array();
  if (new_conditions != mirror.conditions) change.conditions = std::move(new_conditions);
  const Json& rollout = MemberOrNull(result.status, "rollout");
  if (rollout.is_object() && (!mirror.rollout || *mirror.rollout != rollout)) {
    change.rollout = rollout;
  }
  change.specs = result.specs;
  for (const auto& start : result.starts) change.operations[start.app] = start.record;
  return out;
}

MirrorChange ChangeOfDelta(const AppSetDelta& delta, const Json& status) {
  MirrorChange change;
  for (const auto& e : delta.changed_entries) {
    change.statuses[e.application] = EncodeAppRolloutStatus(e);
  }
  if (delta.conditions) change.conditions = MemberOrNull(status, "conditions");
  if (delta.rollout) change.rollout = MemberOrNull(status, "rollout");
  change.specs = delta.specs;
  for (const auto& start : delta.starts) change.operations[start.app] = start.record;
  return change;
}

MirrorUpdated ApplyChange(StoredMirror& mirror, MirrorChange change) {
  MirrorUpdated updated;
  for (const auto& app : change.removed) {
    mirror.statuses.erase(app);
    mirror.stored.erase(app);
  }
  for (auto& [app, value] : change.statuses) mirror.statuses[app] = std::move(value);
  for (auto& [app, value] : change.specs) {
    StoredApp& stored = mirror.stored[app];
    stored.spec = std::move(value);
    stored.spec_fingerprint = 0;
    updated.specs.push_back(app);
  }
  for (auto& [app, record] : change.operations) {
    auto& live = mirror.stored[app].operation;
    if (!(live && live->id == record.id)) live = std::move(record);
    updated.operations.push_back(app);
  }
  if (change.conditions) mirror.conditions = std::move(*change.conditions);
  if (change.rollout) mirror.rollout = std::move(change.rollout);
  return updated;
}

Json StoredStatusJson(const StoredMirror& mirror) {
  Json status = Json::object();
  Json entries = Json::array();
  for (const auto& [app, entry] : mirror.statuses) entries.push_back(entry);
  status["applicationStatus"] = std::move(entries);
  status["conditions"] = mirror.conditions;
  if (mirror.rollout) status["rollout"] = *mirror.rollout;
  return status;
}

}  // namespace fleetwave::engine
