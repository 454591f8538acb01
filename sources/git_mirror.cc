#include "sources/git_mirror.h"

#include <git2.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <utility>

#include "sources/git_handles.h"
#include "sources/git_remote_auth.h"
#include "sources/stall_timer.h"

namespace fleetwave::sources {
namespace {

using namespace git;  // the shared libgit2 handles (git_handles.h)

// The refs a mirror keeps, as the remote advertised them: branch and tag names to the object
// they name (an annotated tag's own object, not the commit it peels to).
using Refs = std::map<std::string, git_oid>;

bool Kept(const std::string& name) {
  return (name.rfind("refs/heads/", 0) == 0 || name.rfind("refs/tags/", 0) == 0) &&
         name.find("^{}") == std::string::npos;
}

Refs LocalRefs(git_repository* repo) {
  Refs out;
  git_reference_iterator* it_raw = nullptr;
  if (git_reference_iterator_new(&it_raw, repo) != 0) return out;
  git_reference* ref = nullptr;
  while (git_reference_next(&ref, it_raw) == 0) {
    ReferencePtr owned(ref);
    const std::string name = git_reference_name(ref);
    if (Kept(name) && git_reference_type(ref) == GIT_REFERENCE_DIRECT) {
      out[name] = *git_reference_target(ref);
    }
  }
  git_reference_iterator_free(it_raw);
  return out;
}

bool SameRefs(const Refs& a, const Refs& b) {
  if (a.size() != b.size()) return false;
  for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
    if (ia->first != ib->first || git_oid_cmp(&ia->second, &ib->second) != 0) return false;
  }
  return true;
}

std::string HeadTarget(git_repository* repo) {
  git_reference* head = nullptr;
  if (git_reference_lookup(&head, repo, "HEAD") != 0) return "";
  ReferencePtr owned(head);
  if (git_reference_type(head) != GIT_REFERENCE_SYMBOLIC) return "";
  return git_reference_symbolic_target(head);
}

// Moves the mirror's refs to `wanted` (whose objects are all present) and HEAD to `head`.
std::optional<std::string> UpdateRefs(git_repository* repo, const Refs& local, const Refs& wanted,
                                      const std::string& head) {
  for (const auto& [name, oid] : wanted) {
    git_reference* ref = nullptr;
    if (git_reference_create(&ref, repo, name.c_str(), &oid, 1, "fleetwave: fetch") != 0) {
      return "cannot update " + name + " in the mirror: " + LastGitError();
    }
    git_reference_free(ref);
  }
  // A branch or tag the remote no longer has goes (a vanished revision is then an error,
  // never the last commit it had); its objects stay, so older snapshots remain readable.
  for (const auto& [name, oid] : local) {
    if (wanted.count(name)) continue;
    git_reference* ref = nullptr;
    if (git_reference_lookup(&ref, repo, name.c_str()) == 0) {
      git_reference_delete(ref);
      git_reference_free(ref);
    }
  }
  if (!head.empty() && HeadTarget(repo) != head &&
      git_repository_set_head(repo, head.c_str()) != 0) {
    return "cannot point the mirror's HEAD at " + head + ": " + LastGitError();
  }
  return std::nullopt;
}

RepoPtr OpenOrCreate(const std::string& dir, const std::string& key, std::string* error) {
  git_repository* raw = nullptr;
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::path(dir) / "HEAD", ec)) {
    if (git_repository_open_bare(&raw, dir.c_str()) == 0) return RepoPtr(raw);
    *error = "cannot open the mirror " + dir + ": " + LastGitError();
    return nullptr;
  }
  std::filesystem::create_directories(dir, ec);
  if (git_repository_init(&raw, dir.c_str(), 1) != 0) {
    *error = "cannot create the mirror " + dir + ": " + LastGitError();
    return nullptr;
  }
  RepoPtr repo(raw);
  // Which repository this is, for whoever looks into the state directory.
  git_config* config = nullptr;
  if (git_repository_config(&config, repo.get()) == 0) {
    git_config_set_string(config, "fleetwave.url", key.c_str());
    git_config_free(config);
  }
  return repo;
}

}  // namespace

Mirrors::Mirrors(std::string root, std::vector<engine::RepositoryConfig> repositories,
                 SyncObserver observer, std::chrono::seconds unused_after,
                 std::chrono::milliseconds stall_limit)
    : root_(std::move(root)),
      observer_(std::move(observer)),
      unused_after_(unused_after),
      stall_limit_(stall_limit),
      repositories_(
          std::make_shared<const std::vector<engine::RepositoryConfig>>(std::move(repositories))) {
  git::InitLibgit2Once();  // a Mirrors may be the first user of libgit2 (tests, doctor)
}

void Mirrors::SetRepositories(std::vector<engine::RepositoryConfig> repositories) {
  auto fresh =
      std::make_shared<const std::vector<engine::RepositoryConfig>>(std::move(repositories));
  std::lock_guard<std::mutex> lock(mu_);
  repositories_ = std::move(fresh);
}

