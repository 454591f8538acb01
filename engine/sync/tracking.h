// How fleetwave marks the objects it applies and recognises them later (the "mark each object"
// step of a sync): the tracking-id annotation (authoritative for ownership), the app label (for
// watch selectors), the applied-hash annotation (what was applied), and the user's per-object
// switches (adopt, allow-delete, sync options). Pure string functions.
//
// Hashes are FNV-1a 64-bit, printed as 16 lowercase hex digits. FNV is not a cryptographic
// hash; it only has to be stable across processes, versions and machines (it is written to
// clusters and compared after restarts), cheap, and short enough for a label value (<= 63).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/object_ref.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

inline constexpr const char* kTrackingIdAnnotation = "fleetwave.io/tracking-id";
inline constexpr const char* kAppLabel = "fleetwave.io/app";
inline constexpr const char* kAppliedHashAnnotation = "fleetwave.io/applied-hash";
inline constexpr const char* kAdoptAnnotation = "fleetwave.io/adopt";
inline constexpr const char* kAllowDeleteAnnotation = "fleetwave.io/allow-delete";
inline constexpr const char* kSyncOptionsAnnotation = "fleetwave.io/sync-options";
inline constexpr const char* kArgoSyncOptionsAnnotation = "argocd.argoproj.io/sync-options";

// The Application an object belongs to: its ApplicationSet and its own name.
struct AppIdentity {
  std::string appset;
  std::string app;

  bool operator==(const AppIdentity&) const = default;
};

uint64_t Fnv1a64(std::string_view bytes);
std::string Fnv1a64Hex(std::string_view bytes);  // 16 lowercase hex digits

// "<appset>/<app>:<group>/<kind>:<namespace>/<name>" (group and namespace may be empty).
std::string TrackingId(const AppIdentity& app, const ObjectRef& ref);

// The app and object a tracking id names; nullopt when it does not have that shape.
struct ParsedTrackingId {
  AppIdentity app;
  ObjectRef ref;
};
std::optional<ParsedTrackingId> ParseTrackingId(std::string_view id);

// The fleetwave.io/app label value: FNV-1a 64 hex of "<appset>/<app>" (16 characters, a valid
// label value whatever the names are).
std::string AppLabelValue(const AppIdentity& app);

// The canonical JSON text hashes are taken of: keys sorted, no whitespace (nlohmann's dump()),
// invalid UTF-8 replaced by U+FFFD instead of throwing.
std::string CanonicalJson(const Json& value);

// The applied hash of a rendered object: FNV-1a 64 hex of its canonical JSON, taken with the
// applied-hash annotation itself absent.
std::string ObjectHash(const Json& object);

// metadata.annotations[key] when it is a string, else "".
std::string AnnotationOf(const Json& object, std::string_view key);

// Whether a comma-separated sync-options value (either annotation form) holds `option`
// (e.g. "Prune=false"); entries are trimmed, compared exactly.
bool HasSyncOption(std::string_view options, std::string_view option);

}  // namespace fleetwave::engine
