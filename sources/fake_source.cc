#include "sources/fake_source.h"

#include <memory>

namespace fleetwave::sources {

void FakeSource::SetRevision(const std::string& repo_url, const std::string& revision,
                             const std::string& sha) {
  std::lock_guard<std::mutex> lock(mu_);
  revisions_[{repo_url, revision}] = sha;
}

void FakeSource::SetFiles(const std::string& repo_url, const std::string& sha,
                          std::map<std::string, std::string> files) {
  std::lock_guard<std::mutex> lock(mu_);
  files_[{repo_url, sha}] = std::move(files);
}

void FakeSource::SetFetchError(const std::string& repo_url, std::optional<engine::Error> error) {
  std::lock_guard<std::mutex> lock(mu_);
  if (error) {
    fetch_errors_[repo_url] = *error;
  } else {
    fetch_errors_.erase(repo_url);
  }
}

std::optional<engine::Error> FakeSource::Fetch(const std::string& repo_url) {
  std::lock_guard<std::mutex> lock(mu_);
  calls_.push_back("fetch " + repo_url);
  auto it = fetch_errors_.find(repo_url);
  if (it == fetch_errors_.end()) return std::nullopt;
  return it->second;
}

Resolution FakeSource::Resolve(const std::string& repo_url, const std::string& revision) {
  std::lock_guard<std::mutex> lock(mu_);
  calls_.push_back("resolve " + repo_url + " " + revision);
  Resolution out;
  // A remote is synced before it is resolved (Source::Resolve): one that cannot be fetched
  // cannot be resolved.
  if (auto failed = fetch_errors_.find(repo_url); failed != fetch_errors_.end()) {
    out.error = failed->second;
    return out;
  }
  auto it = revisions_.find({repo_url, revision.empty() ? std::string("HEAD") : revision});
  if (it == revisions_.end()) {
    const std::string spec = revision.empty() ? "HEAD" : revision;
    out.error =
        engine::Error{engine::ErrorKind::kNotFound, repo_url, "unknown revision \"" + spec + "\""};
    return out;
  }
  Snapshot snapshot;
  snapshot.repo_url = repo_url;
  snapshot.revision = revision;
  snapshot.sha = it->second;
  // The commit's files and directories, for the git generators (ReadGitTree).
  if (auto files = files_.find({repo_url, it->second}); files != files_.end()) {
    auto content = std::make_shared<DirectoryContent>();
    for (const auto& [file, text] : files->second) {
      if (IsManifestName(file.substr(file.rfind('/') + 1))) content->files[file] = text;
      for (size_t slash = file.find('/'); slash != std::string::npos;
           slash = file.find('/', slash + 1)) {
        content->directories.insert(file.substr(0, slash));
      }
    }
    snapshot.directory = std::move(content);
  }
  out.snapshot = std::move(snapshot);
  return out;
}

ReadResult FakeSource::Read(const Snapshot& snapshot, const std::string& raw_path) {
  std::lock_guard<std::mutex> lock(mu_);
  calls_.push_back("read " + snapshot.repo_url + "@" + snapshot.sha + ":" + raw_path);
  ReadResult out;
  const std::optional<std::string> path = NormalizePath(raw_path);
  auto it = files_.find({snapshot.repo_url, snapshot.sha});
  if (!path || it == files_.end()) {
    out.errors.push_back(ErrorAt(engine::ErrorKind::kNotFound, snapshot, raw_path, {},
                                 path ? "path not found" : "path leaves the repository"));
    return out;
  }
  const std::string prefix = path->empty() ? "" : *path + "/";
  bool exists = path->empty();
  for (const auto& [file, text] : it->second) {
    if (file.compare(0, prefix.size(), prefix) != 0) continue;
    exists = true;
    const std::string name = file.substr(prefix.size());
    if (name.find('/') != std::string::npos || !IsManifestName(name)) continue;
    ParseManifestFile(snapshot, file, text, out);
  }
  if (!exists) {
    out.errors.push_back(
        ErrorAt(engine::ErrorKind::kNotFound, snapshot, *path, {}, "path not found"));
  }
  return out;
}

std::vector<std::string> FakeSource::calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return calls_;
}

}  // namespace fleetwave::sources
