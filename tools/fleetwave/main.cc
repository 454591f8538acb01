// fleetwave: one binary, one subcommand per job.
#include <cstddef>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "tools/fleetwave/commands.h"

namespace {

struct Command {
  const char* name;
  int (*run)(const fleetwave::cli::Argv&, std::ostream&, std::ostream&);
  const char* summary;
};

constexpr Command kCommands[] = {
    {"run", fleetwave::cli::RunDaemon, "the daemon: roll ApplicationSets out across clusters"},
    {"validate", fleetwave::cli::RunValidate, "validate ApplicationSet and config files"},
    {"generate", fleetwave::cli::RunGenerate, "print the Applications a set generates"},
    {"render", fleetwave::cli::RunRender, "print the objects an app would apply"},
    {"plan", fleetwave::cli::RunPlan, "offline RollingSync planner"},
    {"progress", fleetwave::cli::RunProgress, "offline progress-deadline calculator"},
    {"health", fleetwave::cli::RunHealth, "health of any Kubernetes object"},
    {"doctor", fleetwave::cli::RunDoctor, "check every cluster's connection and permissions"},
    {"get", fleetwave::cli::RunGet, "show appsets, apps, clusters or workloads of the daemon"},
    {"sync", fleetwave::cli::RunSync, "sync an app now (optionally at a revision)"},
    {"skip", fleetwave::cli::RunSkip, "let a rollout pass an app (with a reason)"},
    {"pause", fleetwave::cli::RunPause, "pause an ApplicationSet's rollout"},
    {"resume", fleetwave::cli::RunResume, "resume a paused or halted rollout"},
    {"abort", fleetwave::cli::RunAbort, "halt a rollout now and hold its revision"},
    {"rollback", fleetwave::cli::RunRollback,
     "return a rollout's apps to earlier revisions and hold its revision"},
    {"delete", fleetwave::cli::RunDelete, "delete an ApplicationSet pending deletion now"},
    {"refresh", fleetwave::cli::RunRefresh, "reconcile every ApplicationSet now"},
    {"migrate-state", fleetwave::cli::RunMigrateState, "copy the state into etcd"},
};

// The summaries' column: past the longest name ("migrate-state").
constexpr std::size_t kColumn = 15;

int Usage(std::ostream& os, int code) {
  os << "usage: fleetwave COMMAND [ARGS]\n\ncommands:\n";
  for (const auto& c : kCommands)
    os << "  " << c.name << std::string(kColumn - std::strlen(c.name), ' ') << c.summary << "\n";
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage(std::cerr, 2);
  const std::string name = argv[1];
  if (name == "-h" || name == "--help" || name == "help") return Usage(std::cout, 0);
  for (const auto& c : kCommands) {
    if (name == c.name)
      return c.run(fleetwave::cli::Argv(argv + 2, argv + argc), std::cout, std::cerr);
  }
  std::cerr << "fleetwave: unknown command \"" << name << "\"\n";
  return Usage(std::cerr, 2);
}
