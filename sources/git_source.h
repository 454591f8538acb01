// The real `Source`: git repositories read with libgit2, and plain (non-git) directories whose
// revision is a hash of their manifests' content.
//
// Repositories are read at a commit through its tree (no checkout, no working tree needed;
// bare repositories work). `repoURL` is a local path or a file:// URL. Remote URLs (https,
// ssh) will be served by the same class by fetching into a local mirror in `Fetch`; until
// then they are reported as kUnsupported.
//
// Thread-safety: a GitSource has no mutable state, so one instance may be called from any
// number of threads at once. libgit2 is initialised once per process (the constructor calls
// git_libgit2_init through std::call_once and never shuts it down); every call opens its own
// repository handle and frees it before returning, so no libgit2 handle is ever shared
// between threads. Every call blocks on disk: call it from the daemon's blocking pool only.
#pragma once

#include "sources/source.h"

namespace fleetwave::sources {

class GitSource final : public Source {
 public:
  GitSource();

  std::optional<engine::Error> Fetch(const std::string& repo_url) override;
  Resolution Resolve(const std::string& repo_url, const std::string& revision) override;
  ReadResult Read(const Snapshot& snapshot, const std::string& path) override;
};

// The local path a repoURL names: "file:///a/b" -> "/a/b", a plain path as is; nullopt for a
// remote URL (scheme://... or scp-like user@host:path).
std::optional<std::string> LocalPathOf(const std::string& repo_url);

}  // namespace fleetwave::sources
