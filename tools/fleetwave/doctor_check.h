// The checks behind `fleetwave doctor`: for every cluster at once, is it reachable, which
// version does it run, may fleetwave list and watch the kinds it needs, how long is a round
// trip, and — when something is wrong — one clear problem line (TLS/CA, unauthorized,
// forbidden, timeout, connection refused, DNS, credentials). Everything runs on one I/O
// thread with a hard overall budget, so hanging clusters cannot stretch the run.
// CheckClusters is a blocking function; call it from one thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cluster-clients/cluster_client.h"
#include "cluster-clients/kubeconfig.h"

namespace fleetwave::cli {

struct DoctorReport {
  std::string cluster;
  bool ok = false;
  std::string version;                  // gitVersion; empty when unknown
  std::optional<long long> latency_ms;  // GET /version on a warm connection
  std::string problem;                  // empty when ok
};

struct DoctorOptions {
  clients::Duration budget = std::chrono::milliseconds(9000);  // the whole run
  std::vector<std::string> kinds = {"CloneSet", "Deployment", "StatefulSet", "DaemonSet"};
};

// The resource of a kind fleetwave watches; nullopt for kinds it does not know.
std::optional<clients::ResourceRef> WorkloadResource(const std::string& kind);

// One line for a failed result; `what` names the attempted action ("list deployments.apps").
std::string ProblemLine(const clients::Result& r, const std::string& what);

// Checks every cluster concurrently; results are in the input order.
std::vector<DoctorReport> CheckClusters(const std::vector<clients::ClusterConfig>& clusters,
                                        const DoctorOptions& options);

}  // namespace fleetwave::cli
