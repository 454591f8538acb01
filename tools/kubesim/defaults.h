// Per-kind defaulting and the minimal validation the API server applies on writes, in storage
// version. Pure functions over JSON values.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "tools/kubesim/resources.h"
#include "tools/kubesim/status.h"

namespace fleetwave::kubesim {

// Fills the defaults apps/v1 and core/v1 document (Deployment progressDeadlineSeconds 600,
// revisionHistoryLimit 10, strategy 25%/25%, ...). Idempotent.
void ApplyDefaults(const ResourceType& type, Json& object);

// The status a freshly created object of `type` has.
Json InitialStatus(const ResourceType& type);

// Field errors that make the write 422 Invalid; empty when the object is acceptable.
std::vector<StatusCause> Validate(const ResourceType& type, const Json& object);

// Top-level and metadata fields `type` does not define ("spex", "metadata.lables"), for
// fieldValidation=Strict (kubectl's default). Deeper levels are not checked: kubesim's schemas
// are permissive there.
std::vector<std::string> UnknownFields(const ResourceType& type, const Json& object);

}  // namespace fleetwave::kubesim
