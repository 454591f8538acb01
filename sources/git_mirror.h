// Local bare mirrors of remote repositories: one per repository (engine::NormalizeRepoUrl),
// in <root>/<SHA-1 of the normalised URL>, which every read of that repository then opens as
// a local repository is opened. The mirror's refs/heads/*, refs/tags/* and HEAD are the
// remote's as last listed.
//
// A sync lists the remote's refs first (git_remote_ls: one round trip, no objects) and
// downloads only when a ref moved, appeared or vanished; a poll of an unchanged remote costs
// that one listing. A failed sync changes nothing on disk: the commits fetched before stay
// readable, and refs are only moved after the objects they name were downloaded.
//
// A connection that hears nothing for `stall_limit` (60 s by default) fails the sync with
// "<host> did not answer for 60 s (timed out)" (stall_timer.h: libgit2 1.5 has no timeouts of
// its own), so a hung remote never holds a blocking-pool thread for long.
//
// Mirrors no set uses any more go: every sync touches its mirror's `fleetwave-used` file, and
// at most once an hour a sync removes the mirrors under the root not touched for
// `unused_after` (7 days by default; a set polls at least every git.pollInterval, so a mirror
// that old is used by none) and not being synced now.
//
// Thread-safety: every method may be called from any thread. Syncs of one repository are
// single-flight: a caller that arrives while one is running waits for it and gets its result
// (so sets on one repository share one fetch); different repositories sync in parallel. A
// sync blocks on the network: call it from the daemon's blocking pool only.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/repo_url.h"

namespace fleetwave::sources {

// What one repository's mirror cost so far (for tests and metrics).
struct MirrorCounters {
  long long listings = 0;   // connections that listed the remote's refs
  long long downloads = 0;  // listings that went on to download objects
  long long failures = 0;   // syncs that failed
};

// Told after every sync that went to the remote (callers that joined one in flight are not
// counted again): the normalised URL and "unchanged", "fetched" or "failed". Called on the
// syncing thread; must be thread-safe.
using SyncObserver = std::function<void(const std::string& repo, const std::string& result)>;

class Mirrors {
 public:
  // `root` is created when the first mirror is; `repositories` are the credentials.
  Mirrors(std::string root, std::vector<engine::RepositoryConfig> repositories,
          SyncObserver observer = nullptr,
          std::chrono::seconds unused_after = std::chrono::hours(24 * 7),
          std::chrono::milliseconds stall_limit = std::chrono::seconds(60));

  // Replaces the credentials (fleetwave.yaml was reloaded); syncs in flight keep the old ones.
  void SetRepositories(std::vector<engine::RepositoryConfig> repositories);

  struct Synced {
    std::string git_dir;                 // the mirror, set on success
    std::optional<engine::Error> error;  // names the repository and the reason
  };
  // Brings the mirror of `repo_url` (a remote URL) up to date with its remote.
  Synced Sync(const std::string& repo_url);

  // The mirror's directory (whether or not it exists yet).
  std::string DirOf(const std::string& repo_url) const;

  MirrorCounters Counters(const std::string& repo_url) const;

  // Removes the mirrors not used for `unused_after` (Sync calls it at most once an hour);
  // returns how many went.
  int PruneUnused();

 private:
  struct Mirror {
    std::mutex mu;
    std::condition_variable done;
    bool in_flight = false;
    long long generation = 0;  // syncs finished
    Synced last;
    MirrorCounters counters;
  };
  std::shared_ptr<Mirror> Get(const std::string& key);

  const std::string root_;
  const SyncObserver observer_;
  const std::chrono::seconds unused_after_;
  const std::chrono::milliseconds stall_limit_;
  std::chrono::steady_clock::time_point last_prune_{};  // guarded by mu_
  bool pruned_once_ = false;                            // guarded by mu_
  mutable std::mutex mu_;
  std::shared_ptr<const std::vector<engine::RepositoryConfig>> repositories_;
  std::map<std::string, std::shared_ptr<Mirror>> mirrors_;
};

// What `fleetwave doctor` asks of a remote repository without a mirror: one connection that
// lists its refs (no objects are downloaded). `problem` names the reason (the same text a
// sync gives: a refused host key, failed authentication, an unreachable host), or that
// `revision` is no branch or tag of it. A full commit SHA no ref names cannot be checked without
// a fetch: ok, with `sha` empty.
struct RemoteCheck {
  bool ok = false;
  std::string sha;      // the commit `revision` names, when a ref does
  std::string problem;  // empty when ok
};
RemoteCheck CheckRemote(const std::string& repo_url, const std::string& revision,
                        const std::vector<engine::RepositoryConfig>& repositories,
                        std::chrono::milliseconds stall_limit = std::chrono::seconds(20));

}  // namespace fleetwave::sources
