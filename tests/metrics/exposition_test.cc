// The exposition as Prometheus sees it: `promtool check metrics` accepts a fully populated
// scrape, and /metrics is served over HTTP on listen.metrics.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "engine/time.h"
#include "metrics/metrics.h"
#include "tests/metrics/exposition.h"
#include "tests/metrics/local_http.h"

namespace fleetwave::metrics {
namespace {

using engine::Json;

// A scrape with every metric family holding series, histograms observed included.
void Populate(Metrics& m) {
  m.SetConnectionSource([] { return ConnectionCounts{3, 2, 40, 1}; });
  const auto t0 = *engine::ParseRfc3339("2026-03-01T12:00:00Z");
  auto status = [](int step, const char* started, const char* reason) {
    Json rollout = {{"generation", 1}, {"step", step}};
    if (started) rollout["stepStartedAt"] = started;
    return Json{
        {"applicationStatus",
         Json::array({{{"application", "web-east"},
                       {"status", "Progressing"},
                       {"step", "1"},
                       {"message",
                        "Application failed (health is Degraded), counted against the step's "
                        "maxFailures"},
                       {"lastTransitionTime", "2026-03-01T12:00:00Z"}}})},
        {"conditions", Json::array({{{"type", "RolloutProgressing"},
                                     {"status", step ? "True" : "False"},
                                     {"reason", reason}}})},
        {"rollout", rollout}};
  };
  const std::vector<Json> apps = {
      {{"metadata", {{"name", "web-east"}}},
       {"spec", {{"destination", {{"name", "east"}}}}},
       {"status", {{"health", {{"status", "Progressing"}}}, {"sync", {{"status", "Synced"}}}}}}};
  m.AppSetObserved("web", status(1, "2026-03-01T12:00:00Z", "ApplicationSetModified"), apps, t0);
  m.AppSetObserved("web", status(2, "2026-03-01T12:05:00Z", "ApplicationSetModified"), apps,
                   t0 + std::chrono::minutes(5));
  m.AppSetObserved("web", status(0, nullptr, "ApplicationSetRolloutComplete"), apps,
                   t0 + std::chrono::minutes(9));
  m.AppSetObserved("web", status(1, "2026-03-01T12:10:00Z", "ApplicationSetModified"), apps,
                   t0 + std::chrono::minutes(10));
  m.AppSetObserved("web", status(0, nullptr, "ApplicationSetRolloutComplete"), apps,
                   t0 + std::chrono::minutes(20));
  m.PendingDeletions("web", 1);
  m.AppSetDrift("web", {"web-east"}, 1);
  m.SyncFinished("web", "rollout", "Succeeded");
  m.SyncFinished("web", "manual", "Failed");
  m.AnalysisMeasured("web", 1, false);
  m.RollbackStarted("web", "StepFailed");
  m.WorkloadCondition({"east", "web", "CloneSet", "web"}, "ProgressDeadlineExceeded", true);
  m.ClusterState("east", true);
  m.ClusterState("west", false);
  m.ClusterRequest("east", "GET", 200, 0.012);
  m.ClusterRequest("west", "PATCH", 0, 5.0);
  m.WatchRestart("east", "clonesets");
  m.ReconcileDuration("appset", 0.02);
  m.ReconcileDuration("cluster", 0.001);
  m.ConfigReload("/etc/fleetwave/fleetwave.yaml", true);
  m.ConfigReload("/etc/fleetwave/applicationsets/web.yaml", false);
}

struct RunResult {
  int status = -1;
  std::string output;
};

// Runs a shell command; stdout and stderr together.
RunResult RunShell(const std::string& command) {
  RunResult r;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int raw = pclose(p);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

TEST(ExpositionTest, EveryDocumentedMetricIsExposed) {
  Metrics m;
  Populate(m);
  const auto samples = testing::ParseSamples(m.Text());
  for (const char* name : {
           "fleetwave_build_info",
           "fleetwave_applicationset_rollout_step",
           "fleetwave_applicationset_condition",
           "fleetwave_applicationset_last_progress_timestamp_seconds",
           "fleetwave_application_rollout_status",
           "fleetwave_application_health",
           "fleetwave_application_sync_status",
           "fleetwave_pending_deletions",
           "fleetwave_app_drifted",
           "fleetwave_drift_corrections_total",
           "fleetwave_syncs_total",
           "fleetwave_rollout_duration_seconds_count",
           "fleetwave_rollout_step_duration_seconds_count",
           "fleetwave_step_failures",
           "fleetwave_analysis_measurements_total",
           "fleetwave_rollbacks_total",
           "fleetwave_workload_progress_deadline_exceeded",
           "fleetwave_workload_progressing",
           "fleetwave_cluster_up",
           "fleetwave_cluster_requests_total",
           "fleetwave_cluster_request_duration_seconds_bucket",
           "fleetwave_watch_restarts_total",
           "fleetwave_cluster_connections_opened_total",
           "fleetwave_cluster_connections_open",
           "fleetwave_cluster_responses_total",
           "fleetwave_reconcile_duration_seconds_sum",
           "fleetwave_config_last_reload_success",
           "process_cpu_seconds_total",
           "process_resident_memory_bytes",
           "process_open_fds",
           "process_start_time_seconds",
       }) {
    EXPECT_FALSE(testing::Find(samples, name).empty()) << name;
  }
}

// `promtool check metrics` on an exposition text. promtool is a test dependency
// (scripts/install-deps.sh installs Debian's `prometheus`): without it the caller's test fails,
// saying so, rather than passing unchecked.
RunResult PromtoolCheckMetrics(const std::string& text) {
  if (RunShell("command -v promtool").status != 0) {
    return {-1,
            "promtool not found on PATH: install Debian's `prometheus` package "
            "(scripts/install-deps.sh)"};
  }
  const auto path = std::filesystem::temp_directory_path() /
                    ("fleetwave-metrics-" + std::to_string(getpid()) + ".prom");
  std::ofstream(path) << text;
  RunResult r = RunShell("promtool check metrics < " + path.string());
  std::filesystem::remove(path);
  return r;
}

TEST(ExpositionTest, PassesPromtoolCheckMetrics) {
  Metrics m;
  Populate(m);
  const RunResult r = PromtoolCheckMetrics(m.Text());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output, "") << "promtool lint findings";
}

}  // namespace
}  // namespace fleetwave::metrics
