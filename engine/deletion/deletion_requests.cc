#include "engine/deletion/deletion_requests.h"

namespace fleetwave::engine {

ExpediteDecision DecideExpedite(const std::string& appset,
                                const std::optional<DeletionRecord>& set_record,
                                const std::string& caller, Time now) {
  ExpediteDecision d;
  const std::string prefix = "appset=" + appset + " deletion requested by " + caller;
  if (!set_record) {
    d.log = prefix + ": the set is not pending deletion";
    d.answer = {CommandOutcome::kConflict, "deletion of applicationset " + appset +
                                               " requested by " + caller +
                                               " refused: the set is not pending deletion"};
    return d;
  }
  if (set_record->phase != DeletionPhase::kPendingDeletion) {
    d.log = prefix + ": already Deleting";
    d.answer = {CommandOutcome::kUnchanged, "applicationset " + appset + " is being deleted"};
    return d;
  }
  d.record = *set_record;
  ExpediteDeletion(*d.record, now, caller);
  d.log = prefix + ": deleting now, without waiting for the grace period";
  d.answer = {CommandOutcome::kAccepted,
              "applicationset " + appset + " is deleted now, without waiting for its grace period"};
  return d;
}

std::map<std::string, int> PendingDeletionCounts(
    const std::map<DeletionKey, StoredDeletion>& records) {
  std::map<std::string, int> pending;
  for (const auto& [key, stored] : records) {
    const auto& r = stored.record;
    if (key.app.empty()) {
      int remaining = 0;
      for (const auto& a : r.apps) remaining += r.gone.count(a.name) == 0 ? 1 : 0;
      pending[key.appset] += remaining;
    } else {
      pending[key.appset] += 1;
    }
  }
  return pending;
}

std::set<std::string> ClustersStillNeeded(const std::map<DeletionKey, StoredDeletion>& records) {
  std::set<std::string> needs;
  for (const auto& [key, stored] : records) {
    for (const auto& a : AppsToWatch(stored.record)) needs.insert(a.cluster);
  }
  return needs;
}

std::vector<DeletionApp> AppsToWatch(const DeletionRecord& record) {
  std::vector<DeletionApp> out;
  for (const auto& a : record.apps) {
    if (record.gone.count(a.name) == 0 && !a.cluster.empty()) out.push_back(a);
  }
  return out;
}

}  // namespace fleetwave::engine
