// fleetwave's Prometheus metrics: one `Metrics` per daemon holds every metric the product
// documents (names, types and labels exactly as listed below), keeps state sets honest and
// the series of each app, workload and cluster within budget, and renders them for /metrics.
//
// The metrics, in one sorted block:
//   fleetwave_analysis_measurements_total{appset,step,result}                counter, pass|fail
//   fleetwave_app_drifted{appset,application}                                gauge 1, reported
//   drift fleetwave_application_health{appset,application,cluster,health}          state set
//   fleetwave_application_rollout_status{appset,application,status}          state set
//   fleetwave_application_sync_status{appset,application,cluster,status}     state set
//   fleetwave_applicationset_condition{appset,type,status,reason}            state set per type
//   fleetwave_applicationset_last_progress_timestamp_seconds{appset}         gauge
//   fleetwave_applicationset_rollout_step{appset}                            gauge, 0 = idle
//   fleetwave_build_info{version,revision}                                   gauge 1
//   fleetwave_cluster_connections_open                                       gauge (scrape time)
//   fleetwave_cluster_connections_opened_total                               counter (scrape time)
//   fleetwave_cluster_request_duration_seconds{verb}                         histogram
//   fleetwave_cluster_requests_total{cluster,verb,code}                      counter
//   fleetwave_cluster_responses_total{protocol}                              counter (scrape time)
//   fleetwave_cluster_up{cluster}                                            gauge 0/1
//   fleetwave_decision_divergence_total{appset}                              counter (a bug)
//   fleetwave_drift_corrections_total{appset}                                counter
//   fleetwave_git_fetch_total{repo,result}                                   counter
//   fleetwave_git_last_success_timestamp_seconds{repo}                       gauge
//   fleetwave_config_last_reload_success{file}                               gauge 0/1
//   fleetwave_pending_deletions{appset}                                      gauge
//   fleetwave_progress_evaluations_total                                     counter
//   fleetwave_reconcile_duration_seconds{actor}                              histogram
//   fleetwave_rollbacks_total{appset,reason}                                 counter, by reason
//   fleetwave_rollout_duration_seconds{appset}                               histogram
//   fleetwave_rollout_step_duration_seconds{appset}                          histogram
//   fleetwave_step_failures{appset,step}                                     gauge, while > 0
//   fleetwave_syncs_total{appset,trigger,result}                             counter
//   fleetwave_watch_restarts_total{cluster,resource}                         counter
//   fleetwave_workload_progress_deadline_exceeded{cluster,namespace,kind,name} gauge 0/1
//   fleetwave_workload_progressing{cluster,namespace,kind,name,reason}       state set
//   process_* (process_collector.h)
//
// State sets: only the current state's series exists, at value 1; a change deletes the old
// series (metrics_test.cc, StateSetTransitionsDeleteTheOldSeries). Going away deletes
// everything: AppSetRemoved every series of the set and its apps, WorkloadRemoved the
// workload's, ClusterRemoved the cluster's and its workloads' (RemovedObjectsLeaveNoSeries).
//
// Series budget (SeriesStayWithinBudgetAt100ClustersAnd1000Apps): an app has 3 series (rollout
// status, health, sync status), a workload 2, a cluster at most 10: cluster_up, at most 6
// request series and at most 3 watch-restart series. Requests are counted by code CLASS
// ("2xx", "4xx", "5xx", "error" for a failure without a response) and a known verb; once a
// cluster has 5 (verb, code) pairs, further pairs count as {verb="other",code="other"}, and
// after 2 resources further watch restarts count as resource="other". The folded series is
// itself the signal that the budget was hit.
//
// Label values from outside (trigger, result, verb) are mapped onto their documented sets
// ("other" for anything else), so a bug elsewhere cannot explode the series count.
//
// Thread-safety: every method may be called from any thread (one mutex); scrapes run on the
// HTTP server's worker threads (Text()) concurrently with updates.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include "engine/time.h"
#include "engine/yaml_json.h"
#include "metrics/app_series.h"
#include "metrics/build_info.h"
#include "metrics/connection_metrics.h"
#include "metrics/series.h"
#include "metrics/workload_series.h"

