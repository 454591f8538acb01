// Loading the user's files for the CLI: an ApplicationSet file, a fleetwave.yaml and the
// kubeconfigs it names. Reading happens here; decoding and checking is the engine's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/appset.h"
#include "engine/config.h"
#include "engine/generate.h"
#include "engine/issue.h"

namespace fleetwave::cli {

struct LoadedAppSet {
  std::optional<engine::ApplicationSet> appset;  // set only when there were no issues
  engine::Issues issues;
};

// Reads and decodes a file holding exactly one ApplicationSet ("-" = standard input).
LoadedAppSet LoadApplicationSetFile(const std::string& path);

struct LoadedConfig {
  engine::Config config;
  std::vector<engine::ClusterInfo> clusters;  // kubeconfig contexts with the config's labels
  engine::Issues issues;
};

// Reads fleetwave.yaml and every kubeconfig it names (relative paths are relative to the
// config file's directory).
LoadedConfig LoadConfigFile(const std::string& path);

// Prints each issue on its own line.
void PrintIssues(const engine::Issues& issues, std::ostream& err);

}  // namespace fleetwave::cli
