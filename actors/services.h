// What the daemon's actors share and do not own: the store, the sources, the blocking pool,
// the clock, the log and where they publish what the API shows. The binary builds one and
// tests build theirs (a MemoryStore, a FakeSource, a fake clock, publishers that record).
// Everything here outlives the actor system.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actors/publish_origin.h"
#include "engine/repo_url.h"
#include "engine/time.h"
#include "engine/yaml_json.h"

namespace fleetwave::store {
class Store;
}
namespace fleetwave::sources {
class Source;
}

namespace fleetwave::actors {

class BlockingPool;

// Where actors publish snapshots for the API (StatusBoard in the binary). Every callback may be
// called from any actor thread; unset ones are skipped.
struct Publisher {
  // One ApplicationSet's summary + status, and its Argo-shaped Applications (replacing the set's
  // previous ones).
  // `clusters` maps each app to the kubeconfig context its destination resolved to.
  // An Application the set published before may come again as the same pointer: unchanged.
  // `origin` (may be null) says who publishes and which entries changed since its previous
  // publish of the set (publish_origin.h).
  std::function<void(const std::string& appset, const engine::Json& summary,
                     std::vector<std::shared_ptr<const engine::Json>> applications,
                     const std::map<std::string, std::string>& clusters,
                     const PublishOrigin* origin)>
      appset;
  std::function<void(const std::string& appset)> appset_removed;
  // A RollingSync reconcile's drift (engine PlanResult::drifted/healed): the apps that drift
  // and are only reported, and how many were sent back to be synced again.
  std::function<void(const std::string& appset, const std::vector<std::string>& reported,
                     std::size_t corrected)>
      drift;
  // How many apps of the set are pending deletion or being deleted (deletion_actor.h).
  std::function<void(const std::string& appset, int count)> pending_deletions;
  std::function<void(const std::string& cluster, const engine::Json& state)> cluster;
  // An input file's problems (empty: it loaded); `in_force` says whether a last good version
  // is still used.
  std::function<void(const std::string& file, const std::vector<std::string>& errors)> file;
  // An input file left the directory: it and every error shown under it (its load's, its sets'
  // gathers') leave the API and the metrics. Called after `file` with no errors.
  std::function<void(const std::string& file)> file_removed;
  // Something went wrong that the daemon survived, on an object: reason is one of "file",
  // "set", "cluster", "store", "internal" (a job threw); fleetwave_degraded_total{reason}.
  std::function<void(const std::string& reason)> degraded;
  std::function<void(bool ready)> ready;
  // A set's stored records cannot be used (a value of the wrong type: `problem` names the key
  // and field), or nullopt once they can; the set decides nothing meanwhile.
  std::function<void(const std::string& appset, const std::optional<std::string>& problem)>
      stored_state;
  std::function<void(const std::string& cluster)> cluster_removed;
  // A sync operation ended: trigger rollout|manual|automated, result Succeeded|Failed|Error.
  std::function<void(const std::string& appset, const std::string& trigger,
                     const std::string& result)>
      sync_finished;
  // [issue 29] An analysis measurement of step `step` (1-based) stored: passed or not.
  std::function<void(const std::string& appset, int step, bool passed)> analysis_measured;
  // [issue 29] A committed decision started a rollback of the set (once per rollback): `reason`
  // engine::kRollbackStepFailed or kRollbackOperator; fleetwave_rollbacks_total.
  std::function<void(const std::string& appset, const std::string& reason)> rollback_started;
  // How long one reconcile took, from wake-up to its decision committed.
  std::function<void(const std::string& actor, double seconds)> reconcile_seconds;
  // An incremental decision differed from the from-scratch one at a resync (a bug, logged with
  // the first difference; the set was decided from scratch).
  std::function<void(const std::string& appset)> decision_divergence;
  // A reload finished: it covered every (reload_atom, ticket) request up to `ticket` (0 when
  // only ticketless ones); `ok` is false when any input failed to load (its last good version
  // stays in force). The daemon answers SIGHUP's RELOADING=1 with READY=1 on it.
  std::function<void(uint64_t ticket, bool ok)> reloaded;
  // A workload's progress-deadline state (workload_actor.h, WorkloadItem: cluster, namespace,
  // kind, name, revision, condition, exceeded, ...), published only once it is durable; and
  // the workload gone from fleetwave's view (deleted, or its deadline switched off).
  std::function<void(const engine::Json& workload)> workload;
  std::function<void(const std::string& cluster, const std::string& ns, const std::string& kind,
                     const std::string& name)>
      workload_removed;
  // fleetwave.yaml loaded (at start and at every good reload): its `repositories:`
  // credentials, file paths resolved. The binary hands them to its GitSource.
  std::function<void(const std::vector<engine::RepositoryConfig>& repositories)> repositories;
  // One evaluation of the progress-deadline engine (counted, so a benchmark can show that an
  // idle daemon evaluates nothing).
  std::function<void()> progress_evaluated;
};

struct Services {
  store::Store* store = nullptr;
  sources::Source* source = nullptr;
  BlockingPool* pool = nullptr;
  // Store commits and reads that a decision waits for: their own threads, so a write-ahead
  // commit never queues behind a git fetch or a render of a whole set on `pool` (four slow
  // remotes held every pool thread and with them every rollout's next decision). Null: `pool`.
  BlockingPool* store_pool = nullptr;
  BlockingPool& StorePool() const { return store_pool != nullptr ? *store_pool : *pool; }
  std::function<engine::Time()> now;
  // A uniform random sample in [0, 1) that spreads each set's polls (engine/poll_schedule.h);
  // null: no spread (tests).
  std::function<double()> jitter;
  // One line per decision; the actors never log credentials or Secret data.
  std::function<void(const std::string&)> log;
  Publisher publish;
};

}  // namespace fleetwave::actors
