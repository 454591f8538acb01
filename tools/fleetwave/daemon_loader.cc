#include "tools/fleetwave/daemon_loader.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "cluster-clients/kubeconfig.h"
#include "engine/validation.h"
#include "tools/fleetwave/input.h"
#include "tools/fleetwave/loaders.h"

namespace fleetwave::cli {
namespace {

namespace fs = std::filesystem;

bool IsManifestFile(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

// Relative paths in fleetwave.yaml are relative to the file's directory.
std::string Resolve(const std::string& path, const std::string& config_path) {
  if (path.empty() || path[0] == '/') return path;
  return (fs::path(config_path).parent_path() / path).lexically_normal().string();
}

actors::AppSetFile LoadAppSetFile(const std::string& path,
                                  const std::vector<engine::ClusterInfo>& clusters) {
  actors::AppSetFile out;
  engine::LoadedDocuments docs = ReadDocuments(path);
  for (const auto& issue : docs.issues) out.errors.push_back(engine::FormatIssue(issue));
  if (!out.errors.empty()) return out;
  engine::ValidationInputs inputs;
  inputs.generate_against = &clusters;
  engine::ValidatedDocuments validated = engine::ValidateDocuments(docs.documents, path, inputs);
  for (const auto& issue : validated.issues) out.errors.push_back(engine::FormatIssue(issue));
  if (validated.config) {
    out.errors.push_back(path +
                         ": a fleetwave configuration does not belong in the "
                         "ApplicationSet directory");
  }
  if (out.errors.empty()) out.appsets = std::move(validated.appsets);
  return out;
}

}  // namespace

actors::DaemonInputs LoadDaemonInputs(const std::string& config_path) {
  actors::DaemonInputs out;
  out.config_path = config_path;
  LoadedConfig loaded = LoadConfigFile(config_path);
  for (const auto& issue : loaded.issues) out.config_errors.push_back(engine::FormatIssue(issue));
  out.warnings = loaded.warnings;
  out.config = loaded.config;
  out.clusters = loaded.clusters;
  if (out.config_errors.empty()) {
    clients::KubeconfigSet set = clients::LoadKubeconfigs(KubeconfigPaths(out.config, config_path));
    for (const auto& issue : set.errors) out.config_errors.push_back(engine::FormatIssue(issue));
    out.cluster_configs = std::move(set.clusters);
  }
  out.config.application_sets = Resolve(out.config.application_sets, config_path);

  const std::string dir = out.config.application_sets;
  std::error_code ec;
  std::vector<std::string> paths;
  fs::directory_iterator it(dir, ec);
  if (ec) {
    out.directory_error = dir + ": " + ec.message();
    return out;
  }
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) {
      out.directory_error = dir + ": " + ec.message();
      return out;
    }
    std::error_code type_ec;
    if (it->is_regular_file(type_ec) && IsManifestFile(it->path())) {
      paths.push_back(it->path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  for (const auto& path : paths) out.files[path] = LoadAppSetFile(path, out.clusters);
  return out;
}

}  // namespace fleetwave::cli
