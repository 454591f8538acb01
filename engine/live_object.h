// A live object as fleetwave's sync decisions see it: a *projection* of what the cluster's
// watch delivers (identity, resourceVersion and generations, the annotations fleetwave reads,
// and only the fields fleetwave's field manager owns with their live values) — never the
// whole object, so a cluster actor can cache thousands of them. ProjectLiveObject is the
// projector the cluster actor runs on each watched object.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "engine/object_ref.h"
#include "engine/tracking.h"
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
  Json managed_fields;  // fieldsV1 of fleetwave's Apply entry; null when fleetwave owns nothing
  Json managed_values;  // the object restricted to those fields

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

// Projects a whole object (as a list or watch returns it).
LiveObject ProjectLiveObject(const Json& object, std::string_view field_manager = kFieldManager);

}  // namespace fleetwave::engine