std::string Mirrors::DirOf(const std::string& repo_url) const {
  const std::string key = engine::NormalizeRepoUrl(repo_url);
  git_oid oid;
  git_odb_hash(&oid, key.data(), key.size(), GIT_OBJECT_BLOB);
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, &oid);
  return root_ + "/" + hex;
}

std::shared_ptr<Mirrors::Mirror> Mirrors::Get(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = mirrors_[key];
  if (!slot) slot = std::make_shared<Mirror>();
  return slot;
}

int Mirrors::PruneUnused() {
  namespace fs = std::filesystem;
  std::set<std::string> busy;  // mirrors being synced now
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [key, mirror] : mirrors_) {
      std::lock_guard<std::mutex> mirror_lock(mirror->mu);
      if (mirror->in_flight) busy.insert(DirOf(key));
    }
  }
  int removed = 0;
  std::error_code ec;
  const auto cutoff = fs::file_time_type::clock::now() - unused_after_;
  for (fs::directory_iterator it(root_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    // Only what Mirrors made: 40 hex digits holding a bare repository.
    if (name.size() != GIT_OID_HEXSZ ||
        name.find_first_not_of("0123456789abcdef") != std::string::npos ||
        !fs::exists(it->path() / "HEAD", ec) || busy.count(it->path().string())) {
      continue;
    }
    fs::path used = it->path() / "fleetwave-used";
    if (!fs::exists(used, ec)) used = it->path() / "HEAD";
    const auto when = fs::last_write_time(used, ec);
    if (ec || when >= cutoff) continue;
    std::error_code remove_ec;
    fs::remove_all(it->path(), remove_ec);
    if (!remove_ec) ++removed;
  }
  return removed;
}

MirrorCounters Mirrors::Counters(const std::string& repo_url) const {
  std::shared_ptr<Mirror> mirror;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = mirrors_.find(engine::NormalizeRepoUrl(repo_url));
    if (it == mirrors_.end()) return {};
    mirror = it->second;
  }
  std::lock_guard<std::mutex> lock(mirror->mu);
  return mirror->counters;
}

Mirrors::Synced Mirrors::Sync(const std::string& repo_url) {
  const std::optional<engine::RepoUrl> url = engine::ParseRepoUrl(repo_url);
  if (!url) {
    return {"", engine::Error{engine::ErrorKind::kPermanent, repo_url,
                              "is not a remote repository URL"}};
  }
  if (url->has_password) {
    return {"", engine::Error{engine::ErrorKind::kPermanent, engine::RedactUrl(repo_url),
                              "a password in repoURL is refused (it would show in every "
                              "message): put it in a repositories entry's passwordFile"}};
  }
  const std::string key = engine::NormalizeRepoUrl(repo_url);
  std::shared_ptr<Mirror> mirror = Get(key);
  std::unique_lock<std::mutex> lock(mirror->mu);
  if (mirror->in_flight) {
    const long long joined = mirror->generation;
    mirror->done.wait(lock, [&] { return mirror->generation != joined; });
    return mirror->last;
  }
  mirror->in_flight = true;
  lock.unlock();

  std::shared_ptr<const std::vector<engine::RepositoryConfig>> repositories;
  {
    std::lock_guard<std::mutex> config_lock(mu_);
    repositories = repositories_;
  }
  MirrorCounters cost;
  Synced out;
  const std::string dir = DirOf(repo_url);
  auto fail = [&](std::string message) {
    ++cost.failures;
    out.error = engine::Error{engine::ErrorKind::kTransient, repo_url, std::move(message)};
  };

  std::string error;
  RepoPtr repo = OpenOrCreate(dir, key, &error);
  if (repo) {
    // In use: PruneUnused keeps it (touched on failures too: a set still names it).
    std::ofstream(dir + "/fleetwave-used", std::ios::trunc) << "synced by fleetwave\n";
  }
  bool prune_due = false;
  {
    std::lock_guard<std::mutex> config_lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    if (!pruned_once_ || now - last_prune_ >= std::chrono::hours(1)) {
      pruned_once_ = true;
      last_prune_ = now;
      prune_due = true;
    }
  }
  if (prune_due) PruneUnused();
  RemoteAuth auth;
  auth.config = engine::FindRepository(*repositories, repo_url);
  auth.host = url->host;
  auth.port = url->port.empty() ? 0 : std::atoi(url->port.c_str());
  git_remote* remote_raw = nullptr;
  git_remote_callbacks callbacks = GIT_REMOTE_CALLBACKS_INIT;
  SetAuthCallbacks(callbacks, auth);
  if (!repo) {
    fail(error);
  } else if (git_remote_create_anonymous(&remote_raw, repo.get(), repo_url.c_str()) != 0) {
    fail("cannot use this URL: " + LastGitError());
  }
  RemotePtr remote(remote_raw);
  if (remote) {
    StallTimer stall(stall_limit_);  // a remote that stops answering fails the sync
    auth.stall = &stall;
    ++cost.listings;
    const git_remote_head** heads = nullptr;
    size_t count = 0;
    if (git_remote_connect(remote.get(), GIT_DIRECTION_FETCH, &callbacks, nullptr, nullptr) != 0 ||
        git_remote_ls(&heads, &count, remote.get()) != 0) {
      fail("cannot fetch: " + auth.Reason(stall_limit_));
    } else {
      Refs wanted;
      for (size_t i = 0; i < count; ++i) {
        if (Kept(heads[i]->name)) wanted[heads[i]->name] = heads[i]->oid;
      }
      std::string head;
      git_buf branch = GIT_BUF_INIT;
      if (git_remote_default_branch(&branch, remote.get()) == 0) head = branch.ptr;
      git_buf_dispose(&branch);
      const Refs local = LocalRefs(repo.get());
      if (!SameRefs(local, wanted) || (!head.empty() && HeadTarget(repo.get()) != head)) {
        git_odb* odb = nullptr;
        bool have_all = git_repository_odb(&odb, repo.get()) == 0;
        for (const auto& [name, oid] : wanted) have_all = have_all && git_odb_exists(odb, &oid);
        if (odb != nullptr) git_odb_free(odb);
        bool downloaded = true;
        if (!have_all) {
          ++cost.downloads;
          char heads_spec[] = "+refs/heads/*:refs/heads/*";
          char tags_spec[] = "+refs/tags/*:refs/tags/*";
          char* specs[] = {heads_spec, tags_spec};
          const git_strarray refspecs = {specs, 2};
          git_fetch_options options = GIT_FETCH_OPTIONS_INIT;
          options.callbacks = callbacks;
          options.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
          options.prune = GIT_FETCH_NO_PRUNE;
          if (git_remote_download(remote.get(), &refspecs, &options) != 0) {
            fail("cannot fetch: " + auth.Reason(stall_limit_));
            downloaded = false;
          }
        }
        if (downloaded) {
          if (auto problem = UpdateRefs(repo.get(), local, wanted, head)) fail(*problem);
        }
      }
      git_remote_disconnect(remote.get());
    }
  }
  if (!out.error) out.git_dir = dir;

  lock.lock();
  mirror->counters.listings += cost.listings;
  mirror->counters.downloads += cost.downloads;
  mirror->counters.failures += cost.failures;
  mirror->last = out;
  mirror->in_flight = false;
  ++mirror->generation;
  mirror->done.notify_all();
  lock.unlock();
  if (observer_) {
    observer_(key, out.error ? "failed" : cost.downloads > 0 ? "fetched" : "unchanged");
  }
  return out;
}

