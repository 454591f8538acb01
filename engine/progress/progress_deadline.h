// The progress-deadline state machine (tests/engine/progress/ and tests/vectors/progress): from a
// workload as observed, the `Progressing` condition it had before (and the revision that condition
// belongs to) and `now`, computes the condition fleetwave holds for it and when to look again.
// It is OpenKruise CloneSet's progressDeadlineSeconds logic evaluated from outside the
// cluster, with fleetwave's clock-baseline fixes, and extended to
// StatefulSets and DaemonSets. Pure function of its inputs; the caller owns the clock and the
// persistence of the result (the daemon stores condition + revision; the CLI prints them).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/progress/workload.h"
#include "engine/time.h"

namespace fleetwave::engine {

inline constexpr int64_t kNoProgressDeadline = 2147483647;  // MaxInt32: deadline off

inline constexpr std::string_view kReasonDeadlineExceeded = "ProgressDeadlineExceeded";
inline constexpr std::string_view kReasonPartitionAvailable = "ProgressPartitionAvailable";

// A problem with how a workload asks for its deadline, reported to the user; the deadline is
// then treated as absent.
struct DeadlineProblem {
  std::string path;     // e.g. spec.progressDeadlineSeconds
  std::string message;  // e.g. must be greater than minReadySeconds

  bool operator==(const DeadlineProblem&) const = default;
};

struct DeadlineSetting {
  std::optional<int64_t> seconds;  // nullopt: no deadline (absent, MaxInt32, invalid, OnDelete)
  std::vector<DeadlineProblem> problems;
};

// The deadline in force: spec.progressDeadlineSeconds, else the annotation
// fleetwave.io/progress-deadline-seconds; the field wins when both exist, even when invalid.
DeadlineSetting ResolveDeadline(const Workload& workload);

// How many pods a CloneSet is expected to update: status.expectedUpdatedReplicas when present,
// else replicas - partition with a percent partition scaled as Kruise scales it.
int64_t ExpectedUpdatedReplicas(const Workload& workload);

// Kruise's partition in pods for `replicas`: percent rounded up; a partition above 0% keeps at
// least one old pod, one below 100% updates at least one pod when replicas > 1.
int64_t PartitionReplicas(const Partition& partition, int64_t replicas);

// The condition held before this evaluation, with the revision it was written for.
struct PreviousCondition {
  ProgressCondition condition;
  std::string revision;
};

// What the stateless CLI knows: the Progressing condition in the object's own status. Its
// revision is parsed from a timeout's exact message ("<Kind> revision <rev> has timed out
// progressing"); any other condition is taken as belonging to the current revision.
std::optional<PreviousCondition> PreviousFromStatus(const Workload& workload);

struct ProgressResult {
  std::optional<ProgressCondition> condition;  // nullopt: no condition (deadline off)
  std::string revision;                        // the revision `condition` belongs to
  std::optional<Duration> requeue_after;       // nullopt: nothing to schedule
  std::vector<DeadlineProblem> problems;

  bool Exceeded() const { return condition && condition->reason == kReasonDeadlineExceeded; }
  // requeueAfterSeconds as printed: -1 when nothing is scheduled.
  double RequeueAfterSeconds() const { return requeue_after ? ToSeconds(*requeue_after) : -1.0; }
};

// One evaluation of the state machine. For a Deployment the live Progressing condition
// (written by Kubernetes) is echoed and nothing is scheduled.
ProgressResult EvaluateProgress(const Workload& workload,
                                const std::optional<PreviousCondition>& previous, Time now);

// The API versions a cluster is asked for, in order, when fleetwave watches a workload kind's
// progress deadlines: the first one served is watched. Empty: the kind has no progress-deadline
// rule here (a configured kind fleetwave cannot evaluate). Pinned by progress_deadline_test.cc
// WorkloadKindApiVersions.
std::vector<std::string> WorkloadKindApiVersions(const std::string& kind);

}  // namespace fleetwave::engine
