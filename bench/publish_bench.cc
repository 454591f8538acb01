// Publishing one reconcile's result (issue 18, issue 25 part 5): the daemon's
// `services.publish.appset` callback (tools/fleetwave/cmd_run.cc) feeds the metrics
// (metrics::Metrics::AppSetObservedShared) and the API's StatusBoard (with its watch feed)
// after every reconcile of a set. This times that path for one set of N Argo-shaped
// Applications: first with everything new, then repeatedly with `changed` apps changed, shared
// the way the engine hands them over (an unchanged app's Application is the same pointer as in
// the previous publish, ReconcileAppSet's memo; a changed one is a new object, and so is its
// status entry; the summary is a new JSON every time, as OnPersisted builds it).
// Building the inputs is not timed; the CPU time of the publishing thread is.
//
// The floor, measured in the same run: the pass over the inputs that no publish through this
// interface can avoid (each status entry's application name read, each Application pointer
// copied, as the callback receives them), so the ratio says how close a publish is to costing
// only what changed.
//
// Usage: publish_bench [apps (2000)] [rounds (50)] [changed apps per publish (1)]
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actors/status_board.h"
#include "engine/time.h"
#include "engine/yaml_json.h"
#include "metrics/metrics.h"

namespace {

using fleetwave::engine::Json;
namespace actors = fleetwave::actors;
namespace engine = fleetwave::engine;
namespace metrics = fleetwave::metrics;

double ThreadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

std::string Name(int i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "web-cluster-%04d", i);
  return buf;
}

std::string Cluster(int i) { return "cluster-" + std::to_string(i % 100); }

// One Application as the engine publishes it (metadata, spec, status.sync/health/
// operationState, a few resources); `version` changes its status.
Json Application(int i, int version) {
  const std::string name = Name(i);
  const std::string revision = "rev-" + std::to_string(version);
  Json resources = Json::array();
  for (const char* kind : {"Deployment", "Service", "ConfigMap", "ServiceAccount", "Ingress"}) {
    resources.push_back({{"group", "apps"},
                         {"version", "v1"},
                         {"kind", kind},
                         {"namespace", "web"},
                         {"name", "web"},
                         {"status", version % 2 ? "OutOfSync" : "Synced"},
                         {"health", {{"status", version % 2 ? "Progressing" : "Healthy"}}}});
  }
  return Json{
      {"apiVersion", "argoproj.io/v1alpha1"},
      {"kind", "Application"},
      {"metadata",
       {{"name", name},
        {"namespace", "argocd"},
        {"labels", {{"env", i % 3 ? "prod" : "qa"}, {"region", "eu-" + std::to_string(i % 4)}}},
        {"ownerReferences", Json::array({{{"kind", "ApplicationSet"}, {"name", "web"}}})}}},
      {"spec",
       {{"project", "default"},
        {"source",
         {{"repoURL", "https://git.example/web.git"},
          {"path", "deploy/web"},
          {"targetRevision", "main"}}},
        {"destination", {{"name", Cluster(i)}, {"namespace", "web"}}},
        {"syncPolicy", {{"syncOptions", Json::array({"CreateNamespace=true"})}}}}},
      {"status",
       {{"sync", {{"status", version % 2 ? "OutOfSync" : "Synced"}, {"revision", revision}}},
        {"health", {{"status", version % 2 ? "Progressing" : "Healthy"}}},
        {"operationState",
         {{"phase", "Succeeded"},
          {"message", "successfully synced (all tasks run)"},
          {"startedAt", "2026-03-01T12:00:00Z"},
          {"finishedAt", "2026-03-01T12:00:05Z"},
          {"syncResult", {{"revision", revision}}}}},
        {"resources", resources}}}};
}

Json Entry(int i, int version) {
  return Json{{"application", Name(i)},
              {"status", version % 2 ? "Progressing" : "Healthy"},
              {"step", std::to_string(1 + i % 10)},
              {"message", version % 2 ? "Application resource became Progressing"
                                      : "Application resource became Healthy"},
              {"lastTransitionTime", version % 2 ? "2026-03-01T12:01:00Z" : "2026-03-01T12:00:00Z"},
              {"targetRevisions", Json::array({"rev-" + std::to_string(version)})}};
}

using JsonPtr = std::shared_ptr<const Json>;

