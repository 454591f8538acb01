// Small builders for the sync tables: live projections with the annotations a case needs.
#pragma once

#include <map>
#include <ostream>
#include <string>

#include "engine/live_object.h"
#include "engine/object_ref.h"
#include "engine/sync/tracking.h"

namespace fleetwave::engine {

// Readable failures: gtest prints ObjectRefs as their identity.
inline void PrintTo(const ObjectRef& ref, std::ostream* os) {
  *os << ref.group << "/" << ref.kind << ":" << ref.namespace_ << "/" << ref.name;
}

namespace testing {

inline const AppIdentity kApp{"guestbook", "dev-guestbook"};
inline const AppIdentity kOtherApp{"guestbook", "qa-guestbook"};

inline ObjectRef Deploy(const std::string& name) {
  return {"apps", "Deployment", "guestbook", name};
}
inline ObjectRef Svc(const std::string& name) { return {"", "Service", "guestbook", name}; }
inline ObjectRef Ns(const std::string& name) { return {"", "Namespace", "", name}; }
inline ObjectRef Crd(const std::string& name) {
  return {"apiextensions.k8s.io", "CustomResourceDefinition", "", name};
}

// A live object; `owner` (when set) gives it that app's tracking id for itself.
inline LiveObject Live(const ObjectRef& ref, const AppIdentity* owner,
                       std::map<std::string, std::string> annotations = {}) {
  LiveObject l;
  l.ref = ref;
  l.annotations = std::move(annotations);
  if (owner != nullptr) l.annotations[kTrackingIdAnnotation] = TrackingId(*owner, ref);
  return l;
}

}  // namespace testing
}  // namespace fleetwave::engine
