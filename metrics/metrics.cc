#include "metrics/metrics.h"

#include <algorithm>
#include <array>
#include <exception>
#include <set>
#include <sstream>
#include <string_view>

#include <prometheus/text_serializer.h>

#include "engine/progress/workload.h"
#include "engine/rollingsync/rollback_state.h"
#include "metrics/process_collector.h"

namespace fleetwave::metrics {
namespace {

using engine::FieldAt;
using engine::IntAt;
using engine::Json;
using engine::StringAt;
using engine::Time;
using prometheus::Histogram;

// Series budget per cluster (metrics.h): cluster_up + kMaxRequestSeries + kMaxWatchSeries.
constexpr std::size_t kMaxRequestSeries = 6;  // the last one is {verb="other",code="other"}
constexpr std::size_t kMaxWatchSeries = 3;    // the last one is resource="other"

const Histogram::BucketBoundaries& RequestBuckets() {
  static const Histogram::BucketBoundaries b{0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                             0.5,   1,    2.5,   5,    10,  30};
  return b;
}
const Histogram::BucketBoundaries& ReconcileBuckets() {
  static const Histogram::BucketBoundaries b{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                             0.25,  0.5,    1,     2.5,  5,     10};
  return b;
}
// A step waits for syncs and health: seconds to hours.
const Histogram::BucketBoundaries& StepBuckets() {
  static const Histogram::BucketBoundaries b{30,   60,   120,  300,   600,  1200,
                                             1800, 3600, 7200, 14400, 28800};
  return b;
}
const Histogram::BucketBoundaries& RolloutBuckets() {
  static const Histogram::BucketBoundaries b{60,   300,   600,   1800,  3600,
                                             7200, 14400, 28800, 86400, 172800};
  return b;
}

// `value` when it is one of `allowed`, else `fallback`: label values stay a closed set.
template <std::size_t N>
std::string_view OneOfView(std::string_view value, const std::array<std::string_view, N>& allowed,
                           std::string_view fallback) {
  for (std::string_view a : allowed) {
    if (value == a) return a;
  }
  return fallback;
}
template <std::size_t N>
std::string OneOf(const std::string& value, const std::array<std::string_view, N>& allowed,
                  const char* fallback) {
  return std::string(OneOfView(value, allowed, fallback));
}

std::string Verb(std::string verb) {
  std::transform(verb.begin(), verb.end(), verb.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  static constexpr std::array<std::string_view, 6> kVerbs{"GET",   "POST",   "PUT",
                                                          "PATCH", "DELETE", "HEAD"};
  return OneOf(verb, kVerbs, "other");
}

std::string CodeClass(int code) {
  if (code < 100 || code > 599) return "error";
  return std::to_string(code / 100) + "xx";
}

double Seconds(Time from, Time to) { return engine::ToSeconds(to - from); }

double UnixSeconds(Time t) { return engine::ToSeconds(t.time_since_epoch()); }

std::optional<Time> TimeAt(const Json& object, std::initializer_list<std::string_view> path) {
  return engine::ParseRfc3339(StringAt(object, path));
}

// The array at `path`, or an empty one: a malformed status reads as absent.
const Json& ArrayAt(const Json& object, std::initializer_list<std::string_view> path) {
  static const Json empty = Json::array();
  const Json* v = FieldAt(object, path);
  return v != nullptr && v->is_array() ? *v : empty;
}

// fleetwave_degraded_total's reasons, a fixed set.
constexpr const char* kDegradedReasons[] = {"cluster", "file", "internal", "set", "store"};
// fleetwave_rollbacks_total's reasons (issue 29); anything else counts as "other".
constexpr std::array<std::string_view, 2> kRollbackReasons{engine::kRollbackStepFailed,
                                                           engine::kRollbackOperator};

prometheus::Family<prometheus::Gauge>& GaugeFamily(prometheus::Registry& r, const char* name,
                                                   const char* help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(r);
}
prometheus::Family<prometheus::Counter>& CounterFamily(prometheus::Registry& r, const char* name,
                                                       const char* help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(r);
}
prometheus::Family<Histogram>& HistogramFamily(prometheus::Registry& r, const char* name,
                                               const char* help) {
  return prometheus::BuildHistogram().Name(name).Help(help).Register(r);
}

}  // namespace

Metrics::Metrics(BuildInfo build, std::string proc)
    : registry_(std::make_shared<prometheus::Registry>()),
      process_(std::make_shared<ProcessCollector>(std::move(proc))),
      app_series_(std::make_shared<AppSeries>()),
      workload_series_(std::make_shared<WorkloadSeries>()),
      appset_condition_(
          GaugeFamily(*registry_, "fleetwave_applicationset_condition",
                      "State set: each ApplicationSet condition's status and reason (value 1)."),
          {"appset", "type", "status", "reason"}, 2),
      app_drifted_(GaugeFamily(*registry_, "fleetwave_app_drifted",
                               "1 while the application's live objects differ from its pinned "
                               "revision and the set reports drift instead of re-syncing it."),
                   {"appset", "application"}),
      appset_last_progress_(
          GaugeFamily(*registry_, "fleetwave_applicationset_last_progress_timestamp_seconds",
                      "Unix time of the set's last rollout progress (an app's transition or a "
                      "step start)."),
          {"appset"}),
      appset_rollout_step_(
          GaugeFamily(*registry_, "fleetwave_applicationset_rollout_step",
                      "The current 1-based RollingSync step of the set, 0 when idle."),
          {"appset"}),
      cluster_request_duration_(
          HistogramFamily(*registry_, "fleetwave_cluster_request_duration_seconds",
                          "Duration of HTTP requests to clusters (each attempt)."),
          {"verb"}),
      analysis_measurements_(
          CounterFamily(*registry_, "fleetwave_analysis_measurements_total",
                        "Prometheus analysis measurements of a RollingSync step (issue 29), by "
                        "result: pass, or fail (the condition not met, no single value, an "
                        "unreachable Prometheus or a query error)."),
          {"appset", "step", "result"}),
      cluster_requests_(CounterFamily(*registry_, "fleetwave_cluster_requests_total",
                                      "HTTP requests to clusters by verb and code class (each "
                                      "attempt)."),
                        {"cluster", "verb", "code"}),
      cluster_up_(GaugeFamily(*registry_, "fleetwave_cluster_up",
                              "1 when the cluster answers and its watches are running, else 0."),
                  {"cluster"}),
      config_reload_success_(
          GaugeFamily(*registry_, "fleetwave_config_last_reload_success",
                      "1 when the last load of the configuration file succeeded, else 0."),
          {"file"}),
      degraded_(CounterFamily(*registry_, "fleetwave_degraded_total",
                              "Failures the daemon survived, by the kind of object they concern "
                              "(file, set, cluster, store, internal)."),
                {"reason"}),
      decision_divergence_(CounterFamily(*registry_, "fleetwave_decision_divergence_total",
                                         "Resyncs at which the set's incremental decision "
                                         "differed from the from-scratch one (a bug)."),
                           {"appset"}),
      drift_corrections_(CounterFamily(*registry_, "fleetwave_drift_corrections_total",
                                       "Drifted applications the rollout sent back to be synced "
                                       "again in step order."),
                         {"appset"}),
      git_fetches_(CounterFamily(*registry_, "fleetwave_git_fetch_total",
                                 "Syncs of remote repositories' mirrors: unchanged (one ref "
                                 "listing), fetched, or failed."),
                   {"repo", "result"}),
      git_last_success_(GaugeFamily(*registry_, "fleetwave_git_last_success_timestamp_seconds",
                                    "When the repository's mirror last synced successfully."),
                        {"repo"}),
      pending_deletions_(GaugeFamily(*registry_, "fleetwave_pending_deletions",
                                     "Applications of the set waiting to be deleted."),
                         {"appset"}),
      reconcile_duration_(HistogramFamily(*registry_, "fleetwave_reconcile_duration_seconds",
                                          "Duration of one reconcile by actor kind."),
                          {"actor"}),
      rollbacks_(CounterFamily(*registry_, "fleetwave_rollbacks_total",
                               "Rollbacks started (issue 29), by reason: StepFailed (a failed "
                               "step's onFailure: Rollback) or Operator (fleetwave rollback)."),
                 {"appset", "reason"}),
      rollout_duration_(HistogramFamily(*registry_, "fleetwave_rollout_duration_seconds",
                                        "Duration of a rollout, from the first promotion to "
                                        "rollout complete."),
                        {"appset"}),
      rollout_step_duration_(HistogramFamily(*registry_, "fleetwave_rollout_step_duration_seconds",
                                             "Duration of a rollout step, from becoming current "
                                             "to complete."),
                             {"appset"}),
      step_failures_(GaugeFamily(*registry_, "fleetwave_step_failures",
                                 "Failed applications of a RollingSync step counted against its "
                                 "maxFailures (issue 29); present while there is one."),
                     {"appset", "step"}),
      syncs_(CounterFamily(*registry_, "fleetwave_syncs_total",
                           "Sync operations ended, by trigger and result."),
             {"appset", "trigger", "result"}),
      watch_restarts_(CounterFamily(*registry_, "fleetwave_watch_restarts_total",
                                    "Watches re-opened after they ended or failed."),
                      {"cluster", "resource"}) {
  GaugeFamily(*registry_, "fleetwave_build_info",
              "The version and revision fleetwave was built at.")
      .Add({{"version", build.version}, {"revision", build.revision}})
      .Set(1);
  progress_evaluations_ =
      &CounterFamily(*registry_, "fleetwave_progress_evaluations_total",
                     "Evaluations of the progress-deadline engine (each workload update or due "
                     "timer); flat while nothing happens.")
           .Add({});
  // Every reason exists from the start, at 0: increase() over it needs the series before its
  // first increment.
  for (const char* reason : kDegradedReasons) degraded_.Get({reason});
}

Metrics::~Metrics() = default;

std::string Metrics::Text() const {
  std::vector<prometheus::MetricFamily> families = registry_->Collect();
  // The per-app families go where prometheus-cpp put them when they were the first Gauge
  // families registered: after the counters, before every other gauge, so that the exposition
  // reads as it always did (tests/metrics/app_series_exposition_test.cc).
  std::vector<prometheus::MetricFamily> apps = app_series_->Collect();
  auto first_gauge = std::find_if(families.begin(), families.end(), [](const auto& f) {
    return f.type == prometheus::MetricType::Gauge;
  });
  families.insert(first_gauge, std::make_move_iterator(apps.begin()),
                  std::make_move_iterator(apps.end()));
  // The per-workload families where prometheus-cpp put them when they were Gauges: before the
  // gauge family registered after them, fleetwave_build_info, which always has its one series
  // (prometheus-cpp groups families by type, each type in the order of registration, and
  // leaves out an empty family).
  std::vector<prometheus::MetricFamily> workloads = workload_series_->Collect();
  auto build_info = std::find_if(families.begin(), families.end(),
                                 [](const auto& f) { return f.name == "fleetwave_build_info"; });
  families.insert(build_info, std::make_move_iterator(workloads.begin()),
                  std::make_move_iterator(workloads.end()));
  std::function<ConnectionCounts()> connections;
  {
    std::lock_guard<std::mutex> lock(mu_);
    connections = connection_source_;
  }
  if (connections) {
    for (auto& f : ConnectionFamilies(connections())) families.push_back(std::move(f));
  }
  for (auto& f : process_->Collect()) families.push_back(std::move(f));
  return prometheus::TextSerializer().Serialize(families);
}

void Metrics::SetConnectionSource(std::function<ConnectionCounts()> source) {
  std::lock_guard<std::mutex> lock(mu_);
  connection_source_ = std::move(source);
}

void Metrics::AppSetObserved(const std::string& appset, const Json& status,
                             const std::vector<Json>& applications, Time now,
                             const std::map<std::string, std::string>& clusters) {
  std::vector<std::shared_ptr<const Json>> borrowed;  // non-owning: `applications` outlives them
  borrowed.reserve(applications.size());
  for (const Json& a : applications) borrowed.emplace_back(std::shared_ptr<const Json>(), &a);
  AppSetObservedShared(appset, status, borrowed, now, clusters);
}

void Metrics::AppSetObservedShared(const std::string& appset, const Json& status,
                                   const std::vector<std::shared_ptr<const Json>>& applications,
                                   Time now, const std::map<std::string, std::string>& clusters,
                                   const ChangedEntries* changed) {
  std::lock_guard<std::mutex> lock(mu_);

  // Rollout step and the timestamps of progress.
  const int step =
      static_cast<int>(std::max<int64_t>(0, IntAt(status, {"rollout", "step"}).value_or(0)));
  const long long generation = IntAt(status, {"rollout", "generation"}).value_or(0);
  const std::optional<Time> step_started = TimeAt(status, {"rollout", "stepStartedAt"});
  appset_rollout_step_.Get({appset}).Set(step);
  auto [it, first] = appsets_.try_emplace(appset);
  AppSetMemory& m = it->second;
  if (first) {
    // Each reason's series exists from the set's first sight, at 0: increase() over it (the
    // FleetwaveRolledBack alert) needs the series before the set's first rollback.
    for (std::string_view reason : kRollbackReasons) rollbacks_.Get({appset, std::string(reason)});
  }

  // The apps' series follow only the apps that changed (app_series.h).
  std::optional<Time> last_progress = step_started;
  const EntriesSummary entries = app_series_->Observe(
      appset, ArrayAt(status, {"applicationStatus"}), applications, clusters, changed);
  if (const auto& latest = entries.latest_transition;
      latest && (!last_progress || *latest > *last_progress)) {
    last_progress = latest;
  }
  if (last_progress) {
    appset_last_progress_.Get({appset}).Set(UnixSeconds(*last_progress));
  } else {
    appset_last_progress_.Erase({appset});
  }

  // Conditions: one state per type.
  std::set<LabelValues> types;
  bool rollout_complete = false;
  for (const Json& c : ArrayAt(status, {"conditions"})) {
    const std::string type = StringAt(c, {"type"});
    if (type.empty()) continue;
    const std::string reason = StringAt(c, {"reason"});
    appset_condition_.Set({appset, type}, {StringAt(c, {"status"}), reason});
    types.insert({appset, type});
    if (type == "RolloutProgressing" && reason == "ApplicationSetRolloutComplete") {
      rollout_complete = true;
    }
  }
  for (const auto& id : appset_condition_.Where(0, appset)) {
    if (!types.count(id)) appset_condition_.Erase(id);
  }

  // Failed apps per step: the entries whose message reports a failure, which the rollout writes
  // only in a step with maxFailures and replaces when the app recovers (rollout_safety.h).
  // Counted from what the app series read (only the changed entries of a hinted publish).
  const std::map<std::string, long long>& failures = entries.failures_by_step;
  for (const auto& id : step_failures_.Where(0, appset)) {
    if (id.size() > 1 && !failures.count(id[1])) step_failures_.Erase(id);
  }
  for (const auto& [step, count] : failures) {
    step_failures_.Get({appset, step}).Set(static_cast<double>(count));
  }

  // Durations, from the transition between the previous call and this one. A step completes
  // when the next step of the same generation becomes current, or the rollout completes; a new
  // generation abandons the step it interrupts (no observation). The rollout runs from the
  // promotion out of idle to the RolloutProgressing reason ApplicationSetRolloutComplete.
  if (!first) {
    const bool completed_to_idle = step == 0 && rollout_complete;
    if (m.step > 0 && m.step_started_at && now >= *m.step_started_at &&
        ((generation == m.generation && step > m.step) || completed_to_idle)) {
      rollout_step_duration_.Get({appset}, StepBuckets()).Observe(Seconds(*m.step_started_at, now));
    }
    if (m.step == 0 && step > 0) m.rollout_started_at = step_started.value_or(now);
    if (m.step > 0 && completed_to_idle && m.rollout_started_at && now >= *m.rollout_started_at) {
      rollout_duration_.Get({appset}, RolloutBuckets())
          .Observe(Seconds(*m.rollout_started_at, now));
    }
    if (step == 0) m.rollout_started_at.reset();
  }
  if (step_started) {
    m.step_started_at = step_started;
  } else if (first || step != m.step || generation != m.generation) {
    // No recorded start: this call is the earliest we know of the step (none on first sight).
    m.step_started_at = first ? std::nullopt : std::optional<Time>(now);
  }
  m.step = step;
  m.generation = generation;
}

void Metrics::EraseAppSetLocked(const std::string& appset) {
  app_series_->Erase(appset);
  appset_condition_.EraseWhere(0, appset);
  appset_last_progress_.Erase({appset});
  appset_rollout_step_.Erase({appset});
  pending_deletions_.Erase({appset});
  rollout_duration_.Erase({appset});
  rollout_step_duration_.Erase({appset});
  step_failures_.EraseWhere(0, appset);
  analysis_measurements_.EraseWhere(0, appset);
  rollbacks_.EraseWhere(0, appset);
  syncs_.EraseWhere(0, appset);
  if (drifted_.erase(appset) > 0) app_drifted_.EraseWhere(0, appset);
  drift_corrections_.Erase({appset});
  decision_divergence_.Erase({appset});
  appsets_.erase(appset);
}

void Metrics::AppSetRemoved(const std::string& appset) {
  std::lock_guard<std::mutex> lock(mu_);
  EraseAppSetLocked(appset);
}

void Metrics::PendingDeletions(const std::string& appset, int count) {
  std::lock_guard<std::mutex> lock(mu_);
  pending_deletions_.Get({appset}).Set(std::max(0, count));
}

void Metrics::AppSetDrift(const std::string& appset, const std::vector<std::string>& drifted,
                          std::size_t corrected) {
  std::lock_guard<std::mutex> lock(mu_);
  drift_corrections_.Get({appset}).Increment(static_cast<double>(corrected));
  auto it = drifted_.find(appset);
  if (it == drifted_.end() ? drifted.empty() : it->second == drifted) return;
  for (const auto& app : it == drifted_.end() ? std::vector<std::string>{} : it->second) {
    app_drifted_.Erase({appset, app});
  }
  for (const auto& app : drifted) app_drifted_.Get({appset, app}).Set(1);
  drifted_[appset] = drifted;
}

void Metrics::DecisionDiverged(const std::string& appset) {
  std::lock_guard<std::mutex> lock(mu_);
  decision_divergence_.Get({appset}).Increment();
}

void Metrics::SyncFinished(const std::string& appset, const std::string& trigger,
                           const std::string& result) {
  static constexpr std::array<std::string_view, 3> kTriggers{"rollout", "manual", "automated"};
  static constexpr std::array<std::string_view, 3> kResults{"Succeeded", "Failed", "Error"};
  std::lock_guard<std::mutex> lock(mu_);
  syncs_.Get({appset, OneOf(trigger, kTriggers, "other"), OneOf(result, kResults, "other")})
      .Increment();
}

void Metrics::AnalysisMeasured(const std::string& appset, int step, bool passed) {
  std::lock_guard<std::mutex> lock(mu_);
  analysis_measurements_.Get({appset, std::to_string(step), passed ? "pass" : "fail"}).Increment();
}

void Metrics::RollbackStarted(const std::string& appset, const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  rollbacks_.Get({appset, OneOf(reason, kRollbackReasons, "other")}).Increment();
}

void Metrics::WorkloadCondition(const WorkloadId& w, const std::string& reason, bool exceeded) {
  std::lock_guard<std::mutex> lock(mu_);
  workload_series_->Set(w.cluster, w.ns, w.kind, w.name, reason, exceeded);
}

void Metrics::ProgressEvaluated() {
  std::lock_guard<std::mutex> lock(mu_);
  progress_evaluations_->Increment();
}

void Metrics::WorkloadRemoved(const WorkloadId& w) {
  std::lock_guard<std::mutex> lock(mu_);
  workload_series_->Erase(w.cluster, w.ns, w.kind, w.name);
}

bool Metrics::WorkloadObserved(const std::string& cluster, const Json& object) {
  const std::optional<engine::WorkloadKind> kind = engine::WorkloadKindOf(object);
  if (!kind) return false;
  std::string reason;
  for (const Json& c : ArrayAt(object, {"status", "conditions"})) {
    if (StringAt(c, {"type"}) == "Progressing") reason = StringAt(c, {"reason"});
  }
  WorkloadCondition(
      {cluster, StringAt(object, {"metadata", "namespace"}),
       std::string(engine::WorkloadKindName(*kind)), StringAt(object, {"metadata", "name"})},
      reason, reason == "ProgressDeadlineExceeded");
  return true;
}

void Metrics::ClusterState(const std::string& cluster, bool up) {
  std::lock_guard<std::mutex> lock(mu_);
  cluster_up_.Get({cluster}).Set(up ? 1 : 0);
}

void Metrics::ClusterRemoved(const std::string& cluster) {
  std::lock_guard<std::mutex> lock(mu_);
  cluster_up_.Erase({cluster});
  cluster_requests_.EraseWhere(0, cluster);
  watch_restarts_.EraseWhere(0, cluster);
  workload_series_->EraseCluster(cluster);
}

void Metrics::ClusterRequest(const std::string& cluster, const std::string& verb, int code,
                             double seconds) {
  const std::string v = Verb(verb);
  std::lock_guard<std::mutex> lock(mu_);
  LabelValues key{cluster, v, CodeClass(code)};
  if (!cluster_requests_.Has(key) &&
      cluster_requests_.CountFirst(cluster) >= kMaxRequestSeries - 1) {
    key = {cluster, "other", "other"};
  }
  cluster_requests_.Get(key).Increment();
  cluster_request_duration_.Get({v}, RequestBuckets()).Observe(std::max(0.0, seconds));
}

void Metrics::WatchRestart(const std::string& cluster, const std::string& resource) {
  std::lock_guard<std::mutex> lock(mu_);
  LabelValues key{cluster, resource};
  if (!watch_restarts_.Has(key) && watch_restarts_.CountFirst(cluster) >= kMaxWatchSeries - 1) {
    key = {cluster, "other"};
  }
  watch_restarts_.Get(key).Increment();
}

void Metrics::ReconcileDuration(const std::string& actor, double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  reconcile_duration_.Get({actor}, ReconcileBuckets()).Observe(std::max(0.0, seconds));
}

void Metrics::ConfigReload(const std::string& file, bool ok) {
  std::lock_guard<std::mutex> lock(mu_);
  config_reload_success_.Get({file}).Set(ok ? 1 : 0);
}

void Metrics::ConfigFileRemoved(const std::string& file) {
  std::lock_guard<std::mutex> lock(mu_);
  config_reload_success_.Erase({file});
}

void Metrics::GitFetch(const std::string& repo, const std::string& result, double unix_seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  const bool success = result == "unchanged" || result == "fetched";
  git_fetches_.Get({repo, success ? result : "failed"}).Increment();
  if (success) git_last_success_.Get({repo}).Set(unix_seconds);
}

void Metrics::Degraded(const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  bool known = false;
  for (const char* r : kDegradedReasons) known = known || reason == r;
  degraded_.Get({known ? reason : "internal"}).Increment();
}

void Metrics::Leadership(bool is_leader, int64_t changes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!leader_) {
    leader_ = &GaugeFamily(*registry_, "fleetwave_leader",
                           "1 while this instance leads (leader election), else 0.")
                   .Add({});
    leader_changes_ = &CounterFamily(*registry_, "fleetwave_leader_changes_total",
                                     "How often this instance became leader or stopped leading.")
                           .Add({});
  }
  leader_->Set(is_leader ? 1 : 0);
  if (changes > leader_changes_seen_) {
    leader_changes_->Increment(static_cast<double>(changes - leader_changes_seen_));
    leader_changes_seen_ = changes;
  }
}

}  // namespace fleetwave::metrics
