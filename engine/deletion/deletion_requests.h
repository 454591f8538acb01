// The deletion actor's answers that are not a sweep (product §3.5): the API's DELETE of a set
// pending deletion, what the stored deletions still count per set and need from the clusters,
// and which of a record's apps its clusters must watch. Pure; pinned by
// tests/engine/deletion/deletion_requests_test.cc.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/deletion/deletion_state.h"
#include "engine/deletion/deletion_sweep.h"
#include "engine/operator_command.h"
#include "engine/time.h"

namespace fleetwave::engine {

// The API's DELETE of a set: a PendingDeletion set is deleted now, without waiting for the
// rest of its grace period; a set not pending deletion is refused, one already Deleting is
// unchanged.
struct ExpediteDecision {
  CommandAnswer answer;
  std::optional<DeletionRecord> record;  // the set's record to store: due now
  std::string log;                       // refused: logged at once; else once stored
};
ExpediteDecision DecideExpedite(const std::string& appset,
                                const std::optional<DeletionRecord>& set_record,
                                const std::string& caller, Time now);

// Per set, the apps its stored deletions still have to delete (a set's record counts its apps
// not yet gone, an app's record one).
std::map<std::string, int> PendingDeletionCounts(
    const std::map<DeletionKey, StoredDeletion>& records);

// The clusters an app not yet gone still needs (the coordinator keeps such a context running
// after it left the kubeconfig).
std::set<std::string> ClustersStillNeeded(const std::map<DeletionKey, StoredDeletion>& records);

// A record's apps whose cluster must be watched: not gone, resolved to a cluster.
std::vector<DeletionApp> AppsToWatch(const DeletionRecord& record);

}  // namespace fleetwave::engine
