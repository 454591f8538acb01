// What the daemon does with one evaluation of a workload's progress deadline
// (progress_deadline.h): whether it holds a condition at all, when a new decision must be
// stored, which stored change is worth a log line, when the cluster actor must hear of it and
// which revision the published item shows. The workload actor only routes these answers (timers,
// the write-ahead commit, the board); tests/engine/progress/progress_decision_test.cc pins them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/health/health.h"
#include "engine/progress/progress_deadline.h"
#include "engine/progress/workload.h"

namespace fleetwave::engine {

// Whether the daemon decides a workload's deadline itself, with a workload actor, a timer and a
// stored condition: every kind but a Deployment, whose controller writes its own Progressing
// condition that fleetwave only reads (progress-deadline spec §5). A Deployment's row is
// published by its cluster actor straight from the watch's projection, and nothing is stored.
bool DaemonDecidesDeadline(WorkloadKind kind);
// The same by the kind's name as Kubernetes spells it (a configured workload kind).
bool DaemonDecidesDeadline(std::string_view kind);

// Whether the daemon holds a Progressing condition for `workload`: only while a deadline is in
// force. Off or invalid (problems reported), the stored condition is dropped and nothing is timed.
bool HoldsProgressCondition(const Workload& workload);

// The decision an evaluation asks to hold: its condition with the revision it belongs to; none
// when there is no condition (a Deployment whose controller has not written one yet).
std::optional<PreviousCondition> DecisionOf(const ProgressResult& result);

// What a workload actor resumes from its stored record ({revision, condition}): the decision it
// held. A record that does not decode (not an object, no condition object, a condition with
// neither timestamp) is dropped, not trusted in part: the workload starts afresh, as if nothing
// were stored, and its first evaluation decides and stores anew; `dropped` says so for the log.
struct ResumedDecision {
  std::optional<PreviousCondition> held;
  bool dropped = false;
};
ResumedDecision ResumeFromRecord(const Json& record);

// Whether `next` must be stored over `held`: the condition (any field, timestamps included) or
// its revision changed, or one of them is absent and the other not.
bool DecisionChanged(const std::optional<PreviousCondition>& held,
                     const std::optional<PreviousCondition>& next);

// Whether storing `to` over `from` is a transition to log: the status, the reason or the revision
// changed, or the condition appeared or went. A message or a timestamp alone is not one.
bool IsLoggedTransition(const std::optional<PreviousCondition>& from,
                        const std::optional<PreviousCondition>& to);

// Whether the cluster actor must hear of `now` (it picks the workload's health by it): the first
// view, or whether it is exceeded or its message changed.
bool DeadlineViewChanged(const std::optional<DeadlineView>& reported, const DeadlineView& now);

// The revision a published workload item names: the held condition's, else the workload's own
// current revision (nothing held yet).
std::string PublishedRevision(const Workload& workload, const ProgressResult& result);

}  // namespace fleetwave::engine
