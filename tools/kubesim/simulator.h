// The simulator: N clusters, the clock, and the HTTP-level routing of Kubernetes requests to
// discovery, OpenAPI, the verbs and the admin API (/kubesim/...). Transport-agnostic: the
// Beast server turns wire requests into HttpRequest and streams watches through WatchSink.
// Not thread-safe: everything runs on the one io thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/kubesim/cluster.h"
#include "tools/kubesim/control_plane.h"
#include "tools/kubesim/step_scheduler.h"
#include "tools/kubesim/watch_hub.h"

namespace fleetwave::kubesim {

struct SimulatorOptions {
  int clusters = 1;
  std::uint64_t seed = 1;
  bool manual_clock = false;
  bool tls = false;  // serving HTTPS: every request must carry its cluster's token
  int tick_ms = 50;
  Duration continue_window = std::chrono::minutes(5);
  ClusterOptions cluster;
  ControlOptions control;  // controllers, audit and event logs (kubesim part 2)
};

struct HttpRequest {
  std::string method;
  std::string target;  // path and query
  std::string content_type;
  std::string accept;
  std::string authorization;
  std::string user_agent;
  std::string body;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

struct WatchPlan {
  int cluster = 0;
  WatchFilter filter;
  std::optional<std::uint64_t> resource_version;  // nullopt: start with the current state
  bool bookmarks = false;
  int timeout_seconds = 1800;
};

struct Dispatch {
  HttpResponse response;
  std::optional<WatchPlan> watch;  // set: stream a watch instead of `response`
};

class Simulator {
 public:
  explicit Simulator(SimulatorOptions options);

  // `bound_cluster` is the cluster of a per-cluster port, or -1 when clusters are addressed
  // by the "/clusters/<name>" path prefix.
  Dispatch Handle(const HttpRequest& request, int bound_cluster);
  // Sends the watch's initial events to `sink` and registers it. Returns 0 when the watch is
  // already over (an ERROR event was sent), else an id for CloseWatch.
  std::uint64_t OpenWatch(const WatchPlan& plan, const std::shared_ptr<WatchSink>& sink);
  void CloseWatch(int cluster, std::uint64_t id);
  std::string BookmarkLine(const WatchPlan& plan);
  // One controller step over every cluster that needs one now (step_scheduler.h): the
  // written, the still changing, and the settled ones whose due time has come.
  void Tick();
  // When the next Tick has work: nullopt = not before a write (then the wake listener is
  // called). `busy` = on the next tick (--tick-ms), else at the returned time.
  bool busy() const { return scheduler_.busy(); }
  std::optional<TimePoint> NextDue() const { return scheduler_.NextDue(); }
  // Called (outside Tick) when a write gives a sleeping simulator work for the next tick.
  void SetWakeListener(std::function<void()> wake) { wake_ = std::move(wake); }
  // Counts for GET /kubesim/stats; the server adds its own (bookmarks, timer wake-ups).
  std::uint64_t& server_counter(const std::string& name) { return server_counters_[name]; }
  // GET /kubesim/stats: work counters since start (monotonic) and the scheduler's state.
  Json Stats() const;

  const Clock& clock() const { return clock_; }
  int cluster_count() const { return static_cast<int>(clusters_.size()); }
  Cluster& cluster(int i) { return *clusters_[i]; }
  const SimulatorOptions& options() const { return options_; }
  ControlPlane& control() { return control_; }

 private:
  Dispatch Route(const HttpRequest& request, int bound_cluster);
  HttpResponse Admin(const HttpRequest& request, const std::string& path);
  Dispatch ClusterRequest(Cluster& c, const HttpRequest& request, const std::string& path,
                          const std::string& query, const std::string& prefix);

  SimulatorOptions options_;
  Clock clock_;
  std::vector<std::unique_ptr<Cluster>> clusters_;
  // Simulated controllers, faults, audit and events: see control_plane.h.
  ControlPlane control_{options_.control};
  TimePoint last_compaction_{};
  StepScheduler scheduler_;
  bool in_tick_ = false;
  std::function<void()> wake_;
  std::uint64_t ticks_ = 0;
  std::uint64_t cluster_steps_ = 0;
  std::map<std::string, std::uint64_t> server_counters_;
};

// Bearer token of cluster `index` for `seed`: stable across restarts with the same seed.
std::string ClusterToken(std::uint64_t seed, int index);

}  // namespace fleetwave::kubesim
