#include "engine/sync/attempt_gate.h"

namespace fleetwave::engine {

std::string_view AttemptNotDueReasonName(AttemptNotDueReason reason) {
  switch (reason) {
    case AttemptNotDueReason::kNone:
      return "none";
    case AttemptNotDueReason::kInFlight:
      return "in flight";
    case AttemptNotDueReason::kNotRunning:
      return "not running";
    case AttemptNotDueReason::kNotGenerated:
      return "not generated";
    case AttemptNotDueReason::kClusterNotReady:
      return "cluster not ready";
  }
  return "unknown";
}

AttemptDecision DecideAttempt(const AttemptFacts& facts, Time now) {
  auto not_due = [](AttemptNotDueReason reason) {
    return AttemptDecision{AttemptReadiness::kNotDue, std::nullopt, reason};
  };
  if (facts.in_flight) return not_due(AttemptNotDueReason::kInFlight);
  if (facts.operation == nullptr || facts.operation->phase != OperationPhase::kRunning) {
    return not_due(AttemptNotDueReason::kNotRunning);
  }
  if (!facts.generated) return not_due(AttemptNotDueReason::kNotGenerated);
  if (!facts.cluster_reachable || !facts.cluster_synced) {
    return not_due(AttemptNotDueReason::kClusterNotReady);
  }
  const std::optional<Time>& next = facts.operation->next_attempt_at;
  if (next && *next > now) {
    return {AttemptReadiness::kWaitUntil, next, AttemptNotDueReason::kNone};
  }
  return {AttemptReadiness::kStart, std::nullopt, AttemptNotDueReason::kNone};
}

AttemptRenderChoice ChooseAttemptRender(const CurrentRender& current,
                                        const std::vector<std::string>& pinned) {
  if (current.ok && current.revisions != nullptr && *current.revisions == pinned) {
    return AttemptRenderChoice::kUseCurrent;
  }
  return AttemptRenderChoice::kRenderAtPinned;
}

AfterPinnedRender AfterAttemptRender(bool render_ok, bool still_generated) {
  if (!render_ok) return AfterPinnedRender::kFinishWithRenderError;
  if (!still_generated) return AfterPinnedRender::kDrop;
  return AfterPinnedRender::kSend;
}

}  // namespace fleetwave::engine
