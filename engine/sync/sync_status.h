// An Application's sync status, computed locally from watch data (no dry-run): Synced,
// OutOfSync with the reason (a desired object missing live, its applied hash differing from
// the desired one, a desired field whose live value differs — whoever changed it, see
// engine/sync/drift.h —, a tracked object no longer desired), or Unknown while the cluster is
// unreachable. Also the decision a new revision gets: identical rendered objects are Synced, so the
// pin moves without an apply.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/appset/render.h"
#include "engine/live_objects.h"
#include "engine/sync/drift.h"
#include "engine/sync/tracking.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

enum class SyncCode { kSynced, kOutOfSync, kUnknown };
std::string_view SyncCodeName(SyncCode code);  // "Synced" | "OutOfSync" | "Unknown"

enum class SyncReason {
  kNone,         // Synced
  kMissing,      // a desired object does not exist live
  kHashDiffers,  // live fleetwave.io/applied-hash is not the desired object's hash
  kFieldDrift,   // a desired field has another live value (whoever changed it)
  kExtraneous,   // a live object tracked by the app is no longer desired (needs pruning)
  kUnreachable,  // the cluster cannot be reached: Unknown
};

struct ObjectSync {
  ObjectRef ref;
  SyncCode status = SyncCode::kSynced;
  SyncReason reason = SyncReason::kNone;
  std::string pointer;  // kFieldDrift: the first drifted field, a JSON pointer into the live object
  std::string message;  // empty when Synced
};

struct AppSync {
  SyncCode status = SyncCode::kSynced;
  SyncReason reason = SyncReason::kNone;  // of the first object out of sync
  std::string message;  // the first object's message, "(+N more)" when others are out of sync
  std::vector<ObjectSync> objects;  // desired objects in render order, then extraneous ones
  // The first object (in render order) with field drift and where, even when another reason
  // comes first in `message`: what selfHeal and a rollout's re-sync act on.
  std::optional<Drift> drift;
};

// spec.ignoreDifferences of an Application (jsonPointers only): differences of matching
// objects at these pointers (and below) are not drift. An entry matches objects of its group
// ("" = core) and kind, and of its name and namespace when those are set.
struct IgnoreDifference {
  std::string group;
  std::string kind;
  std::string name;        // "" = any
  std::string namespace_;  // "" = any
  std::vector<std::string> json_pointers;
};

// Decodes spec.ignoreDifferences from an Application spec; malformed entries are skipped.
std::vector<IgnoreDifference> DecodeIgnoreDifferences(const Json& app_spec);

// The pointers of `ignore` that apply to `ref`.
std::vector<std::string> IgnoredPointersFor(const std::vector<IgnoreDifference>& ignore,
                                            const ObjectRef& ref);

// Compares the rendered objects with the live projections (every live object of interest:
// the desired ones and everything carrying the app's label). `reachable` false: Unknown.
// Field drift is looked for only when the applied hashes match (a differing hash already
// means the object must be applied): every desired field against its live value
// (FirstDifference); ignoreDifferences applies to field drift.
AppSync CompareApp(const AppIdentity& app, const std::vector<RenderedObject>& desired,
                   const LiveObjects& live, const std::vector<IgnoreDifference>& ignore,
                   bool reachable);

// What to do when git moves an app to a new revision, from the comparison of that revision's
// render with the live objects.
enum class NewRevisionAction {
  kFastForward,  // Synced: move the pinned revision, apply nothing
  kSync,         // OutOfSync: the new revision needs a sync (automated or manual)
  kWait,         // Unknown: decide once the cluster is reachable again
};
NewRevisionAction DecideNewRevision(const AppSync& at_new_revision);

}  // namespace fleetwave::engine
