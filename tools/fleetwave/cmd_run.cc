// fleetwave run [--config F]: the daemon. Loads the inputs (failing fast only when
// fleetwave.yaml or its kubeconfigs cannot be used at all), takes the state directory's lock,
// starts the HTTP API, the CAF actor system (coordinator, cluster and appset actors), the
// client's I/O thread and the blocking pool, and then waits for signals: SIGHUP and changes
// in the ApplicationSet directory reload, SIGTERM/SIGINT stop (in-flight work gets 10 s).
// With `leaderElection:` (issue 28) a leadership thread (leadership.h) campaigns first and the
// coordinator - everything that decides, applies and deletes - runs only while this instance
// leads, one coordinator per term, every store batch fenced to that term; a standby serves
// the API's reads from the leader's committed state (shared_state_view.h) and refuses its
// mutations; its cluster actors (actors/cluster_pool.h) live across terms, watching already.
// Under systemd (fleetwave.service, Type=notify) it also speaks sd_notify (service_notify.h),
// feeds the watchdog from a heartbeat through the actor system (service_heartbeat.h) and logs
// to the journal with fields (service_log.h).
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <caf/all.hpp>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <future>
#include <iostream>
#include <mutex>
#include <ostream>
#include <random>
#include <thread>

#include "actors/atoms.h"
#include "actors/blocking_pool.h"
#include "actors/cluster_actor.h"
#include "actors/cluster_pool.h"
#include "actors/coordinator.h"
#include "actors/services.h"
#include "actors/status_board.h"
#include "api/api_server.h"
#include "api/http_server.h"
#include "api/metrics_route.h"
#include "cluster-clients/credentials.h"
#include "cluster-clients/curl_transport.h"
#include "cluster-clients/request_observer.h"
#include "engine/rollingsync/strategy_json.h"
#include "metrics/metrics.h"
#include "metrics/request_observer_adapter.h"
#include "sources/git_source.h"
#include "store/etcd_leader.h"
#include "store/etcd_store.h"
#include "store/etcd_watch.h"
#include "store/sqlite_store.h"
#include "store/state.h"
#include "tools/fleetwave/args.h"
#include "tools/fleetwave/commands.h"
#include "tools/fleetwave/daemon_loader.h"
#include "tools/fleetwave/leadership.h"
#include "tools/fleetwave/operator_commands.h"
#include "tools/fleetwave/service_heartbeat.h"
#include "tools/fleetwave/service_log.h"
#include "tools/fleetwave/service_notify.h"
#include "tools/fleetwave/shared_state_view.h"
#include "tools/fleetwave/thread_priority.h"
#include "tools/fleetwave/write_fence.h"

namespace fleetwave::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kUsage = "usage: fleetwave run [--config F] [--accept-empty-state]\n";
constexpr const char* kDefaultConfig = "/etc/fleetwave/fleetwave.yaml";
constexpr int kSchedulerThreads = 2;
// SIGTERM to exit, whatever runs (docs/guide.md; fleetwave.service's TimeoutStopSec is 20 s).
constexpr std::chrono::seconds kStopBudget{9};

std::string Resolve(const std::string& path, const std::string& config_path) {
  if (path.empty() || path[0] == '/') return path;
  return (fs::path(config_path).parent_path() / path).lexically_normal().string();
}

// "127.0.0.1:8089", "localhost:8089", "[::1]:8089": only this host can connect.
bool IsLoopbackListen(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  const std::string host = colon == std::string::npos ? listen : listen.substr(0, colon);
  return host == "localhost" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

// "sqlite://relative/state.db" is relative to the config file's directory, as every other
// path in fleetwave.yaml.
std::string ResolveStateUrl(const std::string& url, const std::string& config_path) {
  const std::string scheme = "sqlite://";
  if (url.rfind(scheme, 0) != 0) return url;
  const std::string path = url.substr(scheme.size());
  if (!path.empty() && path[0] == '/') return url;
  return scheme + fs::absolute(Resolve(path, config_path)).string();
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : "\n") + l;
  return out;
}

