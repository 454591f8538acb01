#include "engine/appset/decide_rules.h"

#include "engine/rollingsync/appset_decider.h"

namespace fleetwave::engine {

bool SeedsDecider(const SeedFacts& f, const ApplicationSet& set, bool progressive_syncs) {
  if (!f.has_gather || !f.loaded || f.deleting || !f.planned) return false;
  return RollingSyncDecider::Handles(set, progressive_syncs);
}

std::set<std::string> AppsToRefresh(const std::set<std::string>& applied,
                                    const std::set<std::pair<std::string, std::string>>& live,
                                    const std::set<std::string>& clusters,
                                    const DeciderIndex& index) {
  std::set<std::string> apps = applied;
  for (const auto& key : live) {
    if (auto it = index.app_of_label.find(key); it != index.app_of_label.end()) {
      apps.insert(it->second);
    }
  }
  for (const auto& cluster : clusters) {
    if (auto it = index.apps_of_cluster.find(cluster); it != index.apps_of_cluster.end()) {
      apps.insert(it->second.begin(), it->second.end());
    }
  }
  return apps;
}

DecisionRoute RouteOf(const RouteFacts& f) {
  if (!f.decider_holds_generation) return DecisionRoute::kFromScratch;
  if (!f.new_gather || (f.same_inputs && !f.resync_due)) return DecisionRoute::kIncremental;
  return DecisionRoute::kCheckThenFromScratch;
}

bool DeltaPublishes(const AppSetDelta& delta) {
  return !delta.Empty() || !delta.applications.empty();
}

NotCommitted DecisionNotCommitted(const std::string& error, Time now) {
  return {"cannot commit the reconcile to the state store: " + error + "; retrying in " +
              std::to_string(kNotCommittedRetry.count()) + "s",
          now + kNotCommittedRetry};
}

bool DecidesOnLastGather(bool regather_asked, bool has_gather, bool loaded) {
  return !regather_asked && has_gather && loaded;
}

std::optional<Time> ReuseApplicationsSince(std::optional<Time> since, bool fresh_gather, Time now) {
  return fresh_gather ? std::optional<Time>(now) : since;
}

DeciderCheck CheckDecider(const std::map<std::string, StoredApp>& decider,
                          const std::map<std::string, StoredApp>& store,
                          const std::function<DeciderCheck()>& decide) {
  if (std::string fed = StoredAppsDifference(decider, store); !fed.empty()) {
    return DeciderCheck{false, std::move(fed)};
  }
  return decide();
}

std::string DivergenceLine(const std::string& difference) {
  return "internal error (please report it): the incremental decision differs from the "
         "from-scratch one: " +
         difference + "; deciding from scratch";
}

}  // namespace fleetwave::engine
