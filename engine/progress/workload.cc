#include "engine/progress/workload.h"

#include <cmath>

namespace fleetwave::engine {
namespace {

std::string GroupOf(std::string_view api_version) {
  const auto slash = api_version.find('/');
  if (slash == std::string_view::npos) return "";  // core group ("v1")
  return std::string(api_version.substr(0, slash));
}

std::optional<int64_t> AsInt(const Json& v) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9.0e15) {
      return static_cast<int64_t>(d);
    }
  }
  return std::nullopt;
}

bool BoolAt(const Json& object, std::initializer_list<std::string_view> path) {
  const Json* v = FieldAt(object, path);
  return v != nullptr && v->is_boolean() && v->get<bool>();
}

std::optional<Partition> PartitionFrom(const Json* v) {
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (auto n = AsInt(*v)) return Partition{false, *n, ""};
  if (!v->is_string()) return std::nullopt;
  const std::string s = v->get<std::string>();
  const bool percent = !s.empty() && s.back() == '%';
  const std::string digits = percent ? s.substr(0, s.size() - 1) : s;
  if (digits.empty() || digits.size() > 9) return std::nullopt;
  int64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return Partition{percent, n, s};
}

}  // namespace

std::string_view WorkloadKindName(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::kCloneSet:
      return "CloneSet";
    case WorkloadKind::kStatefulSet:
      return "StatefulSet";
    case WorkloadKind::kDaemonSet:
      return "DaemonSet";
    case WorkloadKind::kDeployment:
      return "Deployment";
  }
  return "";
}

const Json* FieldAt(const Json& object, std::initializer_list<std::string_view> path) {
  const Json* cur = &object;
  for (std::string_view key : path) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur;
}

std::optional<int64_t> IntAt(const Json& object, std::initializer_list<std::string_view> path) {
  const Json* v = FieldAt(object, path);
  if (v == nullptr) return std::nullopt;
  return AsInt(*v);
}