namespace fleetwave::metrics {

class ProcessCollector;

// A workload as the cluster actor watches it.
struct WorkloadId {
  std::string cluster;
  std::string ns;
  std::string kind;
  std::string name;
};

class Metrics {
 public:
  // `proc` is the procfs mount the process metrics read (tests pass a fake tree).
  explicit Metrics(BuildInfo build = CompiledBuildInfo(), std::string proc = "/proc");
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // The exposition text a scrape returns right now (text format 0.0.4): what /metrics serves
  // (api/metrics_route.h carries it on the daemon's HTTP server).
  std::string Text() const;

  // ---- ApplicationSets (the appset actor, after each persisted reconcile) ----
  // `status` is the ApplicationSet status (applicationStatus, conditions, rollout) and
  // `applications` the Argo-shaped Applications (metadata.name, spec.destination,
  // status.sync.status, status.health.status) of this reconcile; both are read without
  // throwing, and a malformed field reads as absent ("Unknown" for a state). Updates the
  // rollout step, the condition and per-app state sets (deleting series of apps and
  // conditions no longer present), the last progress timestamp, and observes the step and
  // rollout durations from transitions between consecutive calls (nothing on the first call
  // for a set, e.g. after a restart: a duration is only observed when both ends were seen).
  //
  // The cluster label is `clusters[app]` when given (the kubeconfig context the engine resolved
  // the destination to, GeneratedApplication::cluster, so it matches fleetwave_cluster_up),
  // else spec.destination.name, else spec.destination.server.
  void AppSetObserved(const std::string& appset, const engine::Json& status,
                      const std::vector<engine::Json>& applications, engine::Time now,
                      const std::map<std::string, std::string>& clusters = {});
  // The same with the Applications as the daemon publishes them, shared with the StatusBoard.
  // `changed`: which entries changed since that publisher's previous publish (app_series.h).
  void AppSetObservedShared(const std::string& appset, const engine::Json& status,
                            const std::vector<std::shared_ptr<const engine::Json>>& applications,
                            engine::Time now,
                            const std::map<std::string, std::string>& clusters = {},
                            const ChangedEntries* changed = nullptr);
  // The set was deleted from the configuration: every series naming it goes.
  void AppSetRemoved(const std::string& appset);
  void PendingDeletions(const std::string& appset, int count);
  // A RollingSync reconcile's drift (issue 32): `drifted` the apps that drift and are left
  // alone (the set reports drift), one series each at 1 and none for the others; `corrected`
  // how many were sent back to be synced again this reconcile.
  void AppSetDrift(const std::string& appset, const std::vector<std::string>& drifted,
                   std::size_t corrected);
  // A resync found the set's incremental decision differing from the from-scratch one.
  void DecisionDiverged(const std::string& appset);
  // A sync operation ended. trigger: rollout|manual|automated; result: Succeeded|Failed|Error.
  void SyncFinished(const std::string& appset, const std::string& trigger,
                    const std::string& result);
  // [issue 29] One analysis measurement of step `step` (1-based) recorded: passed or not (an
  // unreachable Prometheus and a query error count as failed).
  void AnalysisMeasured(const std::string& appset, int step, bool passed);
  // [issue 29] A committed decision started a rollback of the set, once per rollback: `reason`
  // engine::kRollbackStepFailed (a failed step's onFailure: Rollback) or kRollbackOperator
  // (fleetwave rollback); anything else counts as "other".
  void RollbackStarted(const std::string& appset, const std::string& reason);

  // ---- Workloads (the cluster actor, from its informers) ----
  // The workload's Progressing condition reason ("" reads as "Unknown") and whether its
  // progress deadline is exceeded.
  void WorkloadCondition(const WorkloadId& workload, const std::string& reason, bool exceeded);
  void WorkloadRemoved(const WorkloadId& workload);
  // One evaluation of the progress-deadline engine by a workload actor (an update or a due
  // timer): a benchmark reads it to show an idle daemon evaluates nothing.
  void ProgressEvaluated();
  // Convenience for a watch event: when `object` is a workload kind fleetwave judges
  // (CloneSet, StatefulSet, DaemonSet, Deployment), reports it by its metadata and the reason of
  // its status.conditions Progressing entry (exceeded = "ProgressDeadlineExceeded", the reason
  // Kubernetes, Kruise and fleetwave all write) and returns true; other kinds change nothing.
  // Read without throwing: a malformed condition reads as absent ("Unknown").
  bool WorkloadObserved(const std::string& cluster, const engine::Json& object);

