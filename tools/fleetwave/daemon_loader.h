// What `fleetwave run` reads from disk on start and on every reload: fleetwave.yaml, the
// kubeconfigs it names and every ApplicationSet file of its directory, through the same
// read-and-validate chain as `fleetwave validate`. Blocking: the daemon runs it on its blocking
// pool.
#pragma once

#include <string>
#include <vector>

#include "actors/daemon_inputs.h"
#include "sources/git_source.h"

namespace fleetwave::cli {

actors::DaemonInputs LoadDaemonInputs(const std::string& config_path);

// The config's `repositories:` with their files resolved against fleetwave.yaml's directory
// (what the daemon and `fleetwave doctor` connect with).
std::vector<engine::RepositoryConfig> ResolvedRepositories(const engine::Config& config,
                                                           const std::string& config_path);

// How the CLI's offline commands (generate, render) read remote repositories: mirrors in the
// user's cache ($XDG_CACHE_HOME/fleetwave/git, else ~/.cache/fleetwave/git; none without a
// home, and remote URLs are then refused) with the --config file's repositories: entries.
sources::GitSourceOptions CliGitSourceOptions(const engine::Config* config,
                                              const std::string& config_path);

}  // namespace fleetwave::cli
