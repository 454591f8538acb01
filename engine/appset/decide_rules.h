// How an ApplicationSet's decision is taken, and what happens when it cannot be stored (issue 25:
// the rules the appset actor used to hold in Decide, SeedDecider, Reconcile and
// DecisionNotCommitted, so the actor only follows the answer). Pinned by
// tests/engine/appset/decide_rules_test.cc.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/appset/appset.h"
#include "engine/rollingsync/appset_decider.h"
#include "engine/time.h"

namespace fleetwave::engine {

// What a from-scratch decision that landed leaves behind.
struct SeedFacts {
  bool has_gather = false;  // a generation was gathered
  bool loaded = false;      // the set's stored records are in memory
  bool deleting = false;    // pending deletion or being deleted
  bool planned = false;     // the decision planned a rollout (AppSetPlan::planned)
};

// True when the set's next events are decided on what they change by an incremental decider
// (RollingSyncDecider): only a planned decision of a loaded set that is not being deleted, and
// only for a set the decider takes (RollingSyncDecider::Handles).
bool SeedsDecider(const SeedFacts& facts, const ApplicationSet& set, bool progressive_syncs);

// What an incremental decider knows of its generation: which app each (cluster, app label) is,
// and the apps of each cluster.
struct DeciderIndex {
  std::map<std::pair<std::string, std::string>, std::string> app_of_label;
  std::map<std::string, std::vector<std::string>> apps_of_cluster;
};

// The apps whose observation the decider refreshes before deciding on what the cluster actors and
// finished attempts reported since the last decision: each app with a new apply result
// (`applied`), the app of each changed live object (`live`: cluster, app label) the decider's
// generation has, and every app of a cluster whose reachability or listing changed
// (`clusters`).
std::set<std::string> AppsToRefresh(const std::set<std::string>& applied,
                                    const std::set<std::pair<std::string, std::string>>& live,
                                    const std::set<std::string>& clusters,
                                    const DeciderIndex& index);

// How a decision on a gather is taken.
enum class DecisionRoute {
  kIncremental,           // the decider decides on what changed, like an event
  kCheckThenFromScratch,  // the decider is checked against a from-scratch decision, which wins
  kFromScratch,           // no decider holds this gather's generation
};

struct RouteFacts {
  bool decider_holds_generation = false;  // a decider exists and holds the gather's generation
  bool new_gather = false;                // the gather is new (not deciding again on the last)
  bool same_inputs = false;               // a new gather that found what the last one found
  bool resync_due = false;                // ResyncDue (decision_gate.h)
};

// A gather that found what the decider holds is decided on what changed; a new gather with new
// inputs, or the resync (every kResyncPolls polls), checks the decider and decides from scratch.
DecisionRoute RouteOf(const RouteFacts& facts);

// An incremental decision that landed is published only when it changed the set's status or
// specs, started a sync, or changed an Application: a quiet event publishes nothing.
bool DeltaPublishes(const AppSetDelta& delta);

// A decision's commit to the state store failed: nothing of it is in force. The log line, and
// when it is tried again (from scratch, on a new gather: a decider would be ahead of the store).
struct NotCommitted {
  std::string log;
  Time retry_at;
};
inline constexpr std::chrono::seconds kNotCommittedRetry{5};
NotCommitted DecisionNotCommitted(const std::string& error, Time now);

// A reconcile decides again on the last gather, unless a new gather was asked for or there is
// nothing to decide on yet (no gather, or the stored records not loaded).
// Since when a from-scratch decision reuses the Applications it built before
// (AppSetReconcileInput::reuse_applications_since; reconciledAt says it): a decision on a fresh
// gather rebuilds them from their sources now; one on the last gather (an event, a retry, a
// check) keeps the time of the gather it decides on.
std::optional<Time> ReuseApplicationsSince(std::optional<Time> since, bool fresh_gather, Time now);

// The resync's check of the decider against the from-scratch decision: first the stored apps
// the decider was fed (`decider`) against the store's (`store`); a difference there is the
// divergence, and the decision is not compared on inputs that differ. Only then `decide` (the
// decider's DecideChecked) compares the decisions. The first difference found is reported.
DeciderCheck CheckDecider(const std::map<std::string, StoredApp>& decider,
                          const std::map<std::string, StoredApp>& store,
                          const std::function<DeciderCheck()>& decide);

// The line logged when the decider diverged: an internal error, and the from-scratch decision
// is the one that lands.
std::string DivergenceLine(const std::string& difference);

bool DecidesOnLastGather(bool regather_asked, bool has_gather, bool loaded);

}  // namespace fleetwave::engine
