#include "engine/progress/progress_deadline.h"

#include <algorithm>
#include <chrono>

namespace fleetwave::engine {
namespace {

constexpr std::string_view kAnnotationPath =
    "metadata.annotations[fleetwave.io/progress-deadline-seconds]";

std::optional<int64_t> ParseAnnotationInt(const std::string& text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  size_t i = 0;
  const bool negative = text[0] == '-';
  if (negative || text[0] == '+') i = 1;
  if (i == text.size()) return std::nullopt;
  int64_t v = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    v = v * 10 + (text[i] - '0');
  }
  return negative ? -v : v;
}

// The condition a branch of the table asks for.
struct Target {
  std::string status;
  std::string reason;
  std::string message;
  bool progressing = false;  // branch 5: the only one that schedules a requeue
};

std::string KindPrefix(const Workload& w) { return std::string(WorkloadKindName(w.kind)); }

// Reasons follow Kruise's CloneSet names; for the other kinds the kind replaces "CloneSet"
// (StatefulSetAvailable, DaemonSetUpdated), as the messages do. The partition and timeout
// reasons carry no kind upstream and stay as they are.
std::string ProgressingReason(const Workload& w) { return KindPrefix(w) + "Updated"; }

bool IsAvailable(const Workload& w) {
  const int64_t r = w.replicas;
  switch (w.kind) {
    case WorkloadKind::kCloneSet:
      return w.current_revision == w.update_revision && w.status_replicas == r &&
             w.updated_replicas == r && w.updated_available_replicas == r;
    case WorkloadKind::kStatefulSet:
      return w.current_revision == w.update_revision && w.updated_replicas == r &&
             w.ready_replicas == r && w.available_replicas == r;
    case WorkloadKind::kDaemonSet:
      return w.updated_number_scheduled == w.number_available &&
             w.number_available == w.desired_number_scheduled;
    case WorkloadKind::kDeployment:
      return false;
  }
  return false;
}

bool IsPartitionReached(const Workload& w) {
  const int64_t r = w.replicas;
  switch (w.kind) {
    case WorkloadKind::kCloneSet: {
      const int64_t expected = ExpectedUpdatedReplicas(w);
      return expected < r && expected <= w.updated_available_replicas;
    }
    case WorkloadKind::kStatefulSet: {
      if (!w.partition) return false;
      const int64_t p = PartitionReplicas(*w.partition, r);
      return p > 0 && w.updated_replicas >= r - p && w.ready_replicas == r;
    }
    default:
      return false;
  }
}

// Branch 4. Only a condition written for the current revision can carry the clock on: a rest
// state, another revision or no condition at all means the clock starts now [fleetwave].
bool IsExceeded(const Workload& w, const std::optional<PreviousCondition>& previous,
                int64_t deadline_seconds, Time now) {
  if (!previous || previous->revision != w.Revision()) return false;
  const ProgressCondition& p = previous->condition;
  if (p.reason == kReasonDeadlineExceeded) return true;  // sticky for its revision
  if (p.reason != ProgressingReason(w)) return false;
  return p.last_update_time + std::chrono::seconds{deadline_seconds} < now;
}

}  // namespace

int64_t PartitionReplicas(const Partition& partition, int64_t replicas) {
  int64_t v = partition.value;
  if (partition.is_percent) {
    v = (partition.value * replicas + 99) / 100;  // rounded up: ">0%" keeps an old pod
    if (partition.value < 100 && replicas > 1 && v >= replicas) v = replicas - 1;
  }
  return std::clamp<int64_t>(v, 0, std::max<int64_t>(replicas, 0));
}

int64_t ExpectedUpdatedReplicas(const Workload& w) {
  if (w.expected_updated_replicas) return *w.expected_updated_replicas;
  const int64_t partition = w.partition ? PartitionReplicas(*w.partition, w.replicas) : 0;
  return w.replicas - partition;
}

DeadlineSetting ResolveDeadline(const Workload& w) {
  DeadlineSetting out;
  std::string path;
  std::optional<int64_t> value;
  if (w.progress_deadline_field) {
    path = "spec.progressDeadlineSeconds";
    const Json& f = *w.progress_deadline_field;
    if (f.is_number_integer()) {
      value = f.get<int64_t>();
    } else if (f.is_number_unsigned()) {
      value = f.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)
                  ? INT64_MAX
                  : static_cast<int64_t>(f.get<uint64_t>());
    }
  } else if (w.progress_deadline_annotation) {
    path = kAnnotationPath;
    value = ParseAnnotationInt(*w.progress_deadline_annotation);
  } else {
    return out;  // absent: no deadline, and no default [matches Kruise's implementation]
  }
  if (!value) {
    out.problems.push_back({path, "must be an integer"});
    return out;
  }
  if (*value > kNoProgressDeadline) {
    out.problems.push_back({path, "must be less than or equal to 2147483647"});
  }
  if (*value < 0) out.problems.push_back({path, "must be greater than or equal to 0"});
  if (*value != kNoProgressDeadline && *value <= w.min_ready_seconds) {
    out.problems.push_back({path, "must be greater than minReadySeconds"});
  }
  if (!out.problems.empty() || *value == kNoProgressDeadline) return out;
  if ((w.kind == WorkloadKind::kStatefulSet || w.kind == WorkloadKind::kDaemonSet) &&
      w.update_strategy_type == "OnDelete") {
    out.problems.push_back(
        {"spec.updateStrategy.type",
         "OnDelete: pods are replaced only when deleted, so the workload never progresses by "
         "itself; the progress deadline is ignored"});
    return out;
  }
  out.seconds = value;
  return out;
}

