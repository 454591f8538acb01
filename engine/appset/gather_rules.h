// How an ApplicationSet gathers, polls, wakes and watches (issue 25: the rules the appset actor
// used to hold, so the actor only fetches, stores, sends and arms timers). Every input is plain
// data and `now` is a parameter. Pinned by tests/engine/appset/gather_rules_test.cc.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/appset/generate.h"
#include "engine/time.h"

namespace fleetwave::engine {

// ---- generation and its reuse ----

// A generation records the commits it read (so that the next poll may reuse it) only when
// every app rendered and generation reported no problem: otherwise the next poll must try the
// failed resolves, renders and generators again.
bool RecordsCommits(bool every_render_ok, bool generation_errors);

// (repoURL, revision) -> the commit it resolved to.
using ReadCommits = std::map<std::pair<std::string, std::string>, std::string>;
// What (repoURL, revision) resolves to now; nullopt when it cannot be resolved.
using ResolveNow =
    std::function<std::optional<std::string>(const std::string& repo, const std::string& revision)>;

// The last generation is reused instead of generating again when it was made from the same
// spec, recorded its commits, and every one of them still resolves to the same commit.
// `resolve_now` is asked only while the answer can still be yes (each call may reach a remote).
bool ReusesLastGeneration(bool same_spec, const std::optional<ReadCommits>& last_commits,
                          const ResolveNow& resolve_now);

// ---- timers ----

// When a decision's wake-up is armed: the earlier of the next poll (one poll interval from
// `now` while none is scheduled) and the engine's wake-up.
Time PollOrEarlier(std::optional<Time> next_poll_at, Time now, std::chrono::seconds poll_interval,
                   std::optional<Time> engine_wake);

// A wake-up asked for `at` leaves the pending one in place when that one is no later and still
// in the future at `now`; otherwise it replaces it.
bool KeepsPendingWake(std::optional<Time> pending, Time at, Time now);

// What a wake-up does: the poll gathers anew when its time came (or none is scheduled); an
// earlier wake-up (a retry, a step deadline) decides on the last gather, which is what changed.
enum class WakeAction { kGatherAnew, kDecideOnLastGather };
WakeAction OnWake(std::optional<Time> next_poll_at, Time now);

// ---- watching the clusters ----

// Whether a cluster is in the daemon's cluster map.
using ClusterKnown = std::function<bool(const std::string& cluster)>;

// An app is watched only on a named cluster the daemon knows: an app without a cluster, or
// whose cluster left the kubeconfig, has nothing to watch.
bool WatchesApp(const std::string& cluster, const ClusterKnown& known);

// The (cluster, app label) pairs set `appset` watches for `apps`.
std::set<std::pair<std::string, std::string>> WantedWatches(
    const std::string& appset, const std::vector<GeneratedApplication>& apps,
    const ClusterKnown& known);

// The kinds to watch for an app's rendered objects are engine::KindsToWatch's
// (engine/cluster_rules.h), the cluster actor's own rule.

// What a cluster reported is dropped once the cluster left the cluster map.
bool DropsClusterView(const std::string& cluster, const ClusterKnown& known);

// ---- a gather's outcome ----

// A store that could not be read is retried this often (the log says "retrying every 5s").
inline constexpr std::chrono::seconds kStoreRetry{5};

struct StoreProblem {
  std::string problem;  // "" when the stored state can be used
  // The set's own records are at fault (a value that does not decode), not the whole store
  // (which the daemon reports itself): shown on the set's entry in the API's errors.
  bool own = false;
};
// `store_error`: the store could not be read (`value_error`: a record of the set did not
// decode); `records_problem`: the first loaded record that does not decode strictly ("" when
// every one does, or none were loaded).
StoreProblem StoreProblemOf(const std::string& store_error, bool value_error,
                            const std::string& records_problem);

// A problem with the stored state is said (logged, and shown on the set when its own) once per
// change of reason, not at each retry every kStoreRetry; its end is said once too. `last_said`:
// the problem said last ("" when none is in force).
enum class StoreProblemSaying {
  kQuiet,    // nothing new: no problem, or the one already said
  kSay,      // a new problem, or another reason
  kCleared,  // the problem said last is gone: "the stored state can be used again"
};
StoreProblemSaying SayStoreProblem(const std::string& problem, const std::string& last_said);

// The stored deletions' problems (records that do not decode, never acted on) are logged once
// per change of the list, not at every poll; `last_logged`: the list logged last.
bool LogsDeletionProblems(const std::vector<std::string>& problems,
                          const std::vector<std::string>& last_logged);

// Consecutive gathers that could not reach a repository: the poll backs off while they grow.
int NextPollFailures(int poll_failures, bool fetch_failed);

// A gather compared with the one before it (none after a start) and the decision in force.
struct GatherChange {
  bool has_previous = false;
  bool same_generation = false;  // the previous gather's generation is this one's
  bool same_clusters = false;    // the clusters last watched are the current ones
  bool same_deletions = false;   // the deletion records the decision saw are this gather's
};

// An incremental decision already holds this gather's inputs: the same generation, clusters
// and deletion records (a refresh or webhook at an unchanged commit, a poll after an event
// arrived mid-decision).
bool SameInputs(const GatherChange& c);

// The subscriptions are made again only when the generation or the clusters changed: the same
// generation on the same clusters subscribes to nothing new.
bool WatchAgain(const GatherChange& c);

}  // namespace fleetwave::engine
