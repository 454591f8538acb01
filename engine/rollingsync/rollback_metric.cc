#include "engine/rollingsync/rollback_metric.h"

#include "engine/rollingsync/rollback_state.h"

namespace fleetwave::engine {
namespace {

// What tells one rollback from another (its reason and start) of a stored or committed
// status.rollout, if it holds one. Only those two fields are read: a running rollback lists
// every app it returns, and this runs at each committed change of status.rollout.
std::optional<RollbackState> RollbackOf(const std::optional<Json>& rollout) {
  if (!rollout || !rollout->is_object()) return std::nullopt;
  const auto it = rollout->find("rollback");
  if (it == rollout->end() || !it->is_object()) return std::nullopt;
  const auto reason = it->find("reason");
  const auto started = it->find("startedAt");
  if (reason == it->end() || !reason->is_string() || started == it->end() ||
      !started->is_string()) {
    return std::nullopt;  // the decision's own decoding reports it; the metric only counts
  }
  const std::optional<Time> at = ParseRfc3339(started->get_ref<const std::string&>());
  if (!at) return std::nullopt;
  RollbackState identity;
  identity.reason = reason->get<std::string>();
  identity.started_at = *at;
  return identity;
}

}  // namespace

std::string RollbackStartedByDecision(const std::optional<Json>& stored,
                                      const std::optional<Json>& committed) {
  if (!committed) return "";
  return RollbackStarted(RollbackOf(stored), RollbackOf(committed));
}

}  // namespace fleetwave::engine
