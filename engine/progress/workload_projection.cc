#include "engine/progress/workload_projection.h"

#include <initializer_list>
#include <string_view>

namespace fleetwave::engine {
namespace {

// Copies object[path] into out[path] when present (absent stays absent, as ReadWorkload
// treats it). Not throwing: only object steps are walked.
void Keep(const Json& object, Json& out, std::initializer_list<std::string_view> path) {
  const Json* v = FieldAt(object, path);
  if (v == nullptr) return;
  Json* target = &out;
  std::size_t i = 0;
  for (std::string_view step : path) {
    if (++i == path.size()) {
      (*target)[std::string(step)] = *v;
      return;
    }
    Json& next = (*target)[std::string(step)];
    if (!next.is_object()) next = Json::object();
    target = &next;
  }
}

}  // namespace

Json ProjectWorkload(const Json& object) {
  Json out = Json::object();
  Keep(object, out, {"apiVersion"});
  Keep(object, out, {"kind"});
  Keep(object, out, {"metadata", "name"});
  Keep(object, out, {"metadata", "namespace"});
  Keep(object, out, {"metadata", "generation"});
  Keep(object, out, {"metadata", "annotations", "fleetwave.io/progress-deadline-seconds"});
  Keep(object, out, {"metadata", "annotations", "deployment.kubernetes.io/revision"});
  for (std::string_view f : {"replicas", "minReadySeconds", "progressDeadlineSeconds", "paused"}) {
    Keep(object, out, {"spec", f});
  }
  // Small: type, paused, partition and rollingUpdate's knobs (both CloneSet layouts).
  Keep(object, out, {"spec", "updateStrategy"});
  for (std::string_view f :
       {"observedGeneration", "replicas", "readyReplicas", "availableReplicas", "updatedReplicas",
        "updatedReadyReplicas", "updatedAvailableReplicas", "expectedUpdatedReplicas",
        "currentRevision", "updateRevision", "desiredNumberScheduled", "updatedNumberScheduled",
        "numberAvailable"}) {
    Keep(object, out, {"status", f});
  }
  if (const Json* conds = FieldAt(object, {"status", "conditions"});
      conds != nullptr && conds->is_array()) {
    for (const Json& c : *conds) {
      if (StringAt(c, {"type"}) != "Progressing") continue;
      out["status"]["conditions"] = Json::array({c});
      break;
    }
  }
  return out;
}

std::optional<ProjectedWorkload> WorkloadFromProjection(const Json& fields) {
  WorkloadRead read = ReadWorkload(fields);
  if (!read.workload) return std::nullopt;
  ProjectedWorkload out;
  out.ref = RefOf(fields);
  out.ref.kind = std::string(WorkloadKindName(read.workload->kind));
  out.workload = std::move(*read.workload);
  return out;
}

}  // namespace fleetwave::engine
