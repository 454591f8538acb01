// `fleetwave doctor [--config F | --kubeconfig F] [-o json]`: the first thing a new user runs.
// Checks every cluster of the kubeconfig concurrently and prints one row per cluster; with
// --config also every remote repository the ApplicationSets name (one ref listing each:
// reachable, authenticated, revision resolvable; sources/git_mirror.h CheckRemote), one row per
// repository and revision. Exits 1 when any cluster or repository has a problem (or a context
// could not be loaded), 2 on usage errors.
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <set>

#include <nlohmann/json.hpp>

#include "cluster-clients/kubeconfig.h"
#include "engine/repo_url.h"
#include "sources/git_mirror.h"
#include "tools/fleetwave/args.h"
#include "tools/fleetwave/commands.h"
#include "tools/fleetwave/daemon_loader.h"
#include "tools/fleetwave/doctor_check.h"
#include "tools/fleetwave/loaders.h"

namespace fleetwave::cli {
namespace {

struct RepoReport {
  std::string repo;  // as the sets write it (never holding a password: refused below)
  std::string revision;
  sources::RemoteCheck check;
};

// Every remote (repoURL, targetRevision) the sets of `dir` name: template sources and git
// generators, a git generator's templated repoURL rendered with a matrix's list parameters;
// other templated ones are known only when generating and are not listed.
std::set<std::pair<std::string, std::string>> RemoteRepositoriesOf(const std::string& dir) {
  std::set<std::pair<std::string, std::string>> out;
  std::error_code ec;
  std::vector<std::string> files;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::string ext = it->path().extension().string();
    if (name.empty() || name[0] == '.' || (ext != ".yaml" && ext != ".yml" && ext != ".json")) {
      continue;
    }
    files.push_back(it->path().string());
  }
  auto add = [&](const std::string& url, const std::string& revision) {
    if (url.find("{{") == std::string::npos && revision.find("{{") == std::string::npos &&
        engine::ParseRepoUrl(url)) {
      out.insert({url, revision});
    }
  };
  auto add_source = [&](const engine::Json& source) {
    if (!source.is_object() || !source.contains("repoURL") || !source["repoURL"].is_string()) {
      return;
    }
    const auto rev = source.find("targetRevision");
    add(source["repoURL"].get<std::string>(),
        rev != source.end() && rev->is_string() ? rev->get<std::string>() : "");
  };
  for (const std::string& file : files) {
    const LoadedAppSet loaded = LoadApplicationSetFile(file);
    if (!loaded.appset) continue;  // `validate` reports the file
    for (const auto& r : engine::GitRequestsOf(*loaded.appset)) add(r.repo_url, r.revision);
    // A templated one rendered from parameters known without reading a repository (a list
    // as the matrix's first child); one rendered from a repository's content is not listed.
    if (engine::GitRequestsNeedParameters(*loaded.appset)) {
      for (const auto& r : engine::GitRequestsFor(*loaded.appset, nullptr, {})) {
        add(r.repo_url, r.revision);
      }
    }
    const engine::Json& tmpl = loaded.appset->template_;
    if (!tmpl.is_object() || !tmpl.contains("spec") || !tmpl["spec"].is_object()) continue;
    const engine::Json& spec = tmpl["spec"];
    if (spec.contains("source")) add_source(spec["source"]);
    if (spec.contains("sources") && spec["sources"].is_array()) {
      for (const auto& s : spec["sources"]) add_source(s);
    }
  }
  return out;
}

}  // namespace

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
  std::vector<RepoReport> repos;
  if (auto config = args->Get("--config")) {
    // The kubeconfigs are loaded once, below, by the same loader `validate` uses.
    LoadedConfig loaded = LoadConfigFile(*config, /*with_clusters=*/false);
    PrintIssues(loaded.issues, err);
    config_problem = !loaded.issues.empty();
    paths = KubeconfigPaths(loaded.config, *config);
    options.kinds = loaded.config.workload_kinds;
    const std::string sets_dir =
        loaded.config.application_sets.empty() || loaded.config.application_sets[0] == '/'
            ? loaded.config.application_sets
            : (std::filesystem::path(*config).parent_path() / loaded.config.application_sets)
                  .lexically_normal()
                  .string();
    const auto credentials = ResolvedRepositories(loaded.config, *config);
    for (const auto& [url, revision] : RemoteRepositoriesOf(sets_dir)) {
      repos.push_back(
          {engine::RedactUrl(url), revision, sources::CheckRemote(url, revision, credentials)});
    }
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
  for (const auto& r : repos) any_problem |= !r.check.ok;

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
    // Repositories follow the clusters as rows of their own kind (a "repository" key).
    for (const auto& r : repos) {
      nlohmann::ordered_json row = {{"repository", r.repo},
                                    {"revision", r.revision.empty() ? "HEAD" : r.revision},
                                    {"ok", r.check.ok}};
      row["commit"] =
          r.check.sha.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.check.sha);
      row["problem"] = r.check.problem.empty() ? nlohmann::ordered_json()
                                               : nlohmann::ordered_json(r.check.problem);
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
    if (!repos.empty()) {
      std::size_t repo_width = 10;
      for (const auto& r : repos) {
        repo_width =
            std::max(repo_width, r.repo.size() + 1 + (r.revision.empty() ? 4 : r.revision.size()));
      }
      out << "\n"
          << std::left << std::setw(static_cast<int>(repo_width) + 2) << "REPOSITORY"
          << std::setw(5) << "OK" << std::setw(14) << "COMMIT"
          << "PROBLEM\n";
      for (const auto& r : repos) {
        out << std::left << std::setw(static_cast<int>(repo_width) + 2)
            << r.repo + "@" + (r.revision.empty() ? "HEAD" : r.revision) << std::setw(5)
            << (r.check.ok ? "yes" : "no") << std::setw(14)
            << (r.check.sha.empty() ? std::string("-") : r.check.sha.substr(0, 12))
            << r.check.problem << "\n";
      }
    }
  }
  return any_problem ? 1 : 0;
}

}  // namespace fleetwave::cli
