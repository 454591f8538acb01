// Everything the daemon reads from disk, as values: fleetwave.yaml, the clusters of its
// kubeconfigs, and each ApplicationSet file. The binary loads them (the same read-and-validate
// chain `fleetwave validate` runs) and the coordinator merges a load into the state in force:
// a part that failed keeps its last good version (product §2).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster-clients/kubeconfig.h"
#include "engine/appset/appset.h"
#include "engine/appset/generate.h"
#include "engine/config.h"
#include "engine/reload_plan.h"

namespace fleetwave::actors {

using AppSetFile = engine::AppSetFile;  // engine/reload_plan.h: what PlanReload reads

struct DaemonInputs {
  std::string config_path;
  // fleetwave.yaml and its kubeconfigs. On errors, the coordinator keeps the previous ones.
  std::vector<std::string> config_errors;
  engine::Config config;
  std::vector<engine::ClusterInfo> clusters;            // contexts with the config's labels
  std::vector<clients::ClusterConfig> cluster_configs;  // what cluster actors connect with
  std::vector<std::string> warnings;                    // said once, not problems
  // The ApplicationSet directory. Unreadable: nothing of it changes (and nothing is deleted).
  std::optional<std::string> directory_error;
  std::map<std::string, AppSetFile> files;  // path -> what it holds
  // The load itself threw (config_errors says what): counted as internal, not as a bad file.
  bool load_failed = false;
};

}  // namespace fleetwave::actors
