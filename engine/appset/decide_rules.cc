#include "engine/appset/decide_rules.h"

#include "engine/rollingsync/appset_decider.h"

namespace fleetwave::engine {

bool SeedsDecider(const SeedFacts& f, const ApplicationSet& set, bool progressive_syncs) {
  if (!f.has_gather || !f.loaded || f.deleting || !f.planned) return false;
  return RollingSyncDecider::Handles(set, progressive_syncs);
}

DecisionRoute RouteOf(const RouteFacts& f) {
  if (!f.decider_holds_generation) return DecisionRoute::kFromScratch;
  if (!f.new_gather || (f.same_inputs && !f.resync_due)) return DecisionRoute::kIncremental;
  return DecisionRoute::kCheckThenFromScratch;
}

NotCommitted DecisionNotCommitted(const std::string& error, Time now) {
  return {"cannot commit the reconcile to the state store: " + error + "; retrying in " +
              std::to_string(kNotCommittedRetry.count()) + "s",
          now + kNotCommittedRetry};
}

bool DecidesOnLastGather(bool regather_asked, bool has_gather, bool loaded) {
  return !regather_asked && has_gather && loaded;
}

}  // namespace fleetwave::engine
