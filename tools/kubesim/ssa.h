// Server-side apply and field ownership: merging an applied configuration into a live object,
// per-manager field sets in metadata.managedFields, removal of fields a manager stopped
// applying, conflicts with other managers, and the ownership changes that ordinary writes
// (create/update/patch) cause. Pure functions over JSON values; `now` is an argument.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/kubesim/field_set.h"
#include "tools/kubesim/status.h"

namespace fleetwave::kubesim {

struct ApplyRequest {
  std::string manager;
  std::string api_version;  // of the applied configuration, recorded per manager
  bool force = false;
  FieldScope scope = FieldScope::kMain;
  std::string subresource;  // "" or "status"
  std::string now;          // formatted time stamp for managedFields
};

struct FieldConflict {
  std::string manager;
  std::string api_version;
  FieldPath path;
};

struct ApplyOutcome {
  Json object;  // valid when conflicts is empty
  std::vector<FieldConflict> conflicts;
};

// Applies `applied` onto `live` (null for a create-by-apply). On conflicts without force the
// returned object is unspecified and `conflicts` lists each contested field.
ApplyOutcome Apply(const Json& live, const Json& applied, const ApplyRequest& request);

// The 409 Status for apply conflicts, with one cause per field.
ApiError ConflictError(const std::vector<FieldConflict>& conflicts, const std::string& group,
                       const std::string& plural, const std::string& name);

// Records that `manager` wrote `updated` (an Update operation) over `old` (null on create):
// it gains the fields whose values it changed; other managers lose those fields.
void TrackUpdate(const Json* old, Json& updated, const ApplyRequest& request);

// Merges `applied` into `live`: objects recursively, keyed lists item by item, everything
// else replaced.
void MergeApplied(Json& live, const Json& applied, std::vector<std::string>& names);

}  // namespace fleetwave::kubesim
