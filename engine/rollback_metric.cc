#include "engine/rollback_metric.h"

#include "engine/issue.h"
#include "engine/rollback_state.h"

namespace fleetwave::engine {
namespace {

// status.rollout.rollback of a stored or committed status.rollout, if it holds one.
std::optional<RollbackState> RollbackOf(const std::optional<Json>& rollout) {
  if (!rollout || !rollout->is_object()) return std::nullopt;
  const auto it = rollout->find("rollback");
  if (it == rollout->end() || it->is_null()) return std::nullopt;
  Issues issues;  // the decision's own decoding reports them; the metric only counts
  return DecodeRollbackState(*it, "status.rollout.rollback", issues);
}

}  // namespace

std::string RollbackStartedByDecision(const std::optional<Json>& stored,
                                      const std::optional<Json>& committed) {
  if (!committed) return "";
  return RollbackStarted(RollbackOf(stored), RollbackOf(committed));
}

}  // namespace fleetwave::engine
