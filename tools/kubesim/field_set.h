// Sets of field paths in the `fieldsV1` vocabulary of managedFields ("f:spec", "f:replicas",
// `k:{"name":"web"}` for an item of a keyed list, "." for the item itself), plus the list merge
// keys that strategic merge patch and server-side apply share. Pure functions over JSON values.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fleetwave::kubesim {

using Json = nlohmann::json;
using FieldPath = std::vector<std::string>;
using FieldSet = std::set<FieldPath>;

// The merge key of the list reached through `field_names` (object keys from the root, list
// items skipped), e.g. {"spec","template","spec","containers"} -> "name"; "" for atomic lists.
std::string MergeKeyFor(const std::vector<std::string>& field_names);

// Which part of an object a write covers: the main resource ignores status (for kinds with a
// status subresource) and the /status subresource covers status only.
enum class FieldScope { kAll, kMain, kStatus };

// Every leaf field set in `object`, skipping identity and server-owned metadata.
FieldSet FieldsOf(const Json& object, FieldScope scope);

Json ToFieldsV1(const FieldSet& set);
FieldSet FromFieldsV1(const Json& fields_v1);

// The value at `path`, or nullptr. A trailing "." names the list item itself.
const Json* Lookup(const Json& object, const FieldPath& path);
// Removes the field (or list item, for a trailing ".") at `path`; absent paths are a no-op.
void RemovePath(Json& object, const FieldPath& path);
// ".spec.template.spec.containers[name=\"web\"].image", as conflict causes print fields.
std::string DescribePath(const FieldPath& path);

}  // namespace fleetwave::kubesim
