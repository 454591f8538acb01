// A workload as the progress-deadline logic sees it: the few spec and status fields of a
// CloneSet (apps.kruise.io v1alpha1 or v1beta1), StatefulSet, DaemonSet or Deployment that
// decide whether a rollout is making progress, read from the object as the API server returns
// it. Reading never fails on odd field types: a field that cannot be read counts as absent,
// which is the conservative answer for every predicate built on it. Values, no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/error.h"
#include "engine/time.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

enum class WorkloadKind { kCloneSet, kStatefulSet, kDaemonSet, kDeployment };

// "CloneSet", "StatefulSet", ... as Kubernetes spells the kind.
std::string_view WorkloadKindName(WorkloadKind kind);

// The `Progressing` condition, as Kruise writes it and fleetwave computes it.
struct ProgressCondition {
  std::string type = "Progressing";
  std::string status;  // "True" | "False"; a previous condition may carry "" (Kruise tests do)
  std::string reason;
  std::string message;
  Time last_update_time;
  Time last_transition_time;

  bool operator==(const ProgressCondition&) const = default;
};

// A partition as Kubernetes' IntOrString: either a count or a percentage ("50%").
struct Partition {
  bool is_percent = false;
  int64_t value = 0;  // the count, or the percentage number
  std::string text;   // the percentage as written ("100%"), for Kruise's special cases
};

struct Workload {
  WorkloadKind kind = WorkloadKind::kCloneSet;
  std::string api_version;
  std::string name;
  std::string namespace_name;
  std::optional<int64_t> generation;

  // spec
  int64_t replicas = 1;  // spec.replicas, absent => 1
  bool paused = false;
  std::optional<Partition> partition;
  std::string update_strategy_type;  // "OnDelete", "RollingUpdate", ... ("" when absent)
  int64_t min_ready_seconds = 0;
  std::optional<Json> progress_deadline_field;  // spec.progressDeadlineSeconds, as written
  std::optional<std::string> progress_deadline_annotation;
  std::string deployment_revision;  // Deployment: deployment.kubernetes.io/revision

  // status
  std::optional<int64_t> observed_generation;
  int64_t status_replicas = 0;
  int64_t ready_replicas = 0;
  int64_t available_replicas = 0;
  int64_t updated_replicas = 0;
  int64_t updated_ready_replicas = 0;
  int64_t updated_available_replicas = 0;
  std::optional<int64_t> expected_updated_replicas;
  std::string current_revision;
  std::string update_revision;
  int64_t desired_number_scheduled = 0;  // DaemonSet
  int64_t updated_number_scheduled = 0;  // DaemonSet
  int64_t number_available = 0;          // DaemonSet

  // The `Progressing` condition found in status.conditions, when it carries a timestamp.
  std::optional<ProgressCondition> progressing_condition;

  // Status describes the current spec: an external observer can see status written for an
  // older generation, and must not judge the new spec by it.
  bool StatusIsCurrent() const;

  // The revision a condition belongs to: status.updateRevision, or for a DaemonSet (which has
  // no revision in its status) metadata.generation; for a Deployment, the
  // deployment.kubernetes.io/revision annotation.
  std::string Revision() const;
};

struct WorkloadRead {
  std::optional<Workload> workload;
  std::optional<Error> error;  // kInvalidInput when the object is not a supported workload
};

// Reads a workload object; an unsupported kind is an error naming it.
WorkloadRead ReadWorkload(const Json& object);

// Whether `object` is one of the workload kinds above (by kind and API group).
std::optional<WorkloadKind> WorkloadKindOf(const Json& object);

// A condition from its JSON form ({type,status,reason,message,lastUpdateTime,
// lastTransitionTime}). lastUpdateTime falls back to lastTransitionTime (v1beta1 CloneSet
// conditions carry only the latter); nullopt when neither parses.
std::optional<ProgressCondition> ConditionFromJson(const Json& value);
// Fields in the order above, as `fleetwave progress` prints them (pinned by its CLI tests).
nlohmann::ordered_json ConditionToJson(const ProgressCondition& condition);

// Reads an integer field; nullopt when absent or not an integral number.
std::optional<int64_t> IntAt(const Json& object, std::initializer_list<std::string_view> path);
// Reads a field by path; nullptr when any step is missing.
const Json* FieldAt(const Json& object, std::initializer_list<std::string_view> path);
std::string StringAt(const Json& object, std::initializer_list<std::string_view> path);

}  // namespace fleetwave::engine
