#include "tools/fleetwave/loaders.h"

#include <filesystem>
#include <optional>
#include <ostream>

#include "cluster-clients/kubeconfig.h"
#include "engine/yaml_json.h"
#include "tools/fleetwave/input.h"
#include "tools/fleetwave/zone_files.h"

namespace fleetwave::cli {

LoadedAppSet LoadApplicationSetFile(const std::string& path) {
  LoadedAppSet out;
  engine::LoadedDocuments docs = ReadDocuments(path);
  if (!docs.issues.empty()) {
    out.issues = std::move(docs.issues);
    return out;
  }
  const std::string name = InputName(path);
  if (docs.documents.size() != 1) {
    out.issues.push_back({name,
                          {},
                          "",
                          "expected exactly one ApplicationSet document, found " +
                              std::to_string(docs.documents.size())});
    return out;
  }
  engine::DecodedApplicationSet decoded = engine::DecodeApplicationSet(docs.documents[0], name);
  out.issues = std::move(decoded.issues);
  if (out.issues.empty()) out.appset = std::move(decoded.appset);
  return out;
}

std::vector<std::string> KubeconfigPaths(const engine::Config& config,
                                         const std::string& config_path) {
  // Standard input has no directory: relative paths are relative to the working directory.
  const std::filesystem::path base = config_path == "-"
                                         ? std::filesystem::path()
                                         : std::filesystem::path(config_path).parent_path();
  std::vector<std::string> paths;
  for (const std::string& kc : config.kubeconfig) {
    std::filesystem::path p(kc);
    paths.push_back(p.is_relative() ? (base / p).string() : p.string());
  }
  return paths;
}

engine::KubeconfigClusters LoadClusterValues(const std::vector<std::string>& paths,
                                             std::vector<std::string>* warnings) {
  clients::KubeconfigSet set = clients::LoadKubeconfigs(paths);
  warnings->insert(warnings->end(), set.warnings.begin(), set.warnings.end());
  return {clients::ClusterValues(set), std::move(set.errors)};
}

ValidatedFile ValidateLoaded(const std::vector<YAML::Node>& docs, const std::string& path) {
  ValidatedFile out;
  engine::ValidationInputs inputs;
  if (auto at = engine::FindFleetConfig(docs)) {
    // The kubeconfig list is part of the config: decode it first to know what to load.
    const engine::Config config = engine::DecodeConfig(docs[*at], InputName(path)).config;
    inputs.kubeconfig = LoadClusterValues(KubeconfigPaths(config, path), &out.warnings);
  }
  out.result = engine::ValidateDocuments(docs, InputName(path), inputs);
  const engine::Issues zones = ResolveZones(out.result.projects);
  out.result.issues.insert(out.result.issues.end(), zones.begin(), zones.end());
  return out;
}

LoadedConfig LoadConfigFile(const std::string& path, bool with_clusters) {
  LoadedConfig out;
  engine::LoadedDocuments docs = ReadDocuments(path);
  if (!docs.issues.empty()) {
    out.issues = std::move(docs.issues);
    return out;
  }
  std::vector<YAML::Node> config_doc;
  if (auto at = engine::FindFleetConfig(docs.documents)) {
    config_doc.push_back(docs.documents[*at]);
  } else if (!docs.documents.empty()) {
    out.issues.push_back({InputName(path),
                          {},
                          "",
                          "no fleetwave configuration in the file (a mapping without kind and "
                          "apiVersion)"});
    return out;
  }
  if (!with_clusters) {
    if (!config_doc.empty()) {
      engine::DecodedConfig decoded = engine::DecodeConfig(config_doc[0], InputName(path));
      out.config = std::move(decoded.config);
      out.issues = std::move(decoded.issues);
    }
    return out;
  }
  if (config_doc.empty()) config_doc.push_back(YAML::Node(YAML::NodeType::Map));  // every default
  ValidatedFile validated = ValidateLoaded(config_doc, path);
  if (validated.result.config) out.config = std::move(*validated.result.config);
  out.clusters = std::move(validated.result.clusters);
  out.issues = std::move(validated.result.issues);
  out.warnings = std::move(validated.warnings);
  return out;
}

void PrintIssues(const engine::Issues& issues, std::ostream& err) {
  for (const auto& i : issues) err << engine::FormatIssue(i) << "\n";
}

}  // namespace fleetwave::cli
