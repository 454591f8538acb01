// The cluster actor: one per kubeconfig context in use. It owns that cluster's ClusterClient,
// one Informer per watched kind (objects carrying the fleetwave.io/app label, projected to
// LiveEntry on the client's loop thread), the cache of those entries per app label, and the
// cluster's reachability. It executes apply and delete commands and pushes ClusterUpdates to
// the subscribers of each label, coalesced per tick. Its protocol is the typed interface
// ClusterActor (cluster_interface.h); its workload actors report deadline decisions to it
// (workload_actor.h).
//
// Every client and informer callback comes back through an ActorExecutor into this actor's
// mailbox, and every request is asynchronous on the transport: no handler blocks, so a hung
// cluster never delays another cluster's actor. Reachability is clients::Liveness: the actor
// feeds it every outcome and sends the probes it plans. On exit the informers stop, later callbacks
// are dropped, and the client is released on the transport's loop once its last request ended.
#pragma once

#include <caf/fwd.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "actors/cluster_interface.h"
#include "cluster-clients/cluster_client.h"
#include "cluster-clients/liveness.h"

namespace fleetwave::actors {
struct Services;
}

namespace fleetwave::actors {

struct ClusterActorConfig {
  clients::ClusterConfig cluster;
  clients::Transport* transport = nullptr;     // outlives the actor system's actors
  clients::ExecRunner* exec_runner = nullptr;  // for exec credential plugins; may be null
  clients::ClientOptions options;
  // When the cluster is down (consecutive failures, or one request or watch that made no
  // progress) and how it is probed (GET /version) while up and, with backoff, while down.
  clients::LivenessPolicy liveness;
  std::chrono::milliseconds tick{50};
  // How often to retry the discovery of a watched kind that failed for a reason other than
  // "unknown kind".
  std::chrono::milliseconds discovery_retry_interval{2000};
  // One line per message; nullptr = stderr. Called from the actor and from the transport's loop
  // thread (the client's warnings): thread-safe, and it must outlive the transport.
  std::function<void(const std::string&)> log;
  // Progress deadlines (workload_actor.h): every object of these kinds (engine Config's
  // workload_kinds: CloneSet, Deployment, StatefulSet, DaemonSet), labelled or not, in these
  // namespaces (empty = all), is watched through a small projection; each one with a deadline
  // that fleetwave computes (engine::DaemonDecidesDeadline: not a Deployment) gets a workload
  // actor, started from the records State::LoadWorkloads holds for the cluster. Its decision
  // overrides the health of a labelled workload (Degraded while exceeded). A Deployment's row
  // is published straight from the projection (Kubernetes' own condition, echoed): no actor,
  // nothing stored. Without `services` nothing is watched for deadlines.
  std::vector<std::string> workload_kinds;
  std::vector<std::string> workload_namespaces;
  const Services* services = nullptr;  // store, pool, clock, log and publisher; outlives us
  // Whether it decides from the start (decide_atom changes it): without leader election
  // always. While not deciding (a standby, issue 28) the watches, the caches and the
  // reachability run as ever, the workloads with a deadline are only remembered, and nothing
  // is stored; once deciding, their actors start from the stored records.
  bool deciding = true;
  // Stores the kinds it watches (store key watches/<cluster>) whenever that set grows while it
  // decides, so a standby's actor of the cluster watches them too (leader election only).
  bool share_watched_kinds = false;
};

ClusterActor SpawnClusterActor(caf::actor_system& system, ClusterActorConfig config);

}  // namespace fleetwave::actors
