#include "tools/kubesim/conversion.h"

namespace fleetwave::kubesim {

namespace {
constexpr const char* kMovedFields[] = {"partition", "paused"};

void Nest(Json& object) {
  if (!object.contains("spec") || !object["spec"].is_object()) return;
  Json& spec = object["spec"];
  if (!spec.contains("updateStrategy") || !spec["updateStrategy"].is_object()) return;
  Json& us = spec["updateStrategy"];
  for (const char* f : kMovedFields) {
    if (!us.contains(f)) continue;
    us["rollingUpdate"][f] = us[f];
    us.erase(f);
  }
}

void Flatten(Json& object) {
  if (!object.contains("spec") || !object["spec"].is_object()) return;
  Json& spec = object["spec"];
  if (!spec.contains("updateStrategy") || !spec["updateStrategy"].is_object()) return;
  Json& us = spec["updateStrategy"];
  if (!us.contains("rollingUpdate") || !us["rollingUpdate"].is_object()) return;
  Json& ru = us["rollingUpdate"];
  for (const char* f : kMovedFields) {
    if (!ru.contains(f)) continue;
    us[f] = ru[f];
    ru.erase(f);
  }
  if (ru.empty()) us.erase("rollingUpdate");
}
}  // namespace

Json ToServedVersion(const ResourceType& type, Json stored, std::string_view version) {
  if (type.id == kCloneSets && version == "v1beta1") Nest(stored);
  stored["apiVersion"] = type.ApiVersion(version);
  stored["kind"] = type.kind;
  return stored;
}

Json ToStorageVersion(const ResourceType& type, Json served, std::string_view version) {
  if (type.id == kCloneSets && version == "v1beta1") Flatten(served);
  served["apiVersion"] = type.ApiVersion(type.versions.front());
  served["kind"] = type.kind;
  return served;
}

}  // namespace fleetwave::kubesim
