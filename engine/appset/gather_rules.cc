#include "engine/appset/gather_rules.h"

#include "engine/sync/tracking.h"

namespace fleetwave::engine {

bool RecordsCommits(bool every_render_ok, bool generation_errors) {
  return every_render_ok && !generation_errors;
}

bool ReusesLastGeneration(bool same_spec, const std::optional<ReadCommits>& last_commits,
                          const ResolveNow& resolve_now) {
  if (!same_spec || !last_commits) return false;
  for (const auto& [key, sha] : *last_commits) {
    const std::optional<std::string> now = resolve_now(key.first, key.second);
    if (!now || *now != sha) return false;
  }
  return true;
}

Time PollOrEarlier(std::optional<Time> next_poll_at, Time now, std::chrono::seconds poll_interval,
                   std::optional<Time> engine_wake) {
  const Time poll = next_poll_at ? *next_poll_at : now + poll_interval;
  return engine_wake && *engine_wake < poll ? *engine_wake : poll;
}

bool KeepsPendingWake(std::optional<Time> pending, Time at, Time now) {
  return pending && *pending <= at && *pending > now;
}

WakeAction OnWake(std::optional<Time> next_poll_at, Time now) {
  return !next_poll_at || *next_poll_at <= now ? WakeAction::kGatherAnew
                                               : WakeAction::kDecideOnLastGather;
}

bool WatchesApp(const std::string& cluster, const ClusterKnown& known) {
  return !cluster.empty() && known(cluster);
}

std::set<std::pair<std::string, std::string>> WantedWatches(
    const std::string& appset, const std::vector<GeneratedApplication>& apps,
    const ClusterKnown& known) {
  std::set<std::pair<std::string, std::string>> wanted;
  for (const auto& app : apps) {
    if (WatchesApp(app.cluster, known))
      wanted.emplace(app.cluster, AppLabelValue({appset, app.name}));
  }
  return wanted;
}

bool DropsClusterView(const std::string& cluster, const ClusterKnown& known) {
  return !known(cluster);
}

StoreProblem StoreProblemOf(const std::string& store_error, bool value_error,
                            const std::string& records_problem) {
  if (!store_error.empty()) return {store_error, value_error};
  return {records_problem, !records_problem.empty()};
}

int NextPollFailures(int poll_failures, bool fetch_failed) {
  return fetch_failed ? poll_failures + 1 : 0;
}

bool SameInputs(const GatherChange& c) {
  return c.has_previous && c.same_generation && c.same_clusters && c.same_deletions;
}

bool WatchAgain(const GatherChange& c) {
  return !c.has_previous || !c.same_generation || !c.same_clusters;
}

StoreProblemSaying SayStoreProblem(const std::string& problem, const std::string& last_said) {
  if (!problem.empty()) {
    return problem != last_said ? StoreProblemSaying::kSay : StoreProblemSaying::kQuiet;
  }
  return last_said.empty() ? StoreProblemSaying::kQuiet : StoreProblemSaying::kCleared;
}

bool LogsDeletionProblems(const std::vector<std::string>& problems,
                          const std::vector<std::string>& last_logged) {
  return problems != last_logged;
}

}  // namespace fleetwave::engine
