// What the daemon publishes about itself and its clusters (/readyz, the files list of the API,
// a cluster's `synced`): rules the status board and the cluster cache used to decide themselves.
// Pure; tests/engine/core/daemon_status_test.cc pins them.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>

namespace fleetwave::engine {

struct DaemonReadiness {
  bool ready = false;
  std::string reason;  // why not ready; empty when ready

  bool operator==(const DaemonReadiness&) const = default;
};

// The readiness served: a state store that cannot be used makes the daemon not ready, whatever
// it was told; otherwise what it was told, with no reason when ready.
DaemonReadiness ReadinessOf(bool ready, const std::string& reason,
                            const std::optional<std::string>& store_problem);

// The files the API lists with their error (nullopt: loaded fine): each input file's status,
// over which a stored record's problem is listed under its place, and the state store's problem
// under the database's name wins over both.
std::map<std::string, std::optional<std::string>> PublishedFileStatuses(
    const std::map<std::string, std::optional<std::string>>& files,
    const std::map<std::string, std::string>& record_problems, const std::string& store_database,
    const std::optional<std::string>& store_problem);

// A cluster is synced once at least one watch was started and every started watch has listed.
bool WatchesSynced(std::size_t started, std::size_t listed);

}  // namespace fleetwave::engine
