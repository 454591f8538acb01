#include "engine/daemon_status.h"

namespace fleetwave::engine {

DaemonReadiness ReadinessOf(bool ready, const std::string& reason,
                            const std::optional<std::string>& store_problem) {
  if (store_problem) return {false, "the state store cannot be used: " + *store_problem};
  return {ready, ready ? std::string() : reason};
}

std::map<std::string, std::optional<std::string>> PublishedFileStatuses(
    const std::map<std::string, std::optional<std::string>>& files,
    const std::map<std::string, std::string>& record_problems, const std::string& store_database,
    const std::optional<std::string>& store_problem) {
  std::map<std::string, std::optional<std::string>> out = files;
  for (const auto& [where, error] : record_problems) out[where] = error;
  if (store_problem) out[store_database] = store_problem;
  return out;
}

bool WatchesSynced(std::size_t started, std::size_t listed) {
  return started > 0 && listed == started;
}

}  // namespace fleetwave::engine
