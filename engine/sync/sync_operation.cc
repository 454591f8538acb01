#include "engine/sync/sync_operation.h"

namespace fleetwave::engine {

bool IsMultiSourceSpec(const Json& spec) {
  if (!spec.is_object()) return false;
  auto sources = spec.find("sources");
  return sources != spec.end() && sources->is_array() && !sources->empty();
}

std::string JoinRevisions(const std::vector<std::string>& revisions) {
  std::string out;
  for (const auto& r : revisions) {
    if (!out.empty()) out += ",";
    out += r;
  }
  return out;
}
namespace {

constexpr const char* kRolloutReason =
    "ApplicationSet RollingSync triggered a sync of this Application resource";
constexpr int kDefaultRetryLimit = 5;

const Json* Child(const Json* object, const char* key) {
  if (!object || !object->is_object()) return nullptr;
  auto it = object->find(key);
  return it == object->end() || it->is_null() ? nullptr : &*it;
}

}  // namespace

Json BuildSyncOperation(const Json& spec, const std::vector<std::string>& revisions,
                        bool multi_source, const SyncTrigger& trigger) {
  Json sync = Json::object();
  if (multi_source) {
    if (!revisions.empty()) sync["revisions"] = revisions;
  } else if (!revisions.empty() && !revisions.front().empty()) {
    sync["revision"] = revisions.front();
  }
  const Json* policy = Child(&spec, "syncPolicy");
  // The template's automated prune. `automated.enabled` is ignored on purpose: RollingSync
  // itself writes enabled=false to keep Argo's auto-sync away, which says nothing about prune.
  if (const Json* prune = Child(Child(policy, "automated"), "prune");
      prune && prune->is_boolean() && prune->get<bool>()) {
    sync["prune"] = true;
  }
  if (const Json* options = Child(policy, "syncOptions"); options && !options->empty()) {
    sync["syncOptions"] = *options;
  }
  Json initiated = Json::object();
  if (!trigger.username.empty()) initiated["username"] = trigger.username;
  if (trigger.automated) initiated["automated"] = true;
  Json op = Json::object();
  op["initiatedBy"] = std::move(initiated);
  if (!trigger.reason.empty()) {
    op["info"] = Json::array({{{"name", "Reason"}, {"value", trigger.reason}}});
  }
  op["sync"] = std::move(sync);
  const Json* retry = Child(policy, "retry");
  op["retry"] = retry && retry->is_object() ? *retry : Json{{"limit", kDefaultRetryLimit}};
  return op;
}

Json BuildSyncOperation(const Json& spec, const std::vector<std::string>& pinned,
                        bool multi_source) {
  return BuildSyncOperation(spec, pinned, multi_source,
                            SyncTrigger{"applicationset-controller", true, kRolloutReason});
}

Json BuildAutomatedSyncOperation(const Json& spec, const std::vector<std::string>& revisions,
                                 bool multi_source) {
  return BuildSyncOperation(spec, revisions, multi_source, SyncTrigger{"", true, ""});
}

ManualSync BuildManualSyncOperation(const Json& spec, const std::vector<std::string>& pinned,
                                    bool multi_source, const std::optional<std::string>& revision,
                                    const std::string& initiated_by) {
  if (revision && multi_source) {
    return {nullptr,
            InvalidInputError(
                "", "--revision names one revision; this application has several sources")};
  }
  const std::vector<std::string> revisions = revision ? std::vector{*revision} : pinned;
  return {BuildSyncOperation(spec, revisions, multi_source, SyncTrigger{initiated_by, false, ""}),
          std::nullopt};
}

}  // namespace fleetwave::engine
