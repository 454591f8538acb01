// The identity of a Kubernetes object inside one cluster: API group, kind, namespace and name.
// The version is not part of it (an object is the same object whatever version reads it).
// Values only.
#pragma once

#include <compare>
#include <string>
#include <string_view>

#include "engine/yaml_json.h"

namespace fleetwave::engine {

struct ObjectRef {
  std::string group;  // "" for the core group
  std::string kind;
  std::string namespace_;  // "" for cluster-scoped objects
  std::string name;

  auto operator<=>(const ObjectRef&) const = default;

  // "<kind>/<name>", the form every user-facing message names an object by.
  std::string KindName() const { return kind + "/" + name; }
};

// The group of an apiVersion: "apps/v1" -> "apps", "v1" -> "".
std::string GroupOfApiVersion(std::string_view api_version);

// The identity of an object as written (apiVersion, kind, metadata.namespace/name); fields
// that are absent or not strings read as "".
ObjectRef RefOf(const Json& object);

// Kubernetes' "Namespace" and apiextensions' "CustomResourceDefinition": the kinds applied
// first and deleted only when allowed (`fleetwave.io/allow-delete`).
bool IsNamespace(const ObjectRef& ref);
bool IsCrd(const ObjectRef& ref);

}  // namespace fleetwave::engine