  // ---- Clusters ----
  void ClusterState(const std::string& cluster, bool up);
  // The cluster left the configuration: its series and its workloads' series go.
  void ClusterRemoved(const std::string& cluster);
  // One HTTP request to a cluster ended: `code` the HTTP status, 0 when none came back.
  void ClusterRequest(const std::string& cluster, const std::string& verb, int code,
                      double seconds);
  void WatchRestart(const std::string& cluster, const std::string& resource);
  // Where the connection counters come from (connection_metrics.h): asked at every scrape,
  // from the scraping thread, so it must be thread-safe and cheap. Unset: no such series.
  void SetConnectionSource(std::function<ConnectionCounts()> source);

  // ---- Remote repositories (sources/git_mirror.h) ----
  // One sync of a remote repository's mirror: `repo` its normalised URL (no credentials),
  // `result` "unchanged" (a ref listing found nothing new), "fetched" or "failed" (anything
  // else counts as "failed"); a success sets the last success time to `unix_seconds`.
  void GitFetch(const std::string& repo, const std::string& result, double unix_seconds);

  // ---- The daemon ----
  // One reconcile of an actor kind ("appset", "cluster", "coordinator") took `seconds`.
  void ReconcileDuration(const std::string& actor, double seconds);
  void ConfigReload(const std::string& file, bool ok);
  // The file is no longer part of the configuration.
  void ConfigFileRemoved(const std::string& file);
  // The daemon survived a failure on an object (issue 30): reason "file" (an input file that
  // failed to load), "set", "cluster", "store" or "internal" (a job threw); any other reason
  // counts as "internal".
  void Degraded(const std::string& reason);
  // Leader election (issue 28): fleetwave_leader (1 while this instance leads, else 0) and
  // fleetwave_leader_changes_total (`changes`: how often it became leader or stopped leading,
  // monotonic). Both exist only on instances with leaderElection: created at the first call.
  void Leadership(bool is_leader, int64_t changes);

 private:
  // What AppSetObserved remembers between calls to see transitions. (The apps' own series are
  // app_series_'s.)
  struct AppSetMemory {
    long long generation = 0;
    int step = 0;  // 0 = idle
    std::optional<engine::Time> step_started_at;
    std::optional<engine::Time> rollout_started_at;  // the promotion out of idle, if seen
  };

  void EraseAppSetLocked(const std::string& appset);

  mutable std::mutex mu_;
  std::shared_ptr<prometheus::Registry> registry_;
  std::shared_ptr<ProcessCollector> process_;
  // The per-app state sets, outside the registry: prometheus-cpp's Family::Remove scans the
  // family, and a fleet changes thousands of app states per rollout (app_series.h).
  std::shared_ptr<AppSeries> app_series_;
  std::shared_ptr<WorkloadSeries> workload_series_;  // the per-workload families

  StateSet appset_condition_;
  Series<prometheus::Gauge> app_drifted_;
  Series<prometheus::Gauge> appset_last_progress_;
  Series<prometheus::Gauge> appset_rollout_step_;
  Series<prometheus::Histogram> cluster_request_duration_;
  Series<prometheus::Counter> analysis_measurements_;
  Series<prometheus::Counter> cluster_requests_;
  Series<prometheus::Gauge> cluster_up_;
  Series<prometheus::Gauge> config_reload_success_;
  Series<prometheus::Counter> degraded_;
  Series<prometheus::Counter> decision_divergence_;
  Series<prometheus::Counter> drift_corrections_;
  Series<prometheus::Counter> git_fetches_;
  Series<prometheus::Gauge> git_last_success_;
  Series<prometheus::Gauge> pending_deletions_;
  Series<prometheus::Histogram> reconcile_duration_;
  Series<prometheus::Counter> rollbacks_;
  Series<prometheus::Histogram> rollout_duration_;
  Series<prometheus::Histogram> rollout_step_duration_;
  Series<prometheus::Gauge> step_failures_;
  Series<prometheus::Counter> syncs_;
  Series<prometheus::Counter> watch_restarts_;
  prometheus::Counter* progress_evaluations_ = nullptr;  // the registry owns it
  prometheus::Gauge* leader_ = nullptr;                  // the registry owns it
  prometheus::Counter* leader_changes_ = nullptr;        // the registry owns it
  int64_t leader_changes_seen_ = 0;
  std::function<ConnectionCounts()> connection_source_;

  std::map<std::string, AppSetMemory> appsets_;
  std::map<std::string, std::vector<std::string>> drifted_;  // appset -> its app_drifted_ series
};

}  // namespace fleetwave::metrics
