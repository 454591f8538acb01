#include "engine/object_ref.h"

namespace fleetwave::engine {
namespace {

std::string StringField(const Json& object, const char* a, const char* b = nullptr) {
  if (!object.is_object()) return "";
  auto it = object.find(a);
  if (it == object.end()) return "";
  const Json* v = &*it;
  if (b != nullptr) {
    if (!v->is_object()) return "";
    auto jt = v->find(b);
    if (jt == v->end()) return "";
    v = &*jt;
  }
  return v->is_string() ? v->get<std::string>() : "";
}

}  // namespace

std::string GroupOfApiVersion(std::string_view api_version) {
  const auto slash = api_version.find('/');
  return slash == std::string_view::npos ? "" : std::string(api_version.substr(0, slash));
}

ObjectRef RefOf(const Json& object) {
  return ObjectRef{GroupOfApiVersion(StringField(object, "apiVersion")),
                   StringField(object, "kind"), StringField(object, "metadata", "namespace"),
                   StringField(object, "metadata", "name")};
}

bool IsNamespace(const ObjectRef& ref) { return ref.group.empty() && ref.kind == "Namespace"; }

bool IsCrd(const ObjectRef& ref) {
  return ref.group == "apiextensions.k8s.io" && ref.kind == "CustomResourceDefinition";
}

}  // namespace fleetwave::engine
