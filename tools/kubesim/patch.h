// The PATCH body formats: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and strategic
// merge patch (merge patch plus keyed-list merging and the `$patch`, `$setElementOrder`,
// `$retainKeys` and `$deleteFromPrimitiveList` directives kubectl emits). Pure functions.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace fleetwave::kubesim {

using Json = nlohmann::json;

enum class PatchType { kMerge, kJson, kStrategic, kApply };

// Maps a Content-Type to a patch type; nullopt for unsupported media types.
std::optional<PatchType> PatchTypeOf(const std::string& content_type);

// Applies a merge, JSON or strategic patch. Returns nullopt and sets `error` on a malformed
// patch or a failed JSON-patch operation ("test" mismatch, missing path).
std::optional<Json> ApplyPatch(const Json& target, const Json& patch, PatchType type,
                               std::string* error);

Json StrategicMerge(const Json& target, const Json& patch);

}  // namespace fleetwave::kubesim
