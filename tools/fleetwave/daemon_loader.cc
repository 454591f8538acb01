#include "tools/fleetwave/daemon_loader.h"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <optional>
#include <system_error>

#include "cluster-clients/kubeconfig.h"
#include "engine/validation.h"
#include "tools/fleetwave/input.h"
#include "tools/fleetwave/loaders.h"
#include "tools/fleetwave/zone_files.h"

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

// An exception's text may quote input: a short excerpt only.
std::string Excerpt(const char* what) {
  std::string out(what);
  if (out.size() > 200) out = out.substr(0, 200) + "...(cut)";
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return out;
}

// What one directory entry is read from, by the directory rules: a regular file itself, a
// symlink its resolved target only when that stays inside the directory and is a regular file.
// Anything else is an error naming the entry, and is never opened.
struct EntrySource {
  std::string read_from;
  std::optional<std::string> error;
};

EntrySource SourceOf(const fs::directory_entry& entry, const fs::path& canonical_dir) {
  const std::string path = entry.path().string();
  std::error_code ec;
  const fs::file_status own = entry.symlink_status(ec);
  if (ec) return {"", path + ": " + ec.message()};
  if (fs::is_regular_file(own)) return {path, std::nullopt};
  if (!fs::is_symlink(own)) {
    return {"", path + ": not a regular file (a directory, device, fifo or socket); ignored"};
  }
  // Where the link leads is not said: it may name a file the directory's writer should not
  // learn about.
  const fs::path target = fs::canonical(entry.path(), ec);
  if (ec) return {"", path + ": a symlink that does not resolve (" + ec.message() + "); ignored"};
  const fs::path rel = target.lexically_relative(canonical_dir);
  if (rel.empty() || rel == "." || *rel.begin() == "..") {
    return {"", path +
                    ": a symlink to a file outside the ApplicationSet directory; refused (only "
                    "symlinks that stay inside the directory are read)"};
  }
  if (!fs::is_regular_file(fs::status(target, ec)) || ec) {
    return {"", path + ": a symlink to something that is not a regular file; ignored"};
  }
  return {target.string(), std::nullopt};
}

actors::AppSetFile LoadAppSetFile(const std::string& path, const std::string& read_from,
                                  const std::vector<engine::ClusterInfo>& clusters,
                                  const engine::InputLimits& limits) {
  actors::AppSetFile out;
  ReadOptions read;
  read.max_bytes = limits.max_file_bytes;
  read.limits = limits;
  read.regular_only = true;
  read.name = path;
  engine::LoadedDocuments docs = ReadDocuments(read_from, read);
  for (const auto& issue : docs.issues) out.errors.push_back(engine::FormatIssue(issue));
  if (!out.errors.empty()) return out;
  engine::ValidationInputs inputs;
  inputs.generate_against = &clusters;
  inputs.limits = limits;
  engine::ValidatedDocuments validated = engine::ValidateDocuments(docs.documents, path, inputs);
  for (const auto& issue : validated.issues) out.errors.push_back(engine::FormatIssue(issue));
  if (validated.config) {
    out.errors.push_back(path +
                         ": a fleetwave configuration does not belong in the "
                         "ApplicationSet directory");
  }
  const engine::Issues zones = ResolveZones(validated.projects);
  for (const auto& issue : zones) out.errors.push_back(engine::FormatIssue(issue));
  if (out.errors.empty()) {
    out.appsets = std::move(validated.appsets);
    out.projects = std::move(validated.projects);
  }
  return out;
}

// One file's load, whatever it throws: an exception is an error on this file only (its last
// good version stays in force), never the end of the load of every other file.
actors::AppSetFile LoadAppSetFileGuarded(const std::string& path, const std::string& read_from,
                                         const std::vector<engine::ClusterInfo>& clusters,
                                         const engine::InputLimits& limits) {
  std::string what;
  try {
    return LoadAppSetFile(path, read_from, clusters, limits);
  } catch (const std::exception& e) {
    what = Excerpt(e.what());
  } catch (...) {
    what = "unknown exception";
  }
  actors::AppSetFile failed;
  failed.errors.push_back(path + ": internal error while loading the file: " + what);
  return failed;
}

