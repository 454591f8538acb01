// One snapshot per (repoURL, targetRevision) per appset reconcile (product rule: every app of
// a set sees the same commit). Create one ResolveOnce at the start of a reconcile, resolve
// every app's source through it, and drop it at the end; the next reconcile makes a new one
// and so sees the repository's new commits.
//
// Thread-safety: Resolve may be called from several threads at once. Concurrent callers for
// the same key wait for the one resolution in flight (the underlying Source is asked once per
// key); different keys resolve in parallel. Errors are memoised too, so one bad revision is
// reported identically to every app that names it. `source` must outlive this object.
//
// It reads each path of a snapshot once, too (ReadPath): the apps a generator makes mostly
// render the same path of the same commit (a list or cluster generator over one template), and
// reading and parsing it again per app was the largest part of a gather's CPU (the N=1,000
// rollout's profile in docs/benchmarks.md: 8.5 % of the daemon's samples).
#pragma once

#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "sources/source.h"

namespace fleetwave::sources {

class ResolveOnce {
 public:
  explicit ResolveOnce(Source& source) : source_(source) {}

  // "" and "HEAD" are the same key: both mean the repository's HEAD.
  Resolution Resolve(const std::string& repo_url, const std::string& revision);

  // sources::ReadPath(source, snapshot, path, {}) once per (repository, commit, path): every
  // caller with the same key gets the same result, errors included. Same threading as Resolve.
  std::shared_ptr<const ReadResult> ReadPath(const Snapshot& snapshot, const std::string& path);

  // How many distinct keys were resolved (for tests and the reconcile's log line).
  size_t size() const;

  // Each key resolved so far, with the commit (or directory content hash) it resolved to; none
  // when any resolve failed. Resolving the same keys later and finding the same commits means
  // nothing read through this object can have changed. Call once the resolves have returned.
  using Commits = std::map<std::pair<std::string, std::string>, std::string>;
  std::optional<Commits> ResolvedCommits() const;

  // True when a resolve failed with a transient error (the remote unreachable, a timeout; not
  // an unknown revision, which a push may fix any moment): the caller polls less often until
  // one succeeds (engine/poll_schedule.h). Call once the resolves have returned.
  bool AnyTransientFailure() const;

 private:
  Source& source_;
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, std::shared_future<Resolution>> cache_;
  // (repo_url, sha, is_git, path) -> the read.
  std::map<std::tuple<std::string, std::string, bool, std::string>,
           std::shared_future<std::shared_ptr<const ReadResult>>>
      reads_;
};

}  // namespace fleetwave::sources
