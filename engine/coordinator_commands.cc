#include "engine/coordinator_commands.h"

#include "engine/repo_url.h"

namespace fleetwave::engine {

std::optional<CommandAnswer> RefuseAtCoordinator(bool stopping, bool set_runs,
                                                 const std::string& what,
                                                 const std::string& appset) {
  if (stopping) {
    return CommandAnswer{CommandOutcome::kUnavailable, what + " refused: the daemon is stopping"};
  }
  if (!set_runs) {
    return CommandAnswer{CommandOutcome::kNotFound, what + " refused: no applicationset " + appset};
  }
  return std::nullopt;
}

std::optional<CommandAnswer> RefuseSetDeletionAtCoordinator(bool /*stopping*/, bool set_runs,
                                                            const std::string& what,
                                                            const std::string& appset) {
  return RefuseAtCoordinator(false, set_runs, what, appset);
}

std::string InternalErrorLine(const std::string& config_path, const std::string& what,
                              const std::string& error) {
  const std::string shown = error.size() > kInternalErrorExcerpt
                                ? error.substr(0, kInternalErrorExcerpt) + "...(cut)"
                                : error;
  return config_path + ": internal error " + what + ": " + shown +
         "; what loaded before stays in force where it could be kept";
}

RefreshOutcome RefreshEveryOutcome(std::size_t sets, const std::string& caller) {
  return {"refresh of every ApplicationSet requested by " + caller,
          {CommandOutcome::kAccepted,
           "refresh of " + std::to_string(sets) + " applicationset(s) started"}};
}

RefreshOutcome WebhookRefreshOutcome(const std::vector<std::string>& repo_urls,
                                     const std::string& ref, const std::string& caller,
                                     const std::vector<std::string>& refreshed) {
  const std::string repo = repo_urls.empty() ? "" : RedactUrl(repo_urls.front());
  std::string listed;
  for (const auto& n : refreshed) listed += (listed.empty() ? "" : ", ") + n;
  return {"webhook push to " + ref + " of " + repo + " from " + caller + ": " +
              (refreshed.empty() ? "no applicationset follows it" : "refreshing " + listed),
          {CommandOutcome::kAccepted, "refresh of " + std::to_string(refreshed.size()) +
                                          " applicationset(s) started" +
                                          (refreshed.empty() ? "" : ": " + listed)}};
}

}  // namespace fleetwave::engine