std::optional<PreviousCondition> PreviousFromStatus(const Workload& w) {
  if (!w.progressing_condition) return std::nullopt;
  PreviousCondition p{*w.progressing_condition, w.Revision()};
  if (p.condition.reason == kReasonDeadlineExceeded) {
    static constexpr std::string_view kMarker = " revision ";
    static constexpr std::string_view kSuffix = " has timed out progressing";
    const std::string& m = p.condition.message;
    const auto at = m.find(kMarker);
    if (at != std::string::npos && m.size() >= kSuffix.size() &&
        m.compare(m.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0 &&
        at + kMarker.size() <= m.size() - kSuffix.size()) {
      const size_t begin = at + kMarker.size();
      p.revision = m.substr(begin, m.size() - kSuffix.size() - begin);
    }
  }
  return p;
}

ProgressResult EvaluateProgress(const Workload& w, const std::optional<PreviousCondition>& previous,
                                Time now) {
  ProgressResult out;
  out.revision = w.Revision();
  if (w.kind == WorkloadKind::kDeployment) {
    // Kubernetes computes a Deployment's condition itself; fleetwave only reads it.
    out.condition = w.progressing_condition;
    return out;
  }
  DeadlineSetting setting = ResolveDeadline(w);
  out.problems = std::move(setting.problems);
  if (!setting.seconds) return out;  // off: any existing condition, a timeout included, goes
  const int64_t deadline = *setting.seconds;

  const std::string kind = KindPrefix(w);
  const bool trusted = w.StatusIsCurrent();
  Target target;
  if (trusted && IsAvailable(w)) {
    target = {"True", kind + "Available", kind + " is available"};
  } else if (w.paused) {
    target = {"True", kind + "Paused", kind + " is paused"};
  } else if (trusted && IsPartitionReached(w)) {
    target = {"True", std::string(kReasonPartitionAvailable),
              kind + " has been paused due to partition ready"};
  } else if (IsExceeded(w, previous, deadline, now)) {
    target = {"False", std::string(kReasonDeadlineExceeded),
              kind + " revision " + w.Revision() + " has timed out progressing"};
  } else {
    target = {"True", ProgressingReason(w), kind + " is progressing", true};
  }

  // Conditions are stored with second precision, so write them that way: the requeue below
  // is then measured from the timestamp a restart will read back.
  const Time stamp = TruncateToSeconds(now);
  ProgressCondition c;
  if (!previous) {
    c = {"Progressing", target.status, target.reason, target.message, stamp, stamp};
  } else {
    c = previous->condition;
    c.type = "Progressing";
    if (c.status != target.status) {
      c = {"Progressing", target.status, target.reason, target.message, stamp, stamp};
    } else if (c.reason != target.reason) {
      c.reason = target.reason;
      c.message = target.message;
      c.last_update_time = stamp;
    } else if (target.progressing && previous->revision != out.revision) {
      c.last_update_time = stamp;  // a new revision restarts the clock [fleetwave]
    }
  }
  out.condition = c;

  if (target.progressing) {
    using std::chrono::milliseconds;
    using std::chrono::seconds;
    const Duration remaining = c.last_update_time + seconds{deadline} - now;
    if (remaining >= seconds{1}) {
      // The pad keeps a timer from firing before the second-precision deadline has passed.
      out.requeue_after = remaining + seconds{1};
    } else if (remaining > Duration::zero()) {
      out.requeue_after = remaining;
    } else {
      out.requeue_after = milliseconds{1};  // at the deadline: look again at once, never "0"
    }
  }
  return out;
}

std::vector<std::string> WorkloadKindApiVersions(const std::string& kind) {
  if (kind == "CloneSet") return {"apps.kruise.io/v1alpha1", "apps.kruise.io/v1beta1"};
  if (kind == "Deployment" || kind == "StatefulSet" || kind == "DaemonSet") return {"apps/v1"};
  return {};
}

}  // namespace fleetwave::engine
