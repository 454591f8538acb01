// The cluster actors of a daemon with leader election (issue 28; docs/architecture.md, "Cluster
// actors across terms"): owned by the daemon, not by a term's coordinator, so a cluster's
// connection, informers and caches live across terms. A standby runs them from its start, not
// deciding (decide_atom): they watch and cache, probe reachability and publish the clusters'
// state, watch the kinds the leader watches (WatchKinds, from the store's watches/ keys), and
// write nothing (the WriteFence refuses any cluster write, the store refuses any batch). A term's
// coordinator takes them with Acquire instead of spawning its own: its appset actors subscribe
// to caches that have listed already, so a takeover sends no LIST of what the standby watched.
//
// A context whose configuration changed gets a new actor (the old one stops); an actor that
// ended (it failed, or the coordinator stopped a context that left the kubeconfig) is forgotten
// and Acquire spawns a new one.
//
// Thread-safety: every method from any thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "actors/cluster_interface.h"
#include "cluster-clients/cluster_client.h"

namespace fleetwave::actors {

class ClusterPool {
 public:
  // Spawns the actor of one context, deciding from its start or not.
  using Spawn =
      std::function<ClusterActor(caf::actor_system&, const clients::ClusterConfig&, bool deciding)>;
  ClusterPool(caf::actor_system& system, Spawn spawn);
  ~ClusterPool();
  ClusterPool(const ClusterPool&) = delete;
  ClusterPool& operator=(const ClusterPool&) = delete;

  // The running actor of `config.name` when its configuration is `config`, else a new one.
  ClusterActor Acquire(const clients::ClusterConfig& config);
  // Whether the actors decide (this instance leads): told to every actor, and new ones start so.
  void SetDeciding(bool deciding);
  // Watches `kinds` ("apiVersion/Kind", as watches/<cluster> holds them) on that cluster's
  // actor, if it has one (watch_kind is idempotent).
  void WatchKinds(const std::string& cluster, const std::vector<std::string>& kinds);
  // Stops every actor (the daemon stops).
  void StopAll();

 private:
  struct Member {
    clients::ClusterConfig config;
    ClusterActor actor;
  };
  struct Shared {
    // Recursive: an actor that ended before its functor was attached runs it at once, inside
    // Acquire.
    std::recursive_mutex mu;
    std::map<std::string, Member> members;
    bool deciding = false;
  };
  caf::actor_system& system_;
  const Spawn spawn_;
  const std::shared_ptr<Shared> shared_;
};

}  // namespace fleetwave::actors