RemoteCheck CheckRemote(const std::string& repo_url, const std::string& revision,
                        const std::vector<engine::RepositoryConfig>& repositories,
                        std::chrono::milliseconds stall_limit) {
  git::InitLibgit2Once();
  RemoteCheck out;
  const std::optional<engine::RepoUrl> url = engine::ParseRepoUrl(repo_url);
  if (!url) {
    out.problem = "is not a remote repository URL";
    return out;
  }
  if (url->has_password) {
    out.problem = "a password in repoURL is refused: put it in a repositories entry's passwordFile";
    return out;
  }
  RemoteAuth auth;
  auth.config = engine::FindRepository(repositories, repo_url);
  auth.host = url->host;
  auth.port = url->port.empty() ? 0 : std::atoi(url->port.c_str());
  git_remote_callbacks callbacks = GIT_REMOTE_CALLBACKS_INIT;
  SetAuthCallbacks(callbacks, auth);
  git_remote* raw = nullptr;
  if (git_remote_create_detached(&raw, repo_url.c_str()) != 0) {
    out.problem = "cannot use this URL: " + LastGitError();
    return out;
  }
  RemotePtr remote(raw);
  StallTimer stall(stall_limit);
  auth.stall = &stall;
  const git_remote_head** heads = nullptr;
  size_t count = 0;
  if (git_remote_connect(remote.get(), GIT_DIRECTION_FETCH, &callbacks, nullptr, nullptr) != 0 ||
      git_remote_ls(&heads, &count, remote.get()) != 0) {
    out.problem = "cannot fetch: " + auth.Reason(stall_limit);
    return out;
  }
  const bool head = revision.empty() || revision == "HEAD";
  const bool full_sha =
      revision.size() == 40 && revision.find_first_not_of("0123456789abcdef") == std::string::npos;
  for (size_t i = 0; i < count && out.sha.empty(); ++i) {
    const std::string name = heads[i]->name;
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, &heads[i]->oid);
    if ((head && name == "HEAD") || name == "refs/heads/" + revision ||
        name == "refs/tags/" + revision + "^{}" || name == revision ||
        (full_sha && revision == hex)) {
      out.sha = hex;
    } else if (name == "refs/tags/" + revision) {
      out.sha = hex;  // a lightweight tag (an annotated one's ^{} entry, if listed, wins below)
      for (size_t j = 0; j < count; ++j) {
        if (std::string(heads[j]->name) == name + "^{}") {
          git_oid_tostr(hex, sizeof hex, &heads[j]->oid);
          out.sha = hex;
        }
      }
    }
  }
  git_remote_disconnect(remote.get());
  if (out.sha.empty() && !full_sha) {
    out.problem = "revision " + (head ? std::string("HEAD") : revision) +
                  " is no branch or tag of this repository";
    return out;
  }
  out.ok = true;
  return out;
}

}  // namespace fleetwave::sources
