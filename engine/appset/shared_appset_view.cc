#include "engine/appset/shared_appset_view.h"

#include <set>
#include <utility>

#include "engine/sync/operation_record.h"

namespace fleetwave::engine {

namespace {

// The Application of one app as far as the stored records tell it.
Json ApplicationOf(const StoredAppSetParts& parts, const std::string& app, Issues& issues) {
  Json status = Json::object();
  if (auto op = parts.operations.find(app); op != parts.operations.end()) {
    Issues found;
    if (std::optional<OperationRecord> record = OperationRecordFromJson(op->second, found)) {
      status["operationState"] = OperationRecordToJson(*record);
    } else {
      for (Issue& issue : found) {
        issue.path = "appsets/" + parts.name + "/operation/" + app +
                     (issue.path.empty() ? "" : ": " + issue.path);
        issues.push_back(std::move(issue));
      }
    }
  }
  Json out = Json::object();
  out["apiVersion"] = "argoproj.io/v1alpha1";
  out["kind"] = "Application";
  out["metadata"] = {{"name", app}};
  auto spec = parts.specs.find(app);
  out["spec"] =
      spec != parts.specs.end() && spec->second.is_object() ? spec->second : Json::object();
  out["status"] = std::move(status);
  return out;
}

}  // namespace

SharedAppSetView SharedAppSetViewOf(const StoredAppSetParts& parts, const Json& spec,
                                    Issues& issues) {
  SharedAppSetView out;
  Json status = Json::object();
  Json entries = Json::array();
  // Stored per app, so in app order: the order the leader's status lists them in.
  for (const auto& [app, entry] : parts.statuses) entries.push_back(entry);
  status["applicationStatus"] = std::move(entries);
  status["conditions"] =
      parts.conditions && parts.conditions->is_array() ? *parts.conditions : Json::array();
  if (parts.rollout && parts.rollout->is_object()) status["rollout"] = *parts.rollout;
  out.appset = Json::object();
  out.appset["metadata"] = {{"name", parts.name}};
  if (spec.is_object()) out.appset["spec"] = spec;
  out.appset["status"] = std::move(status);
  out.appset["sharedState"] = {{"source", "etcd"}, {"revision", parts.revision}};

  std::set<std::string> apps;
  for (const auto* per_app : {&parts.statuses, &parts.specs, &parts.operations}) {
    for (const auto& [app, value] : *per_app) apps.insert(app);
  }
  for (const std::string& app : apps) out.applications.push_back(ApplicationOf(parts, app, issues));
  return out;
}

}  // namespace fleetwave::engine
