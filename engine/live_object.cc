#include "engine/live_object.h"

#include "engine/sync/drift.h"
#include "engine/sync/managed_fields.h"

namespace fleetwave::engine {
namespace {

const Json* Member(const Json* object, const char* key) {
  if (object == nullptr || !object->is_object()) return nullptr;
  auto it = object->find(key);
  return it == object->end() ? nullptr : &*it;
}

std::optional<int64_t> IntMember(const Json* object, const char* key) {
  const Json* v = Member(object, key);
  if (v == nullptr || !v->is_number_integer()) return std::nullopt;
  return v->get<int64_t>();
}

}  // namespace

bool LiveObject::HasSyncOption(std::string_view option) const {
  return engine::HasSyncOption(Annotation(kArgoSyncOptionsAnnotation), option) ||
         engine::HasSyncOption(Annotation(kSyncOptionsAnnotation), option);
}

bool LiveObject::IsTrackedBy(const AppIdentity& app) const {
  const std::string id = Annotation(kTrackingIdAnnotation);
  return !id.empty() && id == TrackingId(app, ref);
}

bool operator==(const LiveObject& a, const LiveObject& b) {
  return a.ref == b.ref && a.resource_version == b.resource_version &&
         a.generation == b.generation && a.observed_generation == b.observed_generation &&
         a.annotations == b.annotations && a.managed_fields == b.managed_fields &&
         a.managed_values == b.managed_values;
}

LiveObject ProjectLiveObject(const Json& object) {
  LiveObject live;
  live.ref = RefOf(object);
  const Json* meta = Member(&object, "metadata");
  if (const Json* rv = Member(meta, "resourceVersion"); rv && rv->is_string()) {
    live.resource_version = rv->get<std::string>();
  }
  live.generation = IntMember(meta, "generation");
  live.observed_generation = IntMember(Member(&object, "status"), "observedGeneration");
  for (const char* key :
       {kTrackingIdAnnotation, kAppliedHashAnnotation, kAdoptAnnotation, kAllowDeleteAnnotation,
        kSyncOptionsAnnotation, kArgoSyncOptionsAnnotation}) {
    const std::string value = AnnotationOf(object, key);
    if (!value.empty()) live.annotations[key] = value;
  }
  const Json fields = AllManagedFields(object);
  if (fields.is_null()) {
    // Nobody's fields are recorded (no managedFields): compare against the whole object.
    live.managed_values = object;
    if (live.managed_values.is_object()) {
      live.managed_values.erase("status");
      if (auto m = live.managed_values.find("metadata");
          m != live.managed_values.end() && m->is_object()) {
        m->erase("managedFields");
      }
    }
  } else {
    live.managed_values = RestrictToFields(fields, object);
    live.managed_values.erase("status");
    // Only the lists' keys are read later (FirstDifference): the rest of the union was about
    // half of what a projection held.
    live.managed_fields = ListShapeOf(fields);
  }
  // Identity is never in a field set, but the desired object states it.
  for (const char* key : {"name", "namespace"}) {
    if (const Json* v = Member(meta, key); v != nullptr && v->is_string()) {
      live.managed_values["metadata"][key] = *v;
    }
  }
  if (live.ref.group.empty() && live.ref.kind == "Secret") {
    // Who owns a Secret's keys depends on whether data or stringData was applied; all of data
    // is compared, by hash (no Secret value is ever kept).
    if (const Json* data = Member(&object, "data")) live.managed_values["data"] = *data;
    HashSecretData(live.ref, live.managed_values);
  }
  return live;
}

}  // namespace fleetwave::engine
