#include "engine/health/health.h"

#include "engine/check.h"
#include "engine/health/health_kinds.h"
#include "engine/progress/workload.h"

namespace fleetwave::engine {
namespace {

std::string GroupOf(const std::string& api_version) {
  const auto slash = api_version.find('/');
  return slash == std::string::npos ? std::string() : api_version.substr(0, slash);
}

// Argo CD leaves objects that are being deleted alone unless its own hook finalizer holds
// them: they are on their way out.
bool PendingDeletion(const Json& object) {
  const Json* ts = FieldAt(object, {"metadata", "deletionTimestamp"});
  if (ts == nullptr || ts->is_null()) return false;
  if (const Json* f = FieldAt(object, {"metadata", "finalizers"}); f != nullptr && f->is_array()) {
    for (const Json& name : *f) {
      if (name.is_string() && name.get<std::string>() == "argocd.argoproj.io/hook-finalizer") {
        return false;
      }
    }
  }
  return true;
}

// The stateless reading of a workload's deadline: its own Progressing condition says the
// current revision timed out, and a deadline is still in force (switching it off removes the
// timeout).
DeadlineView DeadlineFromObject(const Workload& w) {
  DeadlineView view;
  if (!w.progressing_condition || w.progressing_condition->reason != kReasonDeadlineExceeded) {
    return view;
  }
  if (!ResolveDeadline(w).seconds) return view;
  const auto previous = PreviousFromStatus(w);
  if (!previous || previous->revision != w.Revision()) return view;
  view.exceeded = true;
  view.message = w.progressing_condition->message;
  return view;
}

}  // namespace

std::string_view HealthCodeName(HealthCode code) {
  switch (code) {
    case HealthCode::kHealthy:
      return "Healthy";
    case HealthCode::kSuspended:
      return "Suspended";
    case HealthCode::kProgressing:
      return "Progressing";
    case HealthCode::kMissing:
      return "Missing";
    case HealthCode::kDegraded:
      return "Degraded";
    case HealthCode::kUnknown:
      return "Unknown";
  }
  return "Unknown";
}

std::optional<HealthCode> ParseHealthCode(std::string_view name) {
  for (HealthCode c : {HealthCode::kHealthy, HealthCode::kSuspended, HealthCode::kProgressing,
                       HealthCode::kMissing, HealthCode::kDegraded, HealthCode::kUnknown}) {
    if (HealthCodeName(c) == name) return c;
  }
  return std::nullopt;
}

nlohmann::ordered_json HealthToJson(const HealthStatus& health) {
  return nlohmann::ordered_json{{"status", HealthCodeName(health.status)},
                                {"message", health.message}};
}

DeadlineView DeadlineViewOf(const ProgressResult& result) {
  DeadlineView view;
  if (result.Exceeded()) {
    view.exceeded = true;
    view.message = result.condition->message;
  }
  return view;
}

HealthStatus AssessHealth(const Json& object, const std::optional<DeadlineView>& deadline) {
  if (PendingDeletion(object)) return {HealthCode::kProgressing, "Pending deletion"};

  const std::string kind = StringAt(object, {"kind"});
  const std::string group = GroupOf(StringAt(object, {"apiVersion"}));

  // Workloads: Argo's rule (or the CloneSet table), then the deadline on top.
  if (const auto wk = WorkloadKindOf(object)) {
    const WorkloadRead read = ReadWorkload(object);
    FLEETWAVE_CHECK(read.workload.has_value(), "a workload kind ReadWorkload does not read");
    const Workload& w = *read.workload;
    const DeadlineView view = deadline ? *deadline : DeadlineFromObject(w);
    switch (*wk) {
      case WorkloadKind::kCloneSet:
        return health_rules::CloneSet(object, w, view);
      case WorkloadKind::kDeployment:
        // Kubernetes' own ProgressDeadlineExceeded is already part of Argo's rule.
        return health_rules::Deployment(object);
      case WorkloadKind::kStatefulSet:
      case WorkloadKind::kDaemonSet: {
        HealthStatus h = *wk == WorkloadKind::kStatefulSet ? health_rules::StatefulSet(object)
                                                           : health_rules::DaemonSet(object);
        // Stale status is judged "waiting" first, as for every kind; a timeout counts once the
        // status describes the spec that timed out.
        if (view.exceeded && w.StatusIsCurrent()) {
          return {HealthCode::kDegraded, view.message};
        }
        return h;
      }
    }
  }

  if (group == "apps" || group == "extensions") {
    if (kind == "ReplicaSet") return health_rules::ReplicaSet(object);
  }
  if (group == "extensions" || group == "networking.k8s.io") {
    if (kind == "Ingress") return health_rules::Ingress(object);
  }
  if (group.empty()) {
    if (kind == "Pod") return health_rules::Pod(object);
    if (kind == "Service") return health_rules::Service(object);
    if (kind == "PersistentVolumeClaim") return health_rules::PersistentVolumeClaim(object);
  }
  if (group == "batch" && kind == "Job") return health_rules::Job(object);
  return {HealthCode::kHealthy, ""};  // no rule for this kind: it exists, so it is healthy
}

HealthStatus AggregateHealth(const std::vector<ResourceHealth>& resources) {
  HealthStatus out;
  const ResourceHealth* worst = nullptr;
  for (const auto& r : resources) {
    if (worst == nullptr || IsWorse(worst->health.status, r.health.status)) worst = &r;
  }
  if (worst == nullptr) return out;
  out.status = worst->health.status;
  if (out.status != HealthCode::kHealthy) {
    out.message = worst->kind + "/" + worst->name + " is " +
                  std::string(HealthCodeName(out.status)) +
                  (worst->health.message.empty() ? "" : ": " + worst->health.message);
  }
  return out;
}

HealthStatus WorkloadHealthUnderDeadline(const HealthStatus& judged,
                                         const HealthStatus& if_exceeded, bool exceeded,
                                         const std::string& exceeded_message) {
  if (!exceeded) return judged;
  HealthStatus out = if_exceeded;
  if (out.status == HealthCode::kDegraded && out.message.empty()) out.message = exceeded_message;
  return out;
}

}  // namespace fleetwave::engine
