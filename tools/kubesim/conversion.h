// Version conversion between the stored form of an object and a served API version. Only
// CloneSet has two versions: stored as apps.kruise.io/v1alpha1 (`updateStrategy.partition`,
// `updateStrategy.paused`), served also as v1beta1 where those live under
// `updateStrategy.rollingUpdate`. Pure functions.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "tools/kubesim/resources.h"

namespace fleetwave::kubesim {

using Json = nlohmann::json;

// Sets apiVersion/kind and converts fields from the storage version to `version`.
Json ToServedVersion(const ResourceType& type, Json stored, std::string_view version);
// Converts an object written in `version` to the storage version.
Json ToStorageVersion(const ResourceType& type, Json served, std::string_view version);

}  // namespace fleetwave::kubesim
