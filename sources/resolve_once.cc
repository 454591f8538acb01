#include "sources/resolve_once.h"

#include "sources/kustomize.h"

namespace fleetwave::sources {

Resolution ResolveOnce::Resolve(const std::string& repo_url, const std::string& revision) {
  const auto key = std::make_pair(repo_url, revision.empty() ? std::string("HEAD") : revision);
  std::promise<Resolution> promise;
  std::shared_future<Resolution> pending;
  bool mine = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = cache_.find(key);
    if (it != cache_.end()) {
      pending = it->second;
    } else {
      pending = promise.get_future().share();
      cache_.emplace(key, pending);
      mine = true;
    }
  }
  // Waiting happens outside the lock, so other keys are not held up by this one.
  if (!mine) return pending.get();
  // Source calls return errors as values and do not throw, so the promise is always set.
  promise.set_value(source_.Resolve(repo_url, revision));
  return pending.get();
}

std::shared_ptr<const ReadResult> ResolveOnce::ReadPath(const Snapshot& snapshot,
                                                        const std::string& path) {
  auto key = std::make_tuple(snapshot.repo_url, snapshot.sha, snapshot.is_git, path);
  std::promise<std::shared_ptr<const ReadResult>> promise;
  std::shared_future<std::shared_ptr<const ReadResult>> pending;
  bool mine = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = reads_.find(key);
    if (it != reads_.end()) {
      pending = it->second;
    } else {
      pending = promise.get_future().share();
      reads_.emplace(std::move(key), pending);
      mine = true;
    }
  }
  if (!mine) return pending.get();
  // A read that throws (kubectl kustomize's plumbing) reaches every caller of the key, as the
  // one read would have thrown at each of them; none waits forever.
  try {
    promise.set_value(
        std::make_shared<const ReadResult>(sources::ReadPath(source_, snapshot, path, {})));
  } catch (...) {
    promise.set_exception(std::current_exception());
  }
  return pending.get();
}

bool ResolveOnce::AnyTransientFailure() const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [key, pending] : cache_) {
    const Resolution& r = pending.get();
    if (!r.ok() && r.error && r.error->kind == engine::ErrorKind::kTransient) return true;
  }
  return false;
}

size_t ResolveOnce::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cache_.size();
}

std::optional<ResolveOnce::Commits> ResolveOnce::ResolvedCommits() const {
  std::lock_guard<std::mutex> lock(mu_);
  Commits out;
  for (const auto& [key, pending] : cache_) {
    const Resolution& r = pending.get();
    if (!r.ok()) return std::nullopt;
    out.emplace(key, r.snapshot->sha);
  }
  return out;
}

}  // namespace fleetwave::sources
