// Health rules for the objects that do not roll pods: Argo CD's for Pod, Service,
// PersistentVolumeClaim, Job and Ingress (gitops-engine pkg/health), same outcomes and
// messages.
#include <string>
#include <vector>

#include "engine/health/health_kinds.h"
#include "engine/progress/workload.h"

namespace fleetwave::engine::health_rules {
namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

const Json& ArrayAt(const Json& object, std::initializer_list<std::string_view> path) {
  static const Json kEmpty = Json::array();
  const Json* v = FieldAt(object, path);
  return v != nullptr && v->is_array() ? *v : kEmpty;
}

bool IsPodReady(const Json& pod) {
  for (const Json& c : ArrayAt(pod, {"status", "conditions"})) {
    if (StringAt(c, {"type"}) == "Ready") return StringAt(c, {"status"}) == "True";
  }
  return false;
}

// Why a container of a failed pod failed, or "" when its state does not say.
std::string ContainerFailure(const Json& status) {
  const Json* t = FieldAt(status, {"state", "terminated"});
  if (t == nullptr || !t->is_object()) return "";
  if (std::string m = StringAt(*t, {"message"}); !m.empty()) return m;
  if (StringAt(*t, {"reason"}) == "OOMKilled") return "OOMKilled";
  if (const int64_t code = IntOr0(*t, {"exitCode"}); code != 0) {
    return "container \"" + StringAt(status, {"name"}) + "\" failed with exit code " +
           std::to_string(code);
  }
  return "";
}

HealthStatus RunningPodHealth(const Json& pod, const std::string& message) {
  if (IsPodReady(pod)) return {HealthCode::kHealthy, message};
  for (const Json& c : ArrayAt(pod, {"status", "containerStatuses"})) {
    const Json* last = FieldAt(c, {"lastState", "terminated"});
    if (last != nullptr && !last->is_null()) return {HealthCode::kDegraded, message};
  }
  return {HealthCode::kProgressing, message};
}

bool HasLoadBalancerIngress(const Json& object) {
  return !ArrayAt(object, {"status", "loadBalancer", "ingress"}).empty();
}

}  // namespace

HealthStatus Pod(const Json& pod) {
  const std::string restart = StringAt(pod, {"spec", "restartPolicy"});
  const std::string message = StringAt(pod, {"status", "message"});
  // Only long-running pods are judged by waiting containers: a hook pod (OnFailure/Never)
  // that is Degraded on ImagePullBackOff would fail its sync too early.
  if (restart == "Always") {
    std::vector<std::string> messages;
    for (const Json& c : ArrayAt(pod, {"status", "containerStatuses"})) {
      const Json* waiting = FieldAt(c, {"state", "waiting"});
      if (waiting == nullptr || !waiting->is_object()) continue;
      const std::string reason = StringAt(*waiting, {"reason"});
      if (StartsWith(reason, "Err") || EndsWith(reason, "Error") || EndsWith(reason, "BackOff")) {
        messages.push_back(StringAt(*waiting, {"message"}));
      }
    }
    if (!messages.empty()) {
      std::string joined;
      for (size_t i = 0; i < messages.size(); ++i) joined += (i ? ", " : "") + messages[i];
      return {HealthCode::kDegraded, joined};
    }
  }
  const std::string phase = StringAt(pod, {"status", "phase"});
  if (phase == "Pending") return {HealthCode::kProgressing, message};
  if (phase == "Succeeded") return {HealthCode::kHealthy, message};
  if (phase == "Failed") {
    if (!message.empty()) return {HealthCode::kDegraded, message};
    for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
      for (const Json& c : ArrayAt(pod, {"status", list})) {
        if (std::string m = ContainerFailure(c); !m.empty()) return {HealthCode::kDegraded, m};
      }
    }
    return {HealthCode::kDegraded, ""};
  }
  if (phase == "Running") {
    const Json* ignore =
        FieldAt(pod, {"metadata", "annotations", "argocd.argoproj.io/ignore-restart-policy"});
    if (ignore != nullptr || restart == "Always") return RunningPodHealth(pod, message);
    // Pods that run to completion are usually hooks: running is progress, not health.
    if (restart == "OnFailure" || restart == "Never") return {HealthCode::kProgressing, message};
  }
  return {HealthCode::kUnknown, message};
}

HealthStatus Service(const Json& service) {
  if (StringAt(service, {"spec", "type"}) == "LoadBalancer" && !HasLoadBalancerIngress(service)) {
    return {HealthCode::kProgressing, ""};
  }
  return {HealthCode::kHealthy, ""};
}

HealthStatus PersistentVolumeClaim(const Json& pvc) {
  const std::string phase = StringAt(pvc, {"status", "phase"});
  if (phase == "Lost") return {HealthCode::kDegraded, ""};
  if (phase == "Pending") return {HealthCode::kProgressing, ""};
  if (phase == "Bound") return {HealthCode::kHealthy, ""};
  return {HealthCode::kUnknown, ""};
}

HealthStatus Job(const Json& job) {
  bool failed = false;
  bool complete = false;
  bool suspended = false;
  std::string fail_message;
  std::string message;
  for (const Json& c : ArrayAt(job, {"status", "conditions"})) {
    const std::string type = StringAt(c, {"type"});
    if (type == "Failed") {
      failed = complete = true;
      fail_message = StringAt(c, {"message"});
    } else if (type == "Complete") {
      complete = true;
      message = StringAt(c, {"message"});
    } else if (type == "Suspended") {
      complete = true;
      message = StringAt(c, {"message"});
      if (StringAt(c, {"status"}) == "True") suspended = true;
    }
  }
  if (!complete) return {HealthCode::kProgressing, message};
  if (failed) return {HealthCode::kDegraded, fail_message};
  if (suspended) return {HealthCode::kSuspended, message};
  return {HealthCode::kHealthy, message};
}

HealthStatus Ingress(const Json& ingress) {
  return {HasLoadBalancerIngress(ingress) ? HealthCode::kHealthy : HealthCode::kProgressing, ""};
}

}  // namespace fleetwave::engine::health_rules
