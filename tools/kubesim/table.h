// Server-side printing: the meta.k8s.io/v1 Table form that `kubectl get` asks for
// (Accept: application/json;as=Table;...), with the columns real API servers print per kind
// (NAME, STATUS for namespaces, READY/UP-TO-DATE/AVAILABLE for deployments, ...). Pure.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/kubesim/clock.h"
#include "tools/kubesim/resources.h"

namespace fleetwave::kubesim {

using Json = nlohmann::json;

// True when an Accept header asks for a Table.
bool WantsTable(const std::string& accept);

// A Table of `objects` (served version). `list_meta` becomes the table's metadata; rows carry
// PartialObjectMetadata, or the whole object when `include_object`.
Json ToTable(const ResourceType& type, const std::vector<Json>& objects, const Json& list_meta,
             TimePoint now, bool include_object);

// "5s", "3m20s", "2d": kubectl's human-readable age.
std::string HumanDuration(Duration d);

}  // namespace fleetwave::kubesim
