// A live object as fleetwave's sync decisions see it: a *projection* of what the cluster's
// watch delivers (identity, resourceVersion and generations, the annotations fleetwave reads,
// and the fields some manager set, with their live values — whoever set them, so drift made
// by another tool is seen; Secret values only as hashes) — never server defaults or status,
// so a cluster actor can cache thousands of them. ProjectLiveObject is the
// projector the cluster actor runs on each watched object.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "engine/object_ref.h"
#include "engine/sync/tracking.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

inline constexpr const char* kFieldManager = "fleetwave";

struct LiveObject {
  ObjectRef ref;
  std::string resource_version;
  std::optional<int64_t> generation;           // metadata.generation
  std::optional<int64_t> observed_generation;  // status.observedGeneration
  // Only the annotations sync decisions read (tracking id, applied hash, adopt, allow-delete,
  // both sync-options forms).
  std::map<std::string, std::string> annotations;
  // Of the union of every manager's fieldsV1 (engine/sync/managed_fields.h AllManagedFields),
  // the list shape the drift comparison reads (ListShapeOf: associative lists' keys and sets);
  // null when the object records no managed fields.
  Json managed_fields;
  // The object restricted to those fields (the whole object but status when there are none),
  // with metadata.name/namespace and a Secret's data hashed (engine/sync/drift.h). Null when
  // nothing is known of the live values (a hand-made LiveObject): then only the applied hash
  // decides.
  Json managed_values;

  std::string Annotation(const std::string& key) const {
    auto it = annotations.find(key);
    return it == annotations.end() ? "" : it->second;
  }
  bool AnnotationIsTrue(const std::string& key) const { return Annotation(key) == "true"; }
  // Both sync-options annotations (argocd.argoproj.io/ and fleetwave.io/) hold `option`.
  bool HasSyncOption(std::string_view option) const;
  // The tracking id is exactly the one `app` gives this object: the object is `app`'s. (A
  // copy of an object carries its original's id, which then names another object.)
  bool IsTrackedBy(const AppIdentity& app) const;
};

// Every field equal: the projection did not change (a cluster actor then tells no set).
// Identity and resourceVersion first, so two versions of one object differ cheaply.
bool operator==(const LiveObject& a, const LiveObject& b);
inline bool operator!=(const LiveObject& a, const LiveObject& b) { return !(a == b); }

// Projects a whole object (as a list or watch returns it).
LiveObject ProjectLiveObject(const Json& object);

}  // namespace fleetwave::engine
