#include "engine/live_object.h"

#include "engine/managed_fields.h"

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

LiveObject ProjectLiveObject(const Json& object, std::string_view field_manager) {
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
  live.managed_fields = ManagedFieldsOf(object, field_manager);
  live.managed_values = live.managed_fields.is_null()
                            ? Json::object()
                            : RestrictToFields(live.managed_fields, object);
  return live;
}

}  // namespace fleetwave::engine
