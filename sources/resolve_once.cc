#include "sources/resolve_once.h"

#include "sources/kustomize.h"

namespace fleetwave::sources {
namespace {

// The value for `key` in `cache`, made by `make()` once: the first caller makes it outside the
// lock (other keys are not held up), later callers of the key wait for that one. What `make`
// throws reaches every caller of the key, as one call would have thrown at each of them; none
// waits forever.
template <typename Map, typename Key, typename Make>
auto Once(std::mutex& mu, Map& cache, Key key, Make make) {
  using Value = decltype(make());
  std::promise<Value> promise;
  std::shared_future<Value> pending;
  bool mine = false;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(key);
    if (it != cache.end()) {
      pending = it->second;
    } else {
      pending = promise.get_future().share();
      cache.emplace(std::move(key), pending);
      mine = true;
    }
  }
  if (mine) {
    try {
      promise.set_value(make());
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
  }
  return pending.get();
}

}  // namespace

Resolution ResolveOnce::Resolve(const std::string& repo_url, const std::string& revision) {
  return Once(mu_, cache_, std::make_pair(repo_url, revision.empty() ? "HEAD" : revision),
              [&] { return source_.Resolve(repo_url, revision); });
}

std::shared_ptr<const ReadResult> ResolveOnce::ReadPath(const Snapshot& snapshot,
                                                        const std::string& path) {
  return Once(
      mu_, reads_, std::make_tuple(snapshot.repo_url, snapshot.sha, snapshot.is_git, path), [&] {
        return std::make_shared<const ReadResult>(sources::ReadPath(source_, snapshot, path, {}));
      });
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
