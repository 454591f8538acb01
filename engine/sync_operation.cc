#include "engine/sync_operation.h"

namespace fleetwave::engine {
namespace {

constexpr const char* kReason =
    "ApplicationSet RollingSync triggered a sync of this Application resource";
constexpr int kDefaultRetryLimit = 5;

const Json* Child(const Json* object, const char* key) {
  if (!object || !object->is_object()) return nullptr;
  auto it = object->find(key);
  return it == object->end() || it->is_null() ? nullptr : &*it;
}

}  // namespace

Json BuildSyncOperation(const Json& spec, const std::vector<std::string>& pinned,
                        bool multi_source) {
  Json sync = Json::object();
  if (multi_source) {
    if (!pinned.empty()) sync["revisions"] = pinned;
  } else if (!pinned.empty() && !pinned.front().empty()) {
    sync["revision"] = pinned.front();
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
  Json op = {
      {"initiatedBy", {{"username", "applicationset-controller"}, {"automated", true}}},
      {"info", Json::array({{{"name", "Reason"}, {"value", kReason}}})},
      {"sync", std::move(sync)},
  };
  const Json* retry = Child(policy, "retry");
  op["retry"] = retry && retry->is_object() ? *retry : Json{{"limit", kDefaultRetryLimit}};
  return op;
}

}  // namespace fleetwave::engine
