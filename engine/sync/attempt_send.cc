#include "engine/sync/attempt_send.h"

#include "engine/sync/sync_status.h"

namespace fleetwave::engine {

bool PruneRequested(const OperationRecord& operation) {
  const Json& op = operation.operation;
  if (!op.is_object()) return false;
  auto sync = op.find("sync");
  if (sync == op.end() || !sync->is_object()) return false;
  auto prune = sync->find("prune");
  return prune != sync->end() && *prune == Json(true);
}

AttemptSendPlan PlanAttemptSend(const AttemptTarget& target, const OperationRecord& operation,
                                const Json& app_spec, const std::vector<RenderedObject>& desired,
                                const LiveObjects& live) {
  AttemptSendPlan plan;
  if (!target.cluster_known) {
    plan.finish_now = true;
    plan.error = NotFoundError("", "no cluster named " + target.cluster);
    return plan;
  }
  plan.attempt = PlanSyncAttempt(target.app, desired, live, DecodeIgnoreDifferences(app_spec),
                                 PruneRequested(operation));
  plan.finish_now = plan.attempt.apply.empty() && plan.attempt.prune.empty();
  return plan;
}

std::string AttemptSendLine(const AttemptTarget& target, size_t applying, size_t pruning) {
  return "app=" + target.app.app + " cluster=" + target.cluster + " applying " +
         std::to_string(applying) + " object(s), pruning " + std::to_string(pruning);
}

}  // namespace fleetwave::engine
