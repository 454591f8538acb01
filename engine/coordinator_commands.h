// What the coordinator answers an operator's command itself, before any set's actor sees it
// (the rest is engine/operator_command.h, answered by the set's actor). Pinned by
// tests/engine/core/coordinator_commands_test.cc.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/operator_command.h"

namespace fleetwave::engine {

// A command `what` for set `appset` is refused while the daemon stops (unavailable: try again
// on the next instance) or when no set of that name runs (not found); nullopt: the set's actor
// answers it.
std::optional<CommandAnswer> RefuseAtCoordinator(bool stopping, bool set_runs,
                                                 const std::string& what,
                                                 const std::string& appset);

// An operator's deletion of set `appset` is not refused for the daemon stopping: whether it can
// be carried out is the deletion actor's answer (DecideExpedite), which also holds while it
// stops; it is refused here only when no set of that name runs. nullopt: passed on.
std::optional<CommandAnswer> RefuseSetDeletionAtCoordinator(bool stopping, bool set_runs,
                                                            const std::string& what,
                                                            const std::string& appset);

// An internal error (an exception) in a coordinator's step `what` is shown to the operator as
// one problem of the config file `config_path` and logged the same: its text is cut to
// kInternalErrorExcerpt characters, so an exception carrying a whole document (or a secret
// deep in one) cannot flood the API or the log.
inline constexpr std::size_t kInternalErrorExcerpt = 200;
std::string InternalErrorLine(const std::string& config_path, const std::string& what,
                              const std::string& error);

// What a refresh does besides reconciling: the line logged and the answer given.
struct RefreshOutcome {
  std::string line;
  CommandAnswer answer;
};

// An operator's refresh of every set (`sets` of them), requested by `caller`.
RefreshOutcome RefreshEveryOutcome(std::size_t sets, const std::string& caller);

// A push webhook to `ref` of `repo_urls` (the first one named, its credentials redacted) that
// refreshed the sets `refreshed`, in order; none refreshed is still accepted.
RefreshOutcome WebhookRefreshOutcome(const std::vector<std::string>& repo_urls,
                                     const std::string& ref, const std::string& caller,
                                     const std::vector<std::string>& refreshed);

}  // namespace fleetwave::engine