// The summary OnPersisted builds for this reconcile (a new JSON every time).
Json Summary(const std::vector<int>& versions) {
  Json entries = Json::array();
  for (size_t i = 0; i < versions.size(); ++i) {
    entries.push_back(Entry(static_cast<int>(i), versions[i]));
  }
  return Json{
      {"metadata", {{"name", "web"}}},
      {"spec", {{"file", "/etc/fleetwave/sets/web.yaml"}, {"strategy", {{"type", "RollingSync"}}}}},
      {"status",
       {{"applicationStatus", std::move(entries)},
        {"conditions", Json::array({{{"type", "RolloutProgressing"},
                                     {"status", "True"},
                                     {"reason", "ApplicationSetModified"},
                                     {"message", "rollout in progress"}}})},
        {"rollout", {{"generation", 1}, {"step", 2}, {"stepStartedAt", "2026-03-01T12:00:00Z"}}}}}};
}

// The body of cmd_run.cc's `services.publish.appset` callback.
void Publish(actors::StatusBoard& board, metrics::Metrics& metrics, const std::string& name,
             const Json& summary, std::vector<JsonPtr> apps,
             const std::map<std::string, std::string>& clusters, engine::Time now) {
  static const Json kNoStatus;
  const auto status = summary.find("status");
  metrics.AppSetObservedShared(name, status != summary.end() ? *status : kNoStatus, apps, now,
                               clusters);
  board.PublishReconcile(name, summary, std::move(apps));
}

// The floor: what any publish must look at (see the top).
size_t Floor(const Json& summary, const std::vector<JsonPtr>& apps) {
  size_t n = 0;
  for (const Json& e : summary["status"]["applicationStatus"]) {
    n += e.find("application")->get_ref<const std::string&>().size();
  }
  std::vector<JsonPtr> copy = apps;
  return n + copy.size();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 2000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 50;
  const int changed = std::max(1, argc > 3 ? std::atoi(argv[3]) : 1);

  // As cmd_run constructs them.
  actors::StatusBoard board;
  metrics::Metrics metrics;
  std::map<std::string, std::string> clusters;
  for (int i = 0; i < n; ++i) clusters[Name(i)] = Cluster(i);
  const engine::Time now = *engine::ParseRfc3339("2026-03-01T12:05:00Z");

  std::vector<int> versions(n, 0);
  std::vector<JsonPtr> apps;
  for (int i = 0; i < n; ++i) apps.push_back(std::make_shared<const Json>(Application(i, 0)));
  Json summary = Summary(versions);
  double t0 = ThreadCpuMs();
  Publish(board, metrics, "web", summary, apps, clusters, now);
  const double first_ms = ThreadCpuMs() - t0;

  std::vector<double> ms, floor_ms;
  size_t sink = 0;
  for (int r = 0; r < rounds; ++r) {
    // A different `changed` apps each round, spread over the set: a new Application and entry.
    for (int k = 0; k < changed; ++k) {
      const int i = (r * changed + k) * 97 % n;
      apps[i] = std::make_shared<const Json>(Application(i, ++versions[i]));
    }
    summary = Summary(versions);
    std::vector<JsonPtr> handed = apps;  // the engine's result, moved into the callback
    t0 = ThreadCpuMs();
    sink += Floor(summary, handed);
    floor_ms.push_back(ThreadCpuMs() - t0);
    t0 = ThreadCpuMs();
    Publish(board, metrics, "web", summary, std::move(handed), clusters, now);
    ms.push_back(ThreadCpuMs() - t0);
  }

  const double median = Median(ms), floor = Median(floor_ms);
  double load[3] = {0, 0, 0};
  getloadavg(load, 3);
  std::printf(
      "apps=%d: first publish (all new) %.2f ms CPU; %d changed x %d rounds: median %.3f ms, "
      "min %.3f ms CPU per publish; floor (read every entry's name, copy the pointers) median "
      "%.3f ms; publish/floor %.1fx; feed version %llu; load average %.2f %.2f %.2f (%zu)\n",
      n, first_ms, changed, rounds, median, *std::min_element(ms.begin(), ms.end()), floor,
      floor > 0 ? median / floor : 0, static_cast<unsigned long long>(board.feed().version()),
      load[0], load[1], load[2], sink);
  return 0;
}
