#include "engine/appset/decision_gate.h"

namespace fleetwave::engine {

bool ResyncDue(std::optional<Time> decided_at, Time now, std::chrono::seconds poll_interval) {
  return !decided_at || now - *decided_at >= kResyncPolls * poll_interval;
}

bool NothingToDecide(const PollFacts& f) {
  if (f.asked_since || f.store_loaded || !f.decided_at) return false;
  if (!f.same_generation || !f.same_clusters || !f.same_deletions) return false;
  if (f.undecided_observations) return false;
  if (f.engine_wake_at && *f.engine_wake_at <= f.precise_now) return false;
  return !ResyncDue(f.decided_at, f.now, f.poll_interval);
}

FailedGeneration OnFailedGeneration(bool repository_errors, bool has_last) {
  if (!repository_errors) return FailedGeneration::kWaitForNextPoll;
  return has_last ? FailedGeneration::kDecideOnLastGeneration : FailedGeneration::kShowStoredStatus;
}

}  // namespace fleetwave::engine
