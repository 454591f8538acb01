#include "sources/git_source.h"

#include <git2.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <mutex>
#include <utility>

#include "sources/directory_source.h"
#include "sources/git_handles.h"

namespace fleetwave::sources {
namespace {

using namespace git;  // the shared libgit2 handles (git_handles.h)

std::string OidHex(const git_oid* oid) {
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, oid);
  return hex;
}

// What a repoURL turned out to be on disk.
struct Opened {
  RepoPtr repo;           // set for a git repository
  std::string directory;  // set for a plain directory
  std::optional<engine::Error> error;
};

// Opens `repo_url`'s repository: at `git_dir` when given (a remote's mirror), else at the
// local path the URL names.
Opened Open(const std::string& repo_url, const std::string& git_dir = "") {
  Opened out;
  const std::optional<std::string> local = git_dir.empty() ? LocalPathOf(repo_url) : git_dir;
  if (!local) {
    out.error = engine::Error{engine::ErrorKind::kPermanent, engine::RedactUrl(repo_url),
                              "remote repositories are read by the daemon only (its state "
                              "directory holds their mirrors); use a local path or file:// URL"};
    return out;
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(*local, ec)) {
    out.error = engine::Error{
        engine::ErrorKind::kTransient, repo_url,
        "cannot open repository: " + *local +
            (std::filesystem::exists(*local, ec) ? " is not a directory" : " does not exist")};
    return out;
  }
  git_repository* repo = nullptr;
  // NO_SEARCH: repoURL names the repository itself; a subdirectory of some other repository
  // is a plain directory, not that repository.
  const int rc =
      git_repository_open_ext(&repo, local->c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr);
  if (rc == 0) {
    out.repo.reset(repo);
  } else if (rc == GIT_ENOTFOUND && !std::filesystem::exists(*local + "/.git", ec)) {
    out.directory = *local;
  } else {
    out.error = engine::Error{engine::ErrorKind::kTransient, repo_url,
                              "cannot open repository: " + LastGitError()};
  }
  return out;
}

}  // namespace

std::optional<std::string> LocalPathOf(const std::string& repo_url) {
  static const std::string kFile = "file://";
  if (repo_url.compare(0, kFile.size(), kFile) == 0) return repo_url.substr(kFile.size());
  if (repo_url.find("://") != std::string::npos) return std::nullopt;
  // scp-like "git@host:org/repo.git": a ':' before any '/' (a local path would need "./").
  const size_t colon = repo_url.find(':');
  if (colon != std::string::npos && repo_url.find('/') > colon) return std::nullopt;
  return repo_url;
}

GitSource::GitSource() : GitSource(GitSourceOptions{}) {}

GitSource::GitSource(GitSourceOptions options) {
  git::InitLibgit2Once();
  if (!options.mirror_root.empty()) {
    mirrors_ = std::make_unique<Mirrors>(options.mirror_root, std::move(options.repositories),
                                         std::move(options.on_sync));
  }
}

void GitSource::SetRepositories(std::vector<engine::RepositoryConfig> repositories) {
  if (mirrors_) mirrors_->SetRepositories(std::move(repositories));
}

MirrorCounters GitSource::Counters(const std::string& repo_url) const {
  return mirrors_ ? mirrors_->Counters(repo_url) : MirrorCounters{};
}

std::optional<engine::Error> GitSource::Fetch(const std::string& repo_url) {
  // Local repositories and directories are read afresh by every Resolve: nothing to fetch.
  if (mirrors_ && !LocalPathOf(repo_url)) return mirrors_->Sync(repo_url).error;
  Opened opened = Open(repo_url);
  return opened.error;
}

Resolution GitSource::Resolve(const std::string& repo_url, const std::string& revision) {
  Resolution out;
  std::string git_dir;
  if (mirrors_ && !LocalPathOf(repo_url)) {
    Mirrors::Synced synced = mirrors_->Sync(repo_url);
    if (synced.error) {
      out.error = synced.error;
      return out;
    }
    git_dir = synced.git_dir;
  }
  Opened opened = Open(repo_url, git_dir);
  if (opened.error) {
    out.error = opened.error;
    return out;
  }
  if (!opened.repo) return ResolveDirectory(repo_url, opened.directory, revision);

  const std::string spec = revision.empty() ? "HEAD" : revision;
  git_object* raw = nullptr;
  const int rc = git_revparse_single(&raw, opened.repo.get(), spec.c_str());
  ObjectPtr object(raw);
  if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC || rc == GIT_EUNBORNBRANCH) {
    out.error =
        engine::Error{engine::ErrorKind::kNotFound, repo_url, "unknown revision \"" + spec + "\""};
    return out;
  }
  if (rc == GIT_EAMBIGUOUS) {
    out.error = engine::Error{engine::ErrorKind::kNotFound, repo_url,
                              "ambiguous revision \"" + spec + "\" (give more digits of the SHA)"};
    return out;
  }
  if (rc != 0) {
    out.error = engine::Error{engine::ErrorKind::kTransient, repo_url,
                              "cannot resolve \"" + spec + "\": " + LastGitError()};
    return out;
  }
  git_object* peeled_raw = nullptr;
  if (git_object_peel(&peeled_raw, object.get(), GIT_OBJECT_COMMIT) != 0) {
    out.error = engine::Error{engine::ErrorKind::kNotFound, repo_url,
                              "revision \"" + spec + "\" is not a commit"};
    return out;
  }
  ObjectPtr commit(peeled_raw);
  Snapshot snapshot;
  snapshot.repo_url = repo_url;
  snapshot.revision = revision;
  snapshot.sha = OidHex(git_object_id(commit.get()));
  snapshot.is_git = true;
  snapshot.git_dir = git_dir;
  out.snapshot = std::move(snapshot);
  return out;
}

