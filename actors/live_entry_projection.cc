#include "actors/live_entry_json.h"

#include "cluster-clients/json_fields.h"
#include "engine/progress/workload.h"
#include "engine/sync/tracking.h"

namespace fleetwave::actors {

Json ProjectEntry(const Json& object) {
  clients::FieldReader reader(object);
  std::string label = reader.String({"metadata", "labels", engine::kAppLabel});
  if (!engine::WorkloadKindOf(object)) {
    return Json{{"label", std::move(label)},
                {"live", LiveObjectToJson(engine::ProjectLiveObject(object))},
                {"health", engine::HealthToJson(engine::AssessHealth(object))}};
  }
  // A workload's deadline is the daemon's own decision (its workload actor), not the object's
  // status: both healths are computed here, where the whole object is at hand, and the cluster
  // actor picks one by that decision (LiveEntryJsonTest.WorkloadsCarryBothHealths).
  return Json{
      {"label", std::move(label)},
      {"live", LiveObjectToJson(engine::ProjectLiveObject(object))},
      {"health", engine::HealthToJson(engine::AssessHealth(object, engine::DeadlineView{}))},
      {"healthIfExceeded",
       engine::HealthToJson(engine::AssessHealth(object, engine::DeadlineView{true, ""}))}};
}

Json LiveObjectToJson(const engine::LiveObject& live) {
  Json out = {{"ref",
               {{"group", live.ref.group},
                {"kind", live.ref.kind},
                {"namespace", live.ref.namespace_},
                {"name", live.ref.name}}},
              {"resourceVersion", live.resource_version},
              {"annotations", Json::object()},
              {"managedFields", live.managed_fields},
              {"managedValues", live.managed_values}};
  if (live.generation) out["generation"] = *live.generation;
  if (live.observed_generation) out["observedGeneration"] = *live.observed_generation;
  for (const auto& [key, value] : live.annotations) out["annotations"][key] = value;
  return out;
}

std::optional<engine::LiveObject> LiveObjectFromJson(const Json& json, std::string* error) {
  clients::FieldReader r(json);
  engine::LiveObject live;
  live.ref.group = r.String({"ref", "group"});
  live.ref.kind = r.RequiredString({"ref", "kind"});
  live.ref.namespace_ = r.String({"ref", "namespace"});
  live.ref.name = r.RequiredString({"ref", "name"});
  live.resource_version = r.String({"resourceVersion"});
  live.generation = r.Int({"generation"});
  live.observed_generation = r.Int({"observedGeneration"});
  if (const Json* annotations = r.Object({"annotations"})) {
    for (const auto& [key, value] : annotations->items()) {
      if (!value.is_string()) {
        *error =
            "annotations." + key + " is " + clients::JsonTypeName(value) + ", expected a string";
        return std::nullopt;
      }
      live.annotations[key] = value.get<std::string>();
    }
  }
  const Json* fields = r.Find({"managedFields"});
  const Json* values = r.Find({"managedValues"});
  if (!r.ok()) {
    *error = r.error();
    return std::nullopt;
  }
  live.managed_fields = fields ? *fields : Json();
  live.managed_values = values ? *values : Json::object();
  return live;
}

std::optional<ProjectedEntry> EntryFromProjection(const Json& fields, std::string* error) {
  clients::FieldReader r(fields);
  ProjectedEntry out;
  out.label = r.String({"label"});
  const Json* live = r.Object({"live"});
  const std::string status = r.RequiredString({"health", "status"});
  out.entry.health.message = r.String({"health", "message"});
  if (!r.ok()) {
    *error = r.error();
    return std::nullopt;
  }
  if (live == nullptr) {
    *error = "live is missing";
    return std::nullopt;
  }
  const std::optional<engine::HealthCode> code = engine::ParseHealthCode(status);
  if (!code) {
    *error = "health.status \"" + status + "\" is not a health code";
    return std::nullopt;
  }
  out.entry.health.status = *code;
  if (const Json* h = r.Object({"healthIfExceeded"})) {
    clients::FieldReader hr(*h);
    const std::optional<engine::HealthCode> c = engine::ParseHealthCode(hr.String({"status"}));
    if (!c) {
      *error = "healthIfExceeded.status is not a health code";
      return std::nullopt;
    }
    out.health_if_exceeded = engine::HealthStatus{*c, hr.String({"message"})};
  }
  std::optional<engine::LiveObject> object = LiveObjectFromJson(*live, error);
  if (!object) {
    *error = "live." + *error;
    return std::nullopt;
  }
  out.entry.object = std::move(*object);
  return out;
}

}  // namespace fleetwave::actors
