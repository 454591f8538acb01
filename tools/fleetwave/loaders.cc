#include "tools/fleetwave/loaders.h"

#include <filesystem>
#include <optional>
#include <ostream>

#include "engine/yaml_json.h"
#include "tools/fleetwave/input.h"

namespace fleetwave::cli {
namespace {

// Reads and parses a file; on failure adds the problem to `issues` and returns nullopt.
std::optional<engine::LoadedDocuments> ReadDocuments(const std::string& path,
                                                     engine::Issues& issues) {
  std::string text, error;
  if (!ReadInput(path, text, error)) {
    issues.push_back({"", {}, "", error});
    return std::nullopt;
  }
  engine::LoadedDocuments docs = engine::LoadYamlDocuments(text, path);
  if (!docs.issues.empty()) {
    issues.insert(issues.end(), docs.issues.begin(), docs.issues.end());
    return std::nullopt;
  }
  return docs;
}

}  // namespace

LoadedAppSet LoadApplicationSetFile(const std::string& path) {
  LoadedAppSet out;
  std::optional<engine::LoadedDocuments> docs = ReadDocuments(path, out.issues);
  if (!docs) return out;
  if (docs->documents.size() != 1) {
    out.issues.push_back({path,
                          {},
                          "",
                          "expected exactly one ApplicationSet document, found " +
                              std::to_string(docs->documents.size())});
    return out;
  }
  engine::DecodedApplicationSet decoded = engine::DecodeApplicationSet(docs->documents[0], path);
  out.issues = std::move(decoded.issues);
  if (out.issues.empty()) out.appset = std::move(decoded.appset);
  return out;
}

LoadedConfig LoadConfigFile(const std::string& path) {
  LoadedConfig out;
  std::optional<engine::LoadedDocuments> docs = ReadDocuments(path, out.issues);
  if (!docs) return out;
  engine::DecodedConfig decoded =
      engine::DecodeConfig(docs->documents.empty() ? YAML::Node() : docs->documents[0], path);
  out.config = decoded.config;
  out.issues = std::move(decoded.issues);
  const std::filesystem::path base = std::filesystem::path(path).parent_path();
  std::vector<engine::ClusterInfo> clusters;
  for (const std::string& kc : out.config.kubeconfig) {
    std::filesystem::path p(kc);
    if (p.is_relative()) p = base / p;
    std::string kc_text, error;
    if (!ReadInput(p.string(), kc_text, error)) {
      out.issues.push_back({path, {}, "kubeconfig", "cannot read kubeconfig " + error});
      continue;
    }
    engine::LoadedDocuments kdocs = engine::LoadYamlDocuments(kc_text, p.string());
    if (!kdocs.issues.empty() || kdocs.documents.size() != 1) {
      for (auto& i : kdocs.issues) out.issues.push_back(i);
      if (kdocs.issues.empty())
        out.issues.push_back({p.string(), {}, "", "expected one kubeconfig document"});
      continue;
    }
    engine::KubeconfigClusters kcs = engine::ClustersFromKubeconfig(kdocs.documents[0], p.string());
    for (auto& i : kcs.issues) out.issues.push_back(i);
    for (auto& c : kcs.clusters) {
      bool duplicate = false;
      for (const auto& existing : clusters) duplicate |= existing.name == c.name;
      // As kubectl merges KUBECONFIG lists: the first file to define a context wins.
      if (!duplicate) clusters.push_back(std::move(c));
    }
  }
  out.clusters = engine::LabelClusters(std::move(clusters), out.config, path, out.issues);
  return out;
}

void PrintIssues(const engine::Issues& issues, std::ostream& err) {
  for (const auto& i : issues) err << engine::FormatIssue(i) << "\n";
}

}  // namespace fleetwave::cli
