// One sweep of the deletion actor over every stored deletion (product §3.5, RollingSync §8):
// per record, held while the inputs are not trusted, left to its set's round when the whole set
// is being deleted, waited for while PendingDeletion and not yet due, else one
// PlanDeletionRound — with the log lines, the record writes (compare-and-set on the record's
// revision, so a concurrent cancel by an appset actor wins), the delete commands, the sets whose
// deletion completed and the earliest wake-up. Pure: the deletion actor reads the stored records
// and the clusters' views, turns `writes` into one store batch, commits it before sending
// `commands`, and arms one timer at `wake_at`.
// Pinned by tests/engine/deletion/deletion_sweep_test.cc.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/deletion/deletion_state.h"
#include "engine/time.h"

namespace fleetwave::engine {

// One stored deletion; app "" = the whole set.
struct DeletionKey {
  std::string appset, app;
  auto operator<=>(const DeletionKey&) const = default;
};

// "appset=<set>" or "appset=<set> app=<app>": how every log line names a deletion.
std::string DeletionWho(const DeletionKey& key);

// Whether an app's cluster cache is the truth about it: only once the cluster is reachable,
// every watch of it listed and the app label's own list arrived — an app is never judged gone
// from a watch that has not listed yet (DeletionAppView::observed).
bool DeletionAppObserved(bool reachable, bool synced, bool label_listed);

struct StoredDeletion {
  DeletionRecord record;
  int64_t revision = 0;  // the store's revision of the record
};

struct DeletionSweepInput {
  std::map<DeletionKey, StoredDeletion> records;
  // Per record, what each of its apps' clusters shows (DeletionAppView); an app without a view
  // is neither observed nor on an existing cluster.
  std::map<DeletionKey, std::map<std::string, DeletionAppView>> views;
  // False while the ApplicationSet directory is empty or unreadable or the kubeconfig failed:
  // every record is then held.
  bool inputs_trusted = true;
  Time now;
};

// A line logged once until its key is forgotten (the actor keeps the keys it logged).
struct LogOnceLine {
  std::string key;
  std::string text;
};

// A record stored or removed, in this order in one batch. `expected` is the store's
// compare-and-set: nullopt = unconditional, N = the record must still be at revision N.
struct DeletionWrite {
  DeletionKey key;
  std::optional<DeletionRecord> record;  // nullopt: the record is removed
  std::optional<int64_t> expected;
};

struct DeletionSweep {
  std::vector<LogOnceLine> log_once;  // logged now (held, waiting for the due time)
  std::vector<std::string> forget;    // log-once keys to drop: the condition they told ended
  std::vector<std::string> log;       // logged once `writes` are stored
  std::vector<DeletionWrite> writes;  // stored before any command is sent
  std::vector<std::pair<DeletionKey, AppDeleteCommand>> commands;
  std::vector<std::string> sets_done;  // every record of these sets is in `writes` as removed
  std::optional<Time> wake_at;         // the earliest due time not reached yet
  std::vector<DeletionKey> watch;      // records in their Deleting round: watch their apps
};

DeletionSweep PlanDeletionSweep(const DeletionSweepInput& input);

}  // namespace fleetwave::engine