// Signals and ApplicationSet directory changes, both as file descriptors for one poll loop.
class Events {
 public:
  // `test_wedge`: SIGUSR1 is an event too (the SchedulerWedge test hook, service_heartbeat.h).
  explicit Events(bool test_wedge) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    if (test_wedge) sigaddset(&set, SIGUSR1);
    // Blocked before any thread starts, so every thread inherits the mask and only the
    // signalfd sees them.
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    signal(SIGPIPE, SIG_IGN);
    signal_fd_ = signalfd(-1, &set, SFD_CLOEXEC);
    inotify_fd_ = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  }
  ~Events() {
    if (signal_fd_ >= 0) close(signal_fd_);
    if (inotify_fd_ >= 0) close(inotify_fd_);
  }
  bool Watch(const std::string& dir, std::string* error) {
    if (inotify_fd_ < 0) return false;
    const int wd = inotify_add_watch(
        inotify_fd_, dir.c_str(),
        IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_DELETE_SELF);
    if (wd < 0) {
      *error = dir + ": cannot watch for changes: " + std::strerror(errno);
      return false;
    }
    return true;
  }

  enum class Kind { kNone, kStop, kReload, kDirectoryChanged, kTestWedge };
  // Waits up to `timeout_ms` (-1 = forever).
  Kind Wait(int timeout_ms) {
    pollfd fds[2] = {{signal_fd_, POLLIN, 0}, {inotify_fd_, POLLIN, 0}};
    const int n = poll(fds, inotify_fd_ >= 0 ? 2 : 1, timeout_ms);
    if (n <= 0) return Kind::kNone;
    if (fds[0].revents & POLLIN) {
      signalfd_siginfo info{};
      if (read(signal_fd_, &info, sizeof info) == sizeof info) {
        if (info.ssi_signo == SIGUSR1) return Kind::kTestWedge;
        return info.ssi_signo == SIGHUP ? Kind::kReload : Kind::kStop;
      }
    }
    if (inotify_fd_ >= 0 && (fds[1].revents & POLLIN)) {
      char buffer[4096];
      while (read(inotify_fd_, buffer, sizeof buffer) > 0) {
      }
      return Kind::kDirectoryChanged;
    }
    return Kind::kNone;
  }

 private:
  int signal_fd_ = -1;
  int inotify_fd_ = -1;
};

// The coordinator in force, read by the API's and the heartbeat's threads: one for the
// daemon's life without leader election; with it, one per term this instance leads and none
// while it stands by.
class CoordinatorSlot {
 public:
  void Set(actors::CoordinatorActor a) {
    std::lock_guard<std::mutex> lock(mu_);
    current_ = std::move(a);
  }
  actors::CoordinatorActor Get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return current_;
  }
  actors::CoordinatorActor Take() {
    std::lock_guard<std::mutex> lock(mu_);
    actors::CoordinatorActor out = std::move(current_);
    current_ = actors::CoordinatorActor();
    return out;
  }

 private:
  mutable std::mutex mu_;
  actors::CoordinatorActor current_;
};

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "fleetwave";
  return name;
}

// " (IDENTITY)" for the User-Agent of the writes to clusters, with every character a header
// comment may not hold replaced; empty without an identity.
std::string UserAgentComment(const std::string& identity) {
  if (identity.empty()) return "";
  std::string out = " (";
  for (const char ch : identity) {
    const bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                       (ch >= '0' && ch <= '9') || ch == '.' || ch == '-' || ch == '_';
    out += plain ? ch : '_';
  }
  return out + ")";
}

}  // namespace

