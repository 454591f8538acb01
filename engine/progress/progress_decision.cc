#include "engine/progress/progress_decision.h"

namespace fleetwave::engine {

bool DaemonDecidesDeadline(WorkloadKind kind) { return kind != WorkloadKind::kDeployment; }

bool DaemonDecidesDeadline(std::string_view kind) {
  return kind != WorkloadKindName(WorkloadKind::kDeployment);
}

bool HoldsProgressCondition(const Workload& workload) {
  return ResolveDeadline(workload).seconds.has_value();
}

std::optional<PreviousCondition> DecisionOf(const ProgressResult& result) {
  if (!result.condition) return std::nullopt;
  return PreviousCondition{*result.condition, result.revision};
}

ResumedDecision ResumeFromRecord(const Json& record) {
  const Json* condition = record.is_object() ? FieldAt(record, {"condition"}) : nullptr;
  std::optional<ProgressCondition> c;
  if (condition != nullptr) c = ConditionFromJson(*condition);
  if (!c) return ResumedDecision{std::nullopt, true};
  return ResumedDecision{PreviousCondition{std::move(*c), StringAt(record, {"revision"})}, false};
}

bool DecisionChanged(const std::optional<PreviousCondition>& held,
                     const std::optional<PreviousCondition>& next) {
  if (held.has_value() != next.has_value()) return true;
  return held && (held->condition != next->condition || held->revision != next->revision);
}

bool IsLoggedTransition(const std::optional<PreviousCondition>& from,
                        const std::optional<PreviousCondition>& to) {
  if (from.has_value() != to.has_value()) return true;
  if (!from) return false;
  return from->condition.status != to->condition.status ||
         from->condition.reason != to->condition.reason || from->revision != to->revision;
}

bool DeadlineViewChanged(const std::optional<DeadlineView>& reported, const DeadlineView& now) {
  return !reported || reported->exceeded != now.exceeded || reported->message != now.message;
}

std::string PublishedRevision(const Workload& workload, const ProgressResult& result) {
  return result.condition ? result.revision : workload.Revision();
}

}  // namespace fleetwave::engine
