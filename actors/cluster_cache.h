// What a cluster actor knows about its cluster, as plain C++ (no CAF, so the rules are unit
// tests): the live entries of every app label, which labels changed since the last update,
// who subscribed to which label, and whether the cluster is reachable and its watches synced.
//
// Updates (protocol.h, ClusterUpdate): a subscriber receives the complete entry list of each
// label it subscribed to that changed since the last Flush, and every subscriber receives an
// update when reachable or synced changed (possibly with no apps). A new subscription is
// answered at once with that label's entries (cluster_cache_test.cc pins each rule).
//
// Reachability is clients::Liveness (cluster-clients/liveness.h): unknown until the first
// request, up on the first answer, down after `down_after` consecutive failures of the
// connection or the server (ClusterFailure) or at once on one that made no progress (a hang).
//
// Not thread-safe: the cluster actor owns one.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "actors/protocol.h"
#include "cluster-clients/liveness.h"
#include "cluster-clients/result.h"

namespace fleetwave::actors {

using SubscriberId = std::uint64_t;

using clients::ClusterFailure;

class ClusterCache {
 public:
  ClusterCache(std::string cluster, int down_after);
  ClusterCache(std::string cluster, clients::LivenessPolicy liveness, std::uint64_t seed = 0);

  // Live entries, keyed by the object's identity; an object whose label changed moves. An
  // entry equal to the one held (same projection, same health: a watch replaying a version,
  // a deadline decision that leaves the health as it was) is dropped before any subscriber
  // hears of it; returns whether the entry changed. `entry.object` must not be null.
  bool Upsert(const std::string& label, LiveEntry entry);
  void Remove(const engine::ObjectRef& ref);
  std::vector<LiveEntry> Entries(const std::string& label) const;  // by identity
  std::size_t size() const { return label_of_.size(); }

  // Reachability. Record() counts a result at `now` (Liveness::Record). Each returns whether
  // up/down changed.
  bool RecordSuccess();
  bool RecordFailure();
  bool Record(const clients::Result& result, clients::SteadyTime now = {},
              clients::Liveness::Source source = clients::Liveness::Source::kRequest);
  bool reachable() const { return liveness_.up(); }
  bool down() const { return liveness_.down(); }
  int failures_in_a_row() const { return liveness_.failures_in_a_row(); }
  // The probe schedule (the cluster actor sends the probes).
  clients::Liveness& liveness() { return liveness_; }

  // Watches: synced once every started watch has listed (and at least one was started).
  void WatchStarted(const std::string& key);
  void WatchSynced(const std::string& key);
  void WatchDropped(const std::string& key);
  bool synced() const;

  // Subscriptions. Subscribe returns the update to send the new subscriber at once.
  ClusterUpdate Subscribe(const std::string& label, SubscriberId id);
  void Unsubscribe(const std::string& label, SubscriberId id);
  void RemoveSubscriber(SubscriberId id);
  bool HasSubscribers() const { return !labels_of_.empty(); }
  bool Subscribed(SubscriberId id) const { return labels_of_.count(id) > 0; }

  // Whether Flush would send anything.
  bool HasPending() const;
  // The updates to send now, one per subscriber concerned; clears the changes.
  std::vector<std::pair<SubscriberId, ClusterUpdate>> Flush();

 private:
  ClusterUpdate Status() const;
  bool StatusChanged() const;

  const std::string cluster_;
  clients::Liveness liveness_;
  std::map<std::string, bool> watches_;  // key -> listed
  bool sent_reachable_ = false;
  bool sent_synced_ = false;

  std::map<std::string, std::map<engine::ObjectRef, LiveEntry>> by_label_;
  std::map<engine::ObjectRef, std::string> label_of_;
  std::set<std::string> dirty_;
  std::map<std::string, std::set<SubscriberId>> subscribers_;  // label -> ids
  std::map<SubscriberId, std::set<std::string>> labels_of_;    // id -> labels
};

}  // namespace fleetwave::actors