std::string StringAt(const Json& object, std::initializer_list<std::string_view> path) {
  const Json* v = FieldAt(object, path);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

std::optional<WorkloadKind> WorkloadKindOf(const Json& object) {
  const std::string kind = StringAt(object, {"kind"});
  const std::string group = GroupOf(StringAt(object, {"apiVersion"}));
  if (kind == "CloneSet" && group == "apps.kruise.io") return WorkloadKind::kCloneSet;
  // Kruise's Advanced StatefulSet keeps the status fields the predicates read.
  if (kind == "StatefulSet" && (group == "apps" || group == "apps.kruise.io")) {
    return WorkloadKind::kStatefulSet;
  }
  if (kind == "DaemonSet" && (group == "apps" || group == "extensions")) {
    return WorkloadKind::kDaemonSet;
  }
  if (kind == "Deployment" && (group == "apps" || group == "extensions")) {
    return WorkloadKind::kDeployment;
  }
  return std::nullopt;
}

std::optional<ProgressCondition> ConditionFromJson(const Json& value) {
  if (!value.is_object()) return std::nullopt;
  ProgressCondition c;
  c.type = StringAt(value, {"type"});
  c.status = StringAt(value, {"status"});
  c.reason = StringAt(value, {"reason"});
  c.message = StringAt(value, {"message"});
  const auto update = ParseRfc3339(StringAt(value, {"lastUpdateTime"}));
  const auto transition = ParseRfc3339(StringAt(value, {"lastTransitionTime"}));
  if (!update && !transition) return std::nullopt;
  c.last_update_time = update ? *update : *transition;
  c.last_transition_time = transition ? *transition : *update;
  return c;
}

nlohmann::ordered_json ConditionToJson(const ProgressCondition& c) {
  return nlohmann::ordered_json{{"type", c.type},
                                {"status", c.status},
                                {"reason", c.reason},
                                {"message", c.message},
                                {"lastUpdateTime", FormatRfc3339(c.last_update_time)},
                                {"lastTransitionTime", FormatRfc3339(c.last_transition_time)}};
}

bool Workload::StatusIsCurrent() const {
  if (!generation) return true;
  return observed_generation && *observed_generation >= *generation;
}

std::string Workload::Revision() const {
  switch (kind) {
    case WorkloadKind::kDaemonSet:
      return generation ? std::to_string(*generation) : std::string();
    case WorkloadKind::kDeployment:
      if (!deployment_revision.empty()) return deployment_revision;
      return generation ? std::to_string(*generation) : std::string();
    default:
      return update_revision;
  }
}

WorkloadRead ReadWorkload(const Json& object) {
  WorkloadRead out;
  if (!object.is_object()) {
    out.error = InvalidInputError("", "not a Kubernetes object");
    return out;
  }
  const auto kind = WorkloadKindOf(object);
  if (!kind) {
    const std::string k = StringAt(object, {"kind"});
    const std::string v = StringAt(object, {"apiVersion"});
    out.error = InvalidInputError(
        "", "unsupported kind \"" + (k.empty() ? std::string("<none>") : k) + "\"" +
                (v.empty() ? "" : " (" + v + ")") +
                "; supported: CloneSet (apps.kruise.io), StatefulSet, DaemonSet, Deployment");
    return out;
  }
  Workload w;
  w.kind = *kind;
  w.api_version = StringAt(object, {"apiVersion"});
  w.name = StringAt(object, {"metadata", "name"});
  w.namespace_name = StringAt(object, {"metadata", "namespace"});
  w.generation = IntAt(object, {"metadata", "generation"});

  if (auto r = IntAt(object, {"spec", "replicas"})) w.replicas = *r;
  w.min_ready_seconds = IntAt(object, {"spec", "minReadySeconds"}).value_or(0);
  if (const Json* f = FieldAt(object, {"spec", "progressDeadlineSeconds"});
      f != nullptr && !f->is_null()) {
    w.progress_deadline_field = *f;
  }
  if (const Json* a =
          FieldAt(object, {"metadata", "annotations", "fleetwave.io/progress-deadline-seconds"});
      a != nullptr && a->is_string()) {
    w.progress_deadline_annotation = a->get<std::string>();
  }
  w.update_strategy_type = StringAt(object, {"spec", "updateStrategy", "type"});

  switch (w.kind) {
    case WorkloadKind::kCloneSet: {
      // v1alpha1 keeps paused/partition directly in updateStrategy; the v1beta1 layout nests
      // them in updateStrategy.rollingUpdate. Read the nested place first for v1beta1, and
      // fall back to the flat one, which some v1beta1 releases kept.
      const bool beta = w.api_version == "apps.kruise.io/v1beta1";
      const Json* nested =
          beta ? FieldAt(object, {"spec", "updateStrategy", "rollingUpdate"}) : nullptr;
      if (nested != nullptr && nested->is_object()) {
        w.paused = BoolAt(*nested, {"paused"});
        w.partition = PartitionFrom(FieldAt(*nested, {"partition"}));
      }
      if (nested == nullptr || !FieldAt(*nested, {"paused"})) {
        w.paused = w.paused || BoolAt(object, {"spec", "updateStrategy", "paused"});
      }
      if (nested == nullptr || !FieldAt(*nested, {"partition"})) {
        w.partition = PartitionFrom(FieldAt(object, {"spec", "updateStrategy", "partition"}));
      }
      break;
    }
    case WorkloadKind::kStatefulSet:
      w.partition =
          PartitionFrom(FieldAt(object, {"spec", "updateStrategy", "rollingUpdate", "partition"}));
      break;
    case WorkloadKind::kDaemonSet:
      break;
    case WorkloadKind::kDeployment:
      w.paused = BoolAt(object, {"spec", "paused"});
      w.deployment_revision =
          StringAt(object, {"metadata", "annotations", "deployment.kubernetes.io/revision"});
      break;
  }

  w.observed_generation = IntAt(object, {"status", "observedGeneration"});
  w.status_replicas = IntAt(object, {"status", "replicas"}).value_or(0);
  w.ready_replicas = IntAt(object, {"status", "readyReplicas"}).value_or(0);
  w.available_replicas = IntAt(object, {"status", "availableReplicas"}).value_or(0);
  w.updated_replicas = IntAt(object, {"status", "updatedReplicas"}).value_or(0);
  w.updated_ready_replicas = IntAt(object, {"status", "updatedReadyReplicas"}).value_or(0);
  w.updated_available_replicas = IntAt(object, {"status", "updatedAvailableReplicas"}).value_or(0);
  w.expected_updated_replicas = IntAt(object, {"status", "expectedUpdatedReplicas"});
  w.current_revision = StringAt(object, {"status", "currentRevision"});
  w.update_revision = StringAt(object, {"status", "updateRevision"});
  w.desired_number_scheduled = IntAt(object, {"status", "desiredNumberScheduled"}).value_or(0);
  w.updated_number_scheduled = IntAt(object, {"status", "updatedNumberScheduled"}).value_or(0);
  w.number_available = IntAt(object, {"status", "numberAvailable"}).value_or(0);

  if (const Json* conds = FieldAt(object, {"status", "conditions"});
      conds != nullptr && conds->is_array()) {
    for (const Json& c : *conds) {
      if (StringAt(c, {"type"}) != "Progressing") continue;
      w.progressing_condition = ConditionFromJson(c);
      break;
    }
  }
  out.workload = std::move(w);
  return out;
}

}  // namespace fleetwave::engine
