#include "engine/sync/read_after_write.h"

#include <map>

namespace fleetwave::engine {
namespace {

bool IsDecimal(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::string_view StripLeadingZeros(std::string_view s) {
  while (s.size() > 1 && s.front() == '0') s.remove_prefix(1);
  return s;
}

bool CaughtUp(const AppliedObject& a, const LiveObject& l) {
  if (!ResourceVersionAtLeast(l.resource_version, a.resource_version)) return false;
  if (KindReportsObservedGeneration(a.ref) || l.observed_generation) {
    return l.observed_generation && *l.observed_generation >= a.generation;
  }
  return true;
}

}  // namespace

bool ResourceVersionAtLeast(std::string_view observed, std::string_view applied) {
  if (IsDecimal(observed) && IsDecimal(applied)) {
    // Compared as digit strings, so versions beyond 64 bits still order correctly.
    const auto o = StripLeadingZeros(observed);
    const auto a = StripLeadingZeros(applied);
    return o.size() != a.size() ? o.size() > a.size() : o >= a;
  }
  return observed == applied;
}

bool KindReportsObservedGeneration(const ObjectRef& ref) {
  if (ref.group == "apps" || ref.group == "extensions") {
    return ref.kind == "Deployment" || ref.kind == "StatefulSet" || ref.kind == "DaemonSet" ||
           ref.kind == "ReplicaSet";
  }
  if (ref.group == "apps.kruise.io") {
    return ref.kind == "CloneSet" || ref.kind == "StatefulSet" || ref.kind == "DaemonSet";
  }
  return false;
}

ReadAfterWriteGate GateReadAfterWrite(const std::vector<AppliedObject>& applied,
                                      const LiveObjects& live) {
  std::map<ObjectRef, const LiveObject*> by_ref;
  for (const auto& l : live) by_ref.emplace(l.ref, &l);
  for (const auto& a : applied) {
    auto it = by_ref.find(a.ref);
    if (it != by_ref.end() && CaughtUp(a, *it->second)) continue;
    return {false, HealthStatus{HealthCode::kProgressing, "Waiting for " + a.ref.KindName() +
                                                              " to observe generation " +
                                                              std::to_string(a.generation)}};
  }
  return {};
}

}  // namespace fleetwave::engine
