// `fleetwave doctor [--config F | --kubeconfig F] [-o json]`: the first thing a new user runs.
// Checks every cluster of the kubeconfig concurrently and prints one row per cluster; exits 1
// when any cluster has a problem (or a context could not be loaded), 2 on usage errors.
#include <cstdlib>
#include <iomanip>

#include <nlohmann/json.hpp>

#include "cluster-clients/kubeconfig.h"
#include "tools/fleetwave/args.h"
#include "tools/fleetwave/commands.h"
#include "tools/fleetwave/doctor_check.h"
#include "tools/fleetwave/loaders.h"

namespace fleetwave::cli {

int RunDoctor(const Argv& argv, std::ostream& out, std::ostream& err) {
  std::string error;
  auto args = ParseArgs(argv, {"--config", "--kubeconfig", "-o", "--output"}, {}, &error);
  if (!args) {
    err << "fleetwave doctor: " << error << "\n";
    return 2;
  }
  auto format = args->Get("-o");
  if (!format) format = args->Get("--output");
  if (!args->positional.empty() || (format && *format != "json" && *format != "wide") ||
      (args->Get("--config") && args->Get("--kubeconfig"))) {
    err << "usage: fleetwave doctor [--config F | --kubeconfig F] [-o json]\n";
    return 2;
  }

  std::vector<std::string> paths;
  DoctorOptions options;
  bool config_problem = false;
  if (auto config = args->Get("--config")) {
    // The kubeconfigs are loaded once, below, by the same loader `validate` uses.
    LoadedConfig loaded = LoadConfigFile(*config, /*with_clusters=*/false);
    PrintIssues(loaded.issues, err);
    config_problem = !loaded.issues.empty();
    paths = KubeconfigPaths(loaded.config, *config);
    options.kinds = loaded.config.workload_kinds;
  } else if (auto kc = args->Get("--kubeconfig")) {
    paths = clients::SplitKubeconfigPath(*kc);
  } else if (const char* env = std::getenv("KUBECONFIG"); env && *env) {
    paths = clients::SplitKubeconfigPath(env);
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    paths = {std::string(home) + "/.kube/config"};
  }

  clients::KubeconfigSet set = clients::LoadKubeconfigs(paths);
  for (const auto& w : set.warnings) err << "warning: " << w << "\n";
  PrintIssues(set.errors, err);
  if (set.clusters.empty()) {
    err << "fleetwave doctor: no clusters found in the kubeconfig\n";
    return 1;
  }

  const std::vector<DoctorReport> reports = CheckClusters(set.clusters, options);
  bool any_problem = config_problem || !set.errors.empty();
  for (const auto& r : reports) any_problem |= !r.ok;

  if (format && *format == "json") {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& r : reports) {
      nlohmann::ordered_json row = {{"cluster", r.cluster}, {"ok", r.ok}};
      row["version"] =
          r.version.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.version);
      row["latencyMs"] =
          r.latency_ms ? nlohmann::ordered_json(*r.latency_ms) : nlohmann::ordered_json();
      row["problem"] =
          r.problem.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.problem);
      list.push_back(row);
    }
    out << list.dump(2) << "\n";
  } else {
    std::size_t width = 7;
    for (const auto& r : reports) width = std::max(width, r.cluster.size());
    out << std::left << std::setw(static_cast<int>(width) + 2) << "CLUSTER" << std::setw(5) << "OK"
        << std::setw(22) << "VERSION" << std::setw(10) << "LATENCY"
        << "PROBLEM\n";
    for (const auto& r : reports) {
      out << std::left << std::setw(static_cast<int>(width) + 2) << r.cluster << std::setw(5)
          << (r.ok ? "yes" : "no") << std::setw(22) << (r.version.empty() ? "-" : r.version)
          << std::setw(10)
          << (r.latency_ms ? std::to_string(*r.latency_ms) + "ms" : std::string("-"))
          << (r.problem.empty() ? "" : r.problem) << "\n";
    }
  }
  return any_problem ? 1 : 0;
}

}  // namespace fleetwave::cli