ReadResult GitSource::Read(const Snapshot& snapshot, const std::string& raw_path) {
  ReadResult out;
  const std::optional<std::string> path = NormalizePath(raw_path);
  if (!path) {
    out.errors.push_back(ErrorAt(engine::ErrorKind::kNotFound, snapshot, raw_path, {},
                                 "path leaves the repository"));
    return out;
  }
  if (!snapshot.is_git) {
    if (!snapshot.directory) {
      out.errors.push_back(engine::Error{engine::ErrorKind::kTransient, snapshot.repo_url,
                                         "snapshot has no captured content"});
      return out;
    }
    return ReadDirectory(snapshot, *path);
  }

  Opened opened = Open(snapshot.repo_url, snapshot.git_dir);
  if (opened.error || !opened.repo) {
    out.errors.push_back(opened.error.value_or(engine::Error{
        engine::ErrorKind::kTransient, snapshot.repo_url, "is no longer a git repository"}));
    return out;
  }
  git_repository* repo = opened.repo.get();
  git_oid oid;
  git_commit* commit_raw = nullptr;
  if (git_oid_fromstr(&oid, snapshot.sha.c_str()) != 0 ||
      git_commit_lookup(&commit_raw, repo, &oid) != 0) {
    out.errors.push_back(engine::Error{engine::ErrorKind::kNotFound,
                                       snapshot.repo_url + "@" + snapshot.sha, "commit not found"});
    return out;
  }
  CommitPtr commit(commit_raw);
  git_tree* root_raw = nullptr;
  if (git_commit_tree(&root_raw, commit.get()) != 0) {
    out.errors.push_back(engine::Error{engine::ErrorKind::kTransient,
                                       snapshot.repo_url + "@" + snapshot.sha, LastGitError()});
    return out;
  }
  TreePtr root(root_raw);
  TreePtr dir;
  if (path->empty()) {
    dir = std::move(root);
  } else {
    git_tree_entry* entry_raw = nullptr;
    if (git_tree_entry_bypath(&entry_raw, root.get(), path->c_str()) != 0) {
      out.errors.push_back(
          ErrorAt(engine::ErrorKind::kNotFound, snapshot, *path, {}, "path not found"));
      return out;
    }
    EntryPtr entry(entry_raw);
    git_tree* dir_raw = nullptr;
    if (git_tree_entry_type(entry.get()) != GIT_OBJECT_TREE ||
        git_tree_lookup(&dir_raw, repo, git_tree_entry_id(entry.get())) != 0) {
      out.errors.push_back(
          ErrorAt(engine::ErrorKind::kNotFound, snapshot, *path, {}, "not a directory"));
      return out;
    }
    dir.reset(dir_raw);
  }

  // Regular files only: symlinks are not followed (they could point outside the path), and
  // subdirectories are not read (a source directory is not recursive).
  std::vector<std::pair<std::string, git_oid>> files;
  const size_t count = git_tree_entrycount(dir.get());
  for (size_t i = 0; i < count; ++i) {
    const git_tree_entry* e = git_tree_entry_byindex(dir.get(), i);
    const git_filemode_t mode = git_tree_entry_filemode(e);
    if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE) continue;
    const std::string name = git_tree_entry_name(e);
    if (IsManifestName(name)) files.emplace_back(name, *git_tree_entry_id(e));
  }
  std::sort(files.begin(), files.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [name, blob_id] : files) {
    const std::string file = path->empty() ? name : *path + "/" + name;
    git_blob* blob_raw = nullptr;
    if (git_blob_lookup(&blob_raw, repo, &blob_id) != 0) {
      out.errors.push_back(ErrorAt(engine::ErrorKind::kTransient, snapshot, file, {},
                                   "cannot read: " + LastGitError()));
      continue;
    }
    BlobPtr blob(blob_raw);
    const std::string text(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                           static_cast<size_t>(git_blob_rawsize(blob.get())));
    ParseManifestFile(snapshot, file, text, out);
  }
  return out;
}

}  // namespace fleetwave::sources
