// Loading the user's files for the CLI: an ApplicationSet file, a fleetwave.yaml and the
// kubeconfigs it names. Reading happens here (input.h) and kubeconfigs load through the one
// loader (cluster-clients/kubeconfig.h); decoding and checking is engine::ValidateDocuments,
// the chain the daemon runs too.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/appset/appset.h"
#include "engine/appset/generate.h"
#include "engine/config.h"
#include "engine/issue.h"
#include "engine/validation.h"

namespace fleetwave::cli {

struct LoadedAppSet {
  std::optional<engine::ApplicationSet> appset;  // set only when there were no issues
  engine::Issues issues;
};

// Reads and decodes a file holding exactly one ApplicationSet ("-" = standard input).
LoadedAppSet LoadApplicationSetFile(const std::string& path);

// The kubeconfig files a config names; relative paths are relative to the config's directory.
std::vector<std::string> KubeconfigPaths(const engine::Config& config,
                                         const std::string& config_path);

// Loads kubeconfigs as kubectl merges them and hands back the engine's plain values. The
// loader's warnings (insecure-skip-tls-verify) are appended to `*warnings`.
engine::KubeconfigClusters LoadClusterValues(const std::vector<std::string>& paths,
                                             std::vector<std::string>* warnings);

struct ValidatedFile {
  engine::ValidatedDocuments result;
  std::vector<std::string> warnings;  // not problems: said out loud, do not fail
};

// Runs engine::ValidateDocuments over already read documents of `path`, loading the
// kubeconfigs that the file's fleetwave.yaml (if any) names.
ValidatedFile ValidateLoaded(const std::vector<YAML::Node>& docs, const std::string& path);

struct LoadedConfig {
  engine::Config config;
  std::vector<engine::ClusterInfo> clusters;  // kubeconfig contexts with the config's labels
  engine::Issues issues;
  std::vector<std::string> warnings;
};

// Reads fleetwave.yaml (the first document without kind and apiVersion; an empty file is every
// default) and, when `with_clusters`, every kubeconfig it names.
LoadedConfig LoadConfigFile(const std::string& path, bool with_clusters = true);

// Prints each issue on its own line.
void PrintIssues(const engine::Issues& issues, std::ostream& err);

}  // namespace fleetwave::cli
