// The real `Source`: git repositories read with libgit2, and plain (non-git) directories whose
// revision is a hash of their manifests' content.
//
// Repositories are read at a commit through its tree (no checkout, no working tree needed;
// bare repositories work). `repoURL` is a local path, a file:// URL, or a remote URL (https,
// http, ssh, scp-like user@host:path) when a mirror directory was given: a remote repository
// is fetched into its local bare mirror (git_mirror.h) by Resolve and Fetch, and every read
// opens the mirror at the resolved commit, exactly as a local repository is read.
//
// Thread-safety: one instance may be called from any number of threads at once (the mirrors
// synchronise themselves). libgit2 is initialised once per process (the constructor calls
// git_libgit2_init through std::call_once and never shuts it down); every call opens its own
// repository handle and frees it before returning, so no libgit2 handle is ever shared
// between threads. Every call blocks on disk or the network: call it from the daemon's
// blocking pool only.
#pragma once

#include <memory>
#include <vector>

#include "engine/repo_url.h"
#include "sources/git_mirror.h"
#include "sources/source.h"

namespace fleetwave::sources {

struct GitSourceOptions {
  // Where remote repositories are mirrored (the daemon's <state dir>/git). Empty: remote URLs
  // are refused, as by the CLI's offline commands.
  std::string mirror_root;
  std::vector<engine::RepositoryConfig> repositories;  // credentials (`repositories:`)
  SyncObserver on_sync;                                // metrics; may be empty
};

class GitSource final : public Source {
 public:
  GitSource();
  explicit GitSource(GitSourceOptions options);

  // The credentials of a reloaded fleetwave.yaml.
  void SetRepositories(std::vector<engine::RepositoryConfig> repositories);
  // What the mirror of `repo_url` cost so far (zero for local repositories).
  MirrorCounters Counters(const std::string& repo_url) const;

  std::optional<engine::Error> Fetch(const std::string& repo_url) override;
  Resolution Resolve(const std::string& repo_url, const std::string& revision) override;
  ReadResult Read(const Snapshot& snapshot, const std::string& path) override;

 private:
  std::unique_ptr<Mirrors> mirrors_;  // nullptr without a mirror root
};

// The local path a repoURL names: "file:///a/b" -> "/a/b", a plain path as is; nullopt for a
// remote URL (scheme://... or scp-like user@host:path).
std::optional<std::string> LocalPathOf(const std::string& repo_url);

}  // namespace fleetwave::sources