int RunDaemon(const Argv& argv, std::ostream& out, std::ostream& err) {
  (void)out;
  std::string error;
  auto args = ParseArgs(argv, {"--config", "-c"}, {"--accept-empty-state"}, &error);
  if (!args || !args->positional.empty()) {
    if (!error.empty()) err << "fleetwave run: " << error << "\n";
    err << kUsage;
    return 2;
  }
  const std::string config_path =
      args->Get("--config").value_or(args->Get("-c").value_or(kDefaultConfig));
  const char* wedge_env = std::getenv("FLEETWAVE_TEST_WEDGE");
  const bool test_wedge = wedge_env != nullptr && std::string(wedge_env) == "1";
  Events events(test_wedge);  // before any thread exists: see Events()
  DaemonLog log(err);
  auto log_fn = [&log](const std::string& line) { log(line); };
  const NotifyEnvironment notify = ReadNotifyEnvironment();
  ServiceLifecycle lifecycle([enabled = notify.enabled](const std::string& state) {
    if (enabled) SdNotify(state);
  });

  actors::DaemonInputs initial = LoadDaemonInputs(config_path);
  if (!initial.config_errors.empty()) {
    err << JoinLines(initial.config_errors) << "\n";
    err << "fleetwave run: " << config_path << " cannot be used; nothing started\n";
    return 1;
  }
  const engine::Config config = initial.config;

  // --accept-empty-state: start although the state directory's marker names another database
  // (docs/state-store.md, "A database that vanished or was emptied").
  // etcds://: the TLS files of `etcd:`, relative to fleetwave.yaml as every path in it.
  store::OpenResult opened = store::OpenStore(
      ResolveStateUrl(config.state, config_path),
      store::OpenOptions{.accept_empty_state = args->Has("--accept-empty-state"),
                         .etcd_tls = {Resolve(config.etcd.ca_file, config_path),
                                      Resolve(config.etcd.cert_file, config_path),
                                      Resolve(config.etcd.key_file, config_path)},
                         .etcd_limits = {config.etcd.max_txn_ops, config.etcd.max_request_bytes}});
  if (!opened.ok()) {
    err << "fleetwave run: " << opened.status.message << "\n";
    return 1;
  }
  for (const auto& note : opened.notes) log("state: " + note);
  std::unique_ptr<store::Store> store = std::move(opened.store);

  actors::StatusBoard board;
  // With leader election, while this instance stands by: the board shows the leader's committed
  // state (shared_state_view.h), and a set published by an actor is a former term's, dropped.
  std::unique_ptr<SharedStateView> shared_view;
  auto standby_shows = [&shared_view] { return shared_view && shared_view->active(); };
  // Before the store's health (counted), the pool (which counts the jobs that threw) and the
  // transport (whose I/O thread reports every request).
  metrics::Metrics metrics;
  // A store that cannot be used fails /readyz and is listed in the API's errors; logged once
  // per change. Nothing is acted on meanwhile: every store call fails, so nothing is durable.
  if (opened.health) {
    opened.health->Subscribe(
        [&board, &metrics, log_fn, db = opened.database](const store::Status& problem) {
          if (!problem.ok()) metrics.Degraded("store");
          board.SetStoreProblem(db, problem.ok() ? std::nullopt : std::optional(problem.message));
          log_fn(problem.ok() ? "state: " + db + " is usable again"
                              : "state: the store cannot be used: " + problem.message +
                                    "; the API stays up, nothing is acted on until it is repaired "
                                    "(docs/guide.md, \"The state database is corrupt or was "
                                    "emptied\")");
        });
  }
  actors::BlockingPool pool(
      4, log_fn,
      [] {
        pthread_setname_np(pthread_self(), "fw-pool");
        LowerThisThreadsPriority(kBackgroundNiceSteps);
      },
      [&metrics] { metrics.Degraded("internal"); });
  // Store commits on their own threads (Services::store_pool), as the decisions' threads run:
  // a decision's commit never waits for a git fetch or a render to free a pool thread. Two, so
  // concurrent sets' commits can share one transaction (store/group_commit.h).
  actors::BlockingPool store_pool(
      2, log_fn,
      [] {
        pthread_setname_np(pthread_self(), "fw-store");
        LowerThisThreadsPriority(kBackgroundNiceSteps);
      },
      [&metrics] { metrics.Degraded("internal"); });
  // Remote repositories are mirrored in the state directory (<dir>/git/<hash of the URL>).
  // With the state in etcd there is no local state directory: `cacheDir:` holds them.
  const std::string state_url = ResolveStateUrl(config.state, config_path);
  const std::string state_dir =
      state_url.rfind("sqlite://", 0) == 0
          ? fs::path(state_url.substr(std::string("sqlite://").size())).parent_path().string()
          : Resolve(config.cache_dir, config_path);
  sources::GitSource source(sources::GitSourceOptions{
      state_dir + "/git", config.repositories,
      [&metrics](const std::string& repo, const std::string& result) {
        const double now =
            std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        metrics.GitFetch(repo, result, now);
      }});
  metrics::RequestObserverAdapter<clients::RequestObserver> request_observer(&metrics);
  clients::CurlTransport transport(clients::CurlTransportOptions{0, 0, log_fn});
  // Connections to the clusters, read at scrape time (issue 26: one per cluster with HTTP/2).
  metrics.SetConnectionSource([&transport] {
    const clients::CurlTransport::Stats s = transport.stats();
    return metrics::ConnectionCounts{s.sockets_opened, s.sockets_open, s.responses_http2,
                                     s.responses_http1};
  });
  clients::ExecRunner exec_runner;

  actors::Services services;
  services.store = store.get();
  services.source = &source;
  services.pool = &pool;
  services.store_pool = &store_pool;
  services.now = [] {
    return std::chrono::time_point_cast<engine::Duration>(std::chrono::system_clock::now());
  };
  services.log = log_fn;
  services.jitter = [] {
    thread_local std::mt19937_64 random(std::random_device{}());
    return std::uniform_real_distribution<double>(0.0, 1.0)(random);
  };
  services.publish.appset = [&board, &metrics, &services, standby_shows](
                                const std::string& name, const engine::Json& summary,
                                std::vector<std::shared_ptr<const engine::Json>> apps,
                                const std::map<std::string, std::string>& clusters,
                                const actors::PublishOrigin* origin) {
    if (standby_shows()) return;
    // By reference, and the apps move into the board as the engine sorted them: the board and
    // the metrics copy only what changed since the last reconcile (bench/publish_bench.cc).
    static const engine::Json kNoStatus;
    const auto status = summary.find("status");  // end() when summary is not an object
    const metrics::ChangedEntries changed =
        origin != nullptr
            ? metrics::ChangedEntries{origin->source, origin->seq, origin->entry_positions,
                                      origin->clusters_version}
            : metrics::ChangedEntries{};
    metrics.AppSetObservedShared(name, status != summary.end() ? *status : kNoStatus, apps,
                                 services.now(), clusters, &changed);
    board.PublishReconcile(name, summary, std::move(apps), origin);
  };
  services.publish.appset_removed = [&board, &metrics, db = opened.database,
                                     standby_shows](const std::string& name) {
    if (standby_shows()) return;
    board.RemoveAppSet(name);
    // A problem of its stored records goes with the records (the deletion removed them).
    board.SetStoredRecordProblem(db + ":" + store::keys::AppSetPrefix(name), std::nullopt);
    metrics.AppSetRemoved(name);
  };
  services.publish.drift =
      [&metrics](const std::string& name, const std::vector<std::string>& reported,
                 std::size_t corrected) { metrics.AppSetDrift(name, reported, corrected); };
  services.publish.pending_deletions = [&metrics](const std::string& name, int count) {
    metrics.PendingDeletions(name, count);
  };
  services.publish.cluster_removed = [&board, &metrics](const std::string& name) {
    board.RemoveCluster(name);
    board.RemoveWorkloadsOf(name);
    metrics.ClusterRemoved(name);  // its workloads' series too
  };
  services.publish.workload = [&board, &metrics](const engine::Json& item) {
    auto text = [&item](const char* key) {
      const auto it = item.find(key);
      return it != item.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    const auto condition = item.find("condition");
    const auto exceeded = item.find("exceeded");
    std::string reason;
    if (condition != item.end() && condition->is_object() && condition->contains("reason") &&
        (*condition)["reason"].is_string()) {
      reason = (*condition)["reason"].get<std::string>();
    }
    metrics.WorkloadCondition(
        {text("cluster"), text("namespace"), text("kind"), text("name")}, reason,
        exceeded != item.end() && exceeded->is_boolean() && exceeded->get<bool>());
    board.PublishWorkload(item);
  };
  services.publish.workload_removed = [&board, &metrics](
                                          const std::string& cluster, const std::string& ns,
                                          const std::string& kind, const std::string& name) {
    metrics.WorkloadRemoved({cluster, ns, kind, name});
    board.RemoveWorkload(cluster, ns, kind, name);
  };
  services.publish.repositories =
      [&source](const std::vector<engine::RepositoryConfig>& repositories) {
        source.SetRepositories(repositories);
      };
  services.publish.progress_evaluated = [&metrics] { metrics.ProgressEvaluated(); };
  services.publish.analysis_measured = [&metrics](const std::string& appset, int step,
                                                  bool passed) {
    metrics.AnalysisMeasured(appset, step, passed);
  };
  services.publish.rollback_started = [&metrics](const std::string& appset,
                                                 const std::string& reason) {
    metrics.RollbackStarted(appset, reason);
  };
  services.publish.sync_finished = [&metrics](const std::string& appset, const std::string& trigger,
                                              const std::string& result) {
    metrics.SyncFinished(appset, trigger, result);
  };
  services.publish.reconcile_seconds = [&metrics](const std::string& actor, double seconds) {
    metrics.ReconcileDuration(actor, seconds);
  };
  services.publish.decision_divergence = [&metrics](const std::string& appset) {
    metrics.DecisionDiverged(appset);
  };
  services.publish.cluster = [&board, &metrics](const std::string& name,
                                                const engine::Json& state) {
    metrics.ClusterState(name, state.value("up", false));
    actors::ClusterStatus status;
    status.name = name;
    status.server = state.value("server", "");
    status.up = state.value("up", false);
    status.synced = state.value("synced", false);
    board.PublishCluster(std::move(status));
  };
  services.publish.file = [&board, &metrics](const std::string& file,
                                             const std::vector<std::string>& e) {
    metrics.ConfigReload(file, e.empty());
    board.SetFileStatus(file, e.empty() ? std::nullopt : std::optional<std::string>(JoinLines(e)));
  };
  services.publish.file_removed = [&board, &metrics](const std::string& file) {
    board.RemoveFile(file);
    metrics.ConfigFileRemoved(file);
  };
  services.publish.degraded = [&metrics](const std::string& reason) { metrics.Degraded(reason); };
  services.publish.ready = [&board, &lifecycle](bool ready) {
    board.SetReady(ready);
    if (ready) lifecycle.CoordinatorReady();
  };
  services.publish.stored_state = [&board, db = opened.database](
                                      const std::string& appset,
                                      const std::optional<std::string>& problem) {
    board.SetStoredRecordProblem(db + ":" + store::keys::AppSetPrefix(appset), problem);
  };
  services.publish.reloaded = [&lifecycle](uint64_t ticket, bool ok) {
    lifecycle.Reloaded(ticket, ok);
  };

  caf::actor_system_config caf_config;
  caf_config.add_thread_hook<BackgroundThreadsHook>();
  caf_config.set("scheduler.max-threads", kSchedulerThreads);
  // One shared job queue whose idle workers wait on a condition variable, woken by each job.
  // CAF's default work stealing polls instead: after every job an idle worker naps 500 times
  // for 50 us before it sleeps, so the daemon's steady trickle at rest (each cluster's liveness
  // probe every 10 s, its answer, the bookmarks) kept both workers polling: 7.5 % of a core
  // idle at 200 clusters and 14.4 % at 500, against 1.3 % with this queue (fleet_bench --h2,
  // docs/benchmarks.md "Periodic work at rest"). With two workers the shared queue's lock is
  // not contended enough to cost what stealing saves.
  caf_config.set("scheduler.policy", caf::atom("sharing"));
  caf::actor_system system(caf_config);

  // With leader election, every write to a cluster passes this fence (write_fence.h), which the
  // leadership thread grants per term; each write's User-Agent names this instance too, so a
  // cluster's audit log tells the instances' writes apart.
  struct {
    std::shared_ptr<WriteFence> fence;
    std::string user_agent_comment;
  } writes;
  std::string identity;
  if (config.leader_election) {
    identity =
        config.leader_election->identity.empty() ? HostName() : config.leader_election->identity;
    writes = {std::make_shared<WriteFence>(), UserAgentComment(identity)};
  }

  // The inputs a new term's coordinator starts from when they cannot be read again.
  const actors::DaemonInputs startup_inputs = initial;
  actors::CoordinatorConfig coordinator_config;
  coordinator_config.services = &services;
  coordinator_config.load = [config_path] { return LoadDaemonInputs(config_path); };
  coordinator_config.initial = std::move(initial);
  auto make_cluster = [&transport, &exec_runner, &request_observer, log_fn, &services, &config,
                       &writes](caf::actor_system& sys, const clients::ClusterConfig& cluster,
                                bool deciding) {
    actors::ClusterActorConfig c;
    c.cluster = cluster;
    c.deciding = deciding;
    // A standby watches the kinds the leader watches (watches/<cluster>, cluster_pool.h).
    c.share_watched_kinds = config.leader_election.has_value();
    // Progress deadlines: the kinds and namespaces fleetwave.yaml had at start.
    c.workload_kinds = config.workload_kinds;
    c.workload_namespaces = config.workload_namespaces;
    c.services = &services;
    c.transport = &transport;
    c.exec_runner = &exec_runner;
    c.options.observer = &request_observer;
    // What a cluster may make the daemon hold: the limits fleetwave.yaml had at start.
    c.options.max_watch_event_bytes = config.limits.max_watch_event_bytes;
    c.options.max_response_bytes = config.limits.max_response_bytes;
    c.options.http2 = config.cluster_http2;
    // When the cluster is down and how it is probed: the liveness fleetwave.yaml had at start.
    const engine::LivenessConfig& live = config.liveness;
    c.options.progress_timeout = std::chrono::seconds(live.progress_timeout_seconds);
    c.liveness.probe_interval = std::chrono::seconds(live.probe_interval_seconds);
    c.liveness.probe_timeout = std::chrono::seconds(live.probe_timeout_seconds);
    c.liveness.down_backoff.cap = std::chrono::seconds(live.max_probe_backoff_seconds);
    if (c.liveness.down_backoff.initial > c.liveness.down_backoff.cap) {
      c.liveness.down_backoff.initial = c.liveness.down_backoff.cap;
    }
    c.options.log = [log_fn, name = cluster.name](const std::string& line) {
      log_fn("cluster=" + name + " " + line);
    };
    c.log = c.options.log;
    if (writes.fence) {
      c.options.write_refusal = [fence = writes.fence] { return fence->Refusal(); };
      c.options.user_agent += writes.user_agent_comment;
    }
    return actors::SpawnClusterActor(sys, std::move(c));
  };
  coordinator_config.spawn_cluster = [make_cluster](caf::actor_system& sys,
                                                    const clients::ClusterConfig& cluster) {
    return make_cluster(sys, cluster, true);
  };
  CoordinatorSlot coordinators;
  // With leader election: the cluster actors, across terms (actors/cluster_pool.h).
  std::unique_ptr<actors::ClusterPool> cluster_pool;
  // A standby's watches of the store: the sets' records (what its API shows) and the kinds the
  // leader watches on each cluster (what its cluster actors watch too).
  std::unique_ptr<store::EtcdPrefixWatch> appsets_watch;
  std::unique_ptr<store::EtcdPrefixWatch> kinds_watch;
  std::unique_ptr<Leadership> leadership;
  // Tells the leadership thread at once when the leader key changes (a resignation, an expiry);
  // its poll stays the fallback.
  std::unique_ptr<store::EtcdKeyWatch> leader_watch;
  // A standby has no coordinator: the watchdog's ping goes to this stand-in, so it still proves
  // the scheduler makes progress.
  actors::HeartbeatTarget standby_pong;
  if (!config.leader_election) {
    coordinators.Set(actors::SpawnCoordinator(system, std::move(coordinator_config)));
  } else {
    auto* etcd_store = dynamic_cast<store::EtcdStore*>(store.get());
    if (etcd_store == nullptr) {
      err << "fleetwave run: " << config_path
          << ": leaderElection: needs the state in etcd (state: etcd://...)\n";
      return 1;
    }
    // Nothing is written before this instance leads: a standby's store refuses every batch.
    etcd_store->Fence(store::EtcdStore::kNoTerm);
    store::EtcdUrlResult target = store::ParseEtcdUrl(state_url);
    auto etcd_client = [&target, &config, &config_path] {
      return std::make_unique<store::EtcdClient>(
          target.target, store::EtcdTlsFiles{Resolve(config.etcd.ca_file, config_path),
                                             Resolve(config.etcd.cert_file, config_path),
                                             Resolve(config.etcd.key_file, config_path)});
    };
    // The cluster actors run from the start, not deciding: their watches list now, so a term
    // this instance wins later attaches to caches that listed already.
    cluster_pool = std::make_unique<actors::ClusterPool>(system, make_cluster);
    for (const auto& cluster : startup_inputs.cluster_configs) cluster_pool->Acquire(cluster);
    coordinator_config.spawn_cluster =
        [pool = cluster_pool.get()](caf::actor_system&, const clients::ClusterConfig& cluster) {
          return pool->Acquire(cluster);
        };
    coordinator_config.clusters_outlive_term = true;
    std::map<std::string, engine::Json> specs;
    for (const auto& [path, file] : startup_inputs.files) {
      for (const auto& set : file.appsets) {
        specs.emplace(set.name, engine::Json{{"file", set.file},
                                             {"strategy", engine::StrategyJson(set.strategy)}});
      }
    }
    shared_view = std::make_unique<SharedStateView>(board, std::move(specs), log_fn);
    appsets_watch = std::make_unique<store::EtcdPrefixWatch>(
        etcd_client(), store::keys::kAppSetsPrefix, etcd_store->base(),
        [view = shared_view.get()](const store::EtcdPrefixWatch::Change& c) { view->OnChange(c); },
        log_fn);
    kinds_watch = std::make_unique<store::EtcdPrefixWatch>(
        etcd_client(), store::keys::kWatchesPrefix, etcd_store->base(),
        [pool = cluster_pool.get(), log_fn](const store::EtcdPrefixWatch::Change& c) {
          for (const auto& [key, entry] : *c.entries) {
            if (!c.reset && c.keys.count(key) == 0) continue;
            const auto cluster = store::keys::ClusterOfWatchesKey(key);
            const engine::Json kinds = engine::Json::parse(entry.value, nullptr, false);
            if (!cluster || !kinds.is_array()) {
              log_fn("standby: " + key + " is not a list of kinds; ignored");
              continue;
            }
            std::vector<std::string> names;
            for (const auto& k : kinds) {
              if (k.is_string()) names.push_back(k.get<std::string>());
            }
            pool->WatchKinds(*cluster, names);
          }
        },
        log_fn);
    auto leader = std::make_unique<store::EtcdLeader>(
        std::make_unique<store::EtcdClient>(
            target.target,
            store::EtcdTlsFiles{Resolve(config.etcd.ca_file, config_path),
                                Resolve(config.etcd.cert_file, config_path),
                                Resolve(config.etcd.key_file, config_path)},
            // A renewal answered after half the lease is of little use, and the thread must
            // stay responsive to a stop.
            store::EtcdClientOptions{
                1000, std::max<long>(1000, config.leader_election->lease_duration_seconds * 500)}),
        identity, config.leader_election->lease_duration_seconds);
    standby_pong = system.spawn([]() -> actors::HeartbeatTarget::behavior_type {
      return {[](actors::ping_atom) { return actors::ping_atom::value; }};
    });
    LeadershipCallbacks callbacks;
    callbacks.log = log_fn;
    // Runs on the leadership thread (blocking: it reads the inputs from disk).
    callbacks.lead = [&, etcd_store](int64_t term) {
      // Fenced before anything can decide: every batch of this term commits only while the
      // leader key's create_revision is `term` (store/etcd_leader.h).
      etcd_store->Fence(term);
      // The board is the actors' again; the cluster actors decide (deadline actors, records).
      shared_view->SetActive(false);
      cluster_pool->SetDeciding(true);
      actors::CoordinatorConfig c = coordinator_config;
      c.initial = LoadDaemonInputs(config_path);
      if (!c.initial.config_errors.empty()) {
        log("leader: " + config_path + " cannot be used now (" +
            JoinLines(c.initial.config_errors) +
            "); this term starts from the inputs read at start");
        c.initial = startup_inputs;
      }
      coordinators.Set(actors::SpawnCoordinator(system, std::move(c)));
    };
    // The fence already refuses this term's batches; this stops the deciding work and returns
    // once the coordinator ended (its children were told to exit).
    callbacks.stand_by = [&] {
      actors::CoordinatorActor stopping = coordinators.Take();
      if (!stopping) return;
      caf::scoped_actor self{system};
      caf::anon_send(stopping, actors::stop_atom::value);
      self->wait_for(stopping);
      // Its cluster actors stay, watching, for the next term.
      cluster_pool->SetDeciding(false);
      log("leader: standby; the coordinator of the ended term stopped");
    };
    callbacks.changed = [&metrics, &lifecycle, &board,
                         shared = shared_view.get()](const LeadershipView& view) {
      metrics.Leadership(view.is_leader, view.changes);
      lifecycle.SetRole(view.is_leader
                            ? std::string("leader")
                            : "standby, " +
                                  (view.leader.empty() ? std::string("nobody") : view.leader) +
                                  " leads");
      // A standby answers reads (the leader's committed state, shared_state_view.h) and refuses
      // mutations: it is up.
      if (!view.is_leader) {
        shared->SetActive(true);
        board.SetReady(true);
      }
    };
    leadership = std::make_unique<Leadership>(
        std::move(leader), identity,
        std::chrono::seconds(config.leader_election->lease_duration_seconds), std::move(callbacks),
        writes.fence);
    leader_watch = std::make_unique<store::EtcdKeyWatch>(
        std::make_unique<store::EtcdClient>(
            target.target, store::EtcdTlsFiles{Resolve(config.etcd.ca_file, config_path),
                                               Resolve(config.etcd.cert_file, config_path),
                                               Resolve(config.etcd.key_file, config_path)}),
        store::EtcdLayout{target.target.prefix}.Leader(), [&leadership] { leadership->Nudge(); },
        log_fn);
  }
  auto current_coordinator = [&coordinators, &standby_pong] {
    actors::HeartbeatTarget c = coordinators.Get();
    return c ? c : standby_pong;
  };
  auto stop_actors = [&coordinators, &standby_pong, &cluster_pool] {
    if (actors::CoordinatorActor c = coordinators.Take())
      caf::anon_send(c, actors::stop_atom::value);
    if (cluster_pool) cluster_pool->StopAll();
    if (standby_pong) caf::anon_send_exit(standby_pong, caf::exit_reason::user_shutdown);
  };

  // Mutations are answered by the actor that decides (operator_commands.h).
  api::ApiServer api(
      board,
      MakeOperatorCommandHandler(
          system, [&coordinators]() -> actors::OperatorCommands { return coordinators.Get(); },
          board));
  api::ApiServerOptions api_options;
  api_options.listen = config.listen_api;
  api_options.token_file = Resolve(config.api_token_file, config_path);
  if (!config.webhook_secret_file.empty()) {
    api_options.webhook_secret_file = Resolve(config.webhook_secret_file, config_path);
  }
  if (config.api_read_token_file) {
    api_options.read_token_file = Resolve(*config.api_read_token_file, config_path);
  }
  if (config.tls) {
    api_options.tls = api::TlsFiles{
        Resolve(config.tls->cert_file, config_path), Resolve(config.tls->key_file, config_path),
        config.tls->client_ca_file.empty() ? std::string()
                                           : Resolve(config.tls->client_ca_file, config_path)};
  }
  api_options.allowed_hosts = config.listen_allowed_hosts;
  if (!IsLoopbackListen(config.listen_api) && !config.api_read_token_file) {
    log_fn("api: warning: " + config.listen_api +
           " is reachable beyond this host and apiReadTokenFile is not set: anyone who can "
           "connect reads every ApplicationSet and Application");
  }
  api_options.log = log_fn;
  if (leadership) {
    api_options.leader = [&leadership, &shared_view] {
      const LeadershipView v = leadership->View();
      return api::LeaderStatus{v.leader, v.self, v.is_leader,
                               shared_view ? shared_view->revision() : 0};
    };
  }
  if (auto failed = api.Start(api_options)) {
    log("fleetwave run: the API cannot listen on " + config.listen_api + ": " + *failed);
    stop_actors();
    system.await_all_actors_done();
    return 1;
  }
  // /metrics on a server of its own (listen.metrics), with the API's TLS and Host rules: a
  // scrape never waits for an API client.
  api::HttpServer metrics_server(api::MetricsHandler([&metrics] { return metrics.Text(); }),
                                 nullptr);
  api::HttpServerOptions metrics_options;
  metrics_options.listen = config.listen_metrics;
  metrics_options.name = "metrics";
  metrics_options.tls = api_options.tls;
  metrics_options.allowed_hosts = api_options.allowed_hosts;
  metrics_options.handler_threads = 1;
  metrics_options.log = log_fn;
  if (auto failed = metrics_server.Start(metrics_options)) {
    log("fleetwave run: the metrics cannot listen on " + config.listen_metrics + ": " + *failed);
    api.Stop();
    stop_actors();
    system.await_all_actors_done();
    return 1;
  }
  log("fleetwave run: metrics on " + config.listen_metrics + "/metrics");
  log("fleetwave run: API on " + config.listen_api + " (port " + std::to_string(api.port()) +
      "), state " + config.state + ", ApplicationSets from " + config.application_sets);
  std::string watch_error;
  if (!events.Watch(config.application_sets, &watch_error) && !watch_error.empty()) {
    log("warning: " + watch_error + "; reload with SIGHUP");
  }
  if (leadership) {
    log("fleetwave run: leader election as " + leadership->View().self + " (lease " +
        std::to_string(config.leader_election->lease_duration_seconds) +
        " s); deciding only while leading");
    leadership->Start();
    leader_watch->Start();
    appsets_watch->Start();
    kinds_watch->Start();
  }
  lifecycle.Started();
  // systemd's watchdog: ping three times per WatchdogSec; without one, STATUS= every 5 s.
  std::unique_ptr<ServiceHeartbeat> heartbeat;
  if (notify.enabled) {
    const auto period =
        notify.watchdog
            ? std::max(std::chrono::milliseconds(10),
                       std::chrono::duration_cast<std::chrono::milliseconds>(*notify.watchdog / 3))
            : std::chrono::milliseconds(5000);
    heartbeat = std::make_unique<ServiceHeartbeat>(
        system, current_coordinator, period, notify.watchdog.has_value(),
        [&lifecycle] { lifecycle.Alive(); },
        [&lifecycle, &board] {
          ServiceCounts counts;
          counts.appsets = board.AppSets().size();
          counts.applications = board.Applications().size();
          for (const auto& c : board.Clusters()) {
            ++counts.clusters;
            if (c.up) ++counts.clusters_up;
          }
          lifecycle.UpdateStatus(counts);
        });
  }
  std::unique_ptr<SchedulerWedge> wedge;
  if (test_wedge) {
    wedge = std::make_unique<SchedulerWedge>(system, kSchedulerThreads, log_fn);
    log("test hook: FLEETWAVE_TEST_WEDGE=1, SIGUSR1 wedges or releases the actor scheduler");
  }
  uint64_t reload_ticket = 0;

  // Directory changes come in bursts (an editor writes, renames, deletes a backup): one reload
  // after 200 ms of quiet.
  bool pending_reload = false;
  for (;;) {
    const auto kind = events.Wait(pending_reload ? 200 : -1);
    if (kind == Events::Kind::kStop) break;
    const actors::CoordinatorActor coordinator = coordinators.Get();
    if (kind == Events::Kind::kReload && !coordinator) {
      // A standby holds no inputs in force: a term it leads reads them afresh.
      log("reload requested (SIGHUP): standby, the inputs are read when this instance leads");
    } else if (kind == Events::Kind::kReload) {
      log("reload requested (SIGHUP)");
      lifecycle.ReloadRequested(++reload_ticket);
      caf::anon_send(coordinator, actors::reload_atom::value, reload_ticket);
    } else if (kind == Events::Kind::kTestWedge && wedge) {
      wedge->Toggle();
    } else if (kind == Events::Kind::kDirectoryChanged) {
      pending_reload = true;
    } else if (kind == Events::Kind::kNone && pending_reload) {
      pending_reload = false;
      if (coordinator) caf::anon_send(coordinator, actors::reload_atom::value);
    }
  }

  // One deadline for the whole stop (systemd's TimeoutStopSec is 20 s): whatever still runs
  // at it is abandoned and the process exits without running destructors. Nothing acknowledged
  // is lost that way: every decision is on disk before it is acted on (write-ahead), and a
  // store commit in flight is one SQLite transaction, complete or absent after the exit.
  const auto stop_deadline = std::chrono::steady_clock::now() + kStopBudget;
  log("fleetwave run: stopping");
  lifecycle.Stopping();
  // First: no term starts or ends from here on (a standby must not win one while it stops); a
  // leader keeps its lease until its work stopped, then resigns below.
  if (leader_watch) leader_watch->Stop();
  if (leadership) leadership->Stop();
  if (appsets_watch) appsets_watch->Stop();
  if (kinds_watch) kinds_watch->Stop();
  heartbeat.reset();
  wedge.reset();  // a wedged scheduler could not stop the actors
  api.Stop();
  metrics_server.Stop();
  stop_actors();
  // Detached (not a std::async future, whose destructor would wait for it).
  auto actors_done = std::make_shared<std::promise<void>>();
  std::future<void> done = actors_done->get_future();
  std::thread([&system, actors_done] {
    system.await_all_actors_done();
    actors_done->set_value();
  }).detach();
  if (done.wait_until(stop_deadline) != std::future_status::ready) {
    log("fleetwave run: in-flight work did not finish within " +
        std::to_string(kStopBudget.count()) + " s; abandoning it");
    std::_Exit(0);
  }
  // A blocking job (a git fetch, the render of a large set, a kustomize child) may run for
  // minutes and cannot be interrupted: it is abandoned at the deadline.
  std::vector<std::string> abandoned = pool.Stop(stop_deadline);
  for (auto& job : store_pool.Stop(stop_deadline)) abandoned.push_back(std::move(job));
  if (!abandoned.empty()) {
    std::string names;
    for (const auto& a : abandoned) names += (names.empty() ? "" : ", ") + a;
    log("fleetwave run: " + std::to_string(abandoned.size()) +
        " blocking job(s) still running at the stop deadline, abandoned: " + names);
    std::_Exit(0);
  }
  // Handed over at once rather than at the lease's expiry (an _Exit above leaves it to expire).
  if (leadership) leadership->Resign();
  log("fleetwave run: stopped");
  return 0;
}

}  // namespace fleetwave::cli