// Every AppProject of the directory goes with every set (issue 29): an app's project may be
// defined in any file. A name defined twice is an error on the later file (path order), whose
// definition is not used.
void AttachProjects(std::map<std::string, actors::AppSetFile>& files) {
  auto projects = std::make_shared<engine::AppProjects>();
  std::map<std::string, std::string> defined_in;
  for (auto& [path, file] : files) {
    for (engine::AppProject& p : file.projects) {
      auto [it, fresh] = defined_in.emplace(p.name, path);
      if (!fresh) {
        file.errors.push_back(path + ": AppProject " + p.name + " is also defined in " +
                              it->second + "; the first one is used");
        continue;
      }
      projects->projects.push_back(p);
    }
  }
  if (projects->projects.empty()) return;
  std::sort(
      projects->projects.begin(), projects->projects.end(),
      [](const engine::AppProject& a, const engine::AppProject& b) { return a.name < b.name; });
  std::shared_ptr<const engine::AppProjects> shared = std::move(projects);
  for (auto& [path, file] : files) {
    for (engine::ApplicationSet& set : file.appsets) set.projects = shared;
  }
}

void LoadConfiguration(const std::string& config_path, actors::DaemonInputs& out) {
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
}

}  // namespace

std::vector<engine::RepositoryConfig> ResolvedRepositories(const engine::Config& config,
                                                           const std::string& config_path) {
  // Files are relative to fleetwave.yaml's directory, as every other path in it.
  std::vector<engine::RepositoryConfig> out = config.repositories;
  for (engine::RepositoryConfig& r : out) {
    for (std::string* file : {&r.username_file, &r.password_file, &r.ca_file,
                              &r.ssh_private_key_file, &r.known_hosts_file}) {
      *file = Resolve(*file, config_path);
    }
  }
  return out;
}

sources::GitSourceOptions CliGitSourceOptions(const engine::Config* config,
                                              const std::string& config_path) {
  sources::GitSourceOptions options;
  if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache != nullptr && cache[0] == '/') {
    options.mirror_root = std::string(cache) + "/fleetwave/git";
  } else if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') {
    options.mirror_root = std::string(home) + "/.cache/fleetwave/git";
  }
  if (config != nullptr) options.repositories = ResolvedRepositories(*config, config_path);
  return options;
}

actors::DaemonInputs LoadDaemonInputs(const std::string& config_path) {
  actors::DaemonInputs out;
  out.config_path = config_path;
  try {
    LoadConfiguration(config_path, out);
  } catch (const std::exception& e) {
    out.config_errors.push_back(config_path +
                                ": internal error while loading: " + Excerpt(e.what()));
  } catch (...) {
    out.config_errors.push_back(config_path + ": internal error while loading");
  }
  out.config.application_sets = Resolve(out.config.application_sets, config_path);
  out.config.repositories = ResolvedRepositories(out.config, config_path);
  for (const engine::RepositoryConfig& r : out.config.repositories) {
    if (r.insecure_ignore_host_key) {
      out.warnings.push_back(config_path + ": repositories entry \"" + engine::RedactUrl(r.url) +
                             "\" has insecureIgnoreHostKey: true: the ssh host keys of its "
                             "repositories are not verified (unsafe: anyone between fleetwave "
                             "and the server can serve it manifests)");
    }
  }

  const std::string dir = out.config.application_sets;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) {
    out.directory_error = dir + ": " + ec.message();
    return out;
  }
  const fs::path canonical_dir = fs::canonical(dir, ec);
  if (ec) {
    out.directory_error = dir + ": " + ec.message();
    return out;
  }
  std::vector<std::pair<std::string, EntrySource>> entries;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) {
      out.directory_error = dir + ": " + ec.message();
      return out;
    }
    // Hidden entries (editors' lock files and swap files, a checkout's .git) are not
    // ApplicationSets; neither is a file without a manifest extension.
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.' || !IsManifestFile(it->path())) continue;
    entries.emplace_back(it->path().string(), SourceOf(*it, canonical_dir));
  }
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [path, source] : entries) {
    if (source.error) {
      out.files[path].errors.push_back(*source.error);
      continue;
    }
    out.files[path] =
        LoadAppSetFileGuarded(path, source.read_from, out.clusters, out.config.limits);
  }
  AttachProjects(out.files);
  return out;
}

}  // namespace fleetwave::cli
