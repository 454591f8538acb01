// Publishing one reconcile's result (issue 18): the daemon's `services.publish.appset` callback
// (tools/fleetwave/cmd_run.cc) feeds the metrics (metrics::Metrics::AppSetObserved) and the
// API's StatusBoard (with its watch feed) after every reconcile of a set. This times that path
// for one set of N Argo-shaped Applications: first with everything new, then repeatedly with 1 %
// of the apps changed (a rollout's steady state: a few apps sync or turn healthy per reconcile).
// Building the inputs is not timed; the CPU time of the publishing thread is.
//
// Usage: publish_bench [apps (2000)] [rounds (50)] [changed per mille (10)]
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
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

struct Result {
  Json summary;
  std::vector<Json> applications;
};

Result Build(const std::vector<int>& versions) {
  Result r;
  Json entries = Json::array();
  for (size_t i = 0; i < versions.size(); ++i) {
    r.applications.push_back(Application(static_cast<int>(i), versions[i]));
    entries.push_back(Entry(static_cast<int>(i), versions[i]));
  }
  r.summary = Json{
      {"metadata", {{"name", "web"}}},
      {"spec", {{"file", "/etc/fleetwave/sets/web.yaml"}, {"strategy", {{"type", "RollingSync"}}}}},
      {"status",
       {{"applicationStatus", std::move(entries)},
        {"conditions", Json::array({{{"type", "RolloutProgressing"},
                                     {"status", "True"},
                                     {"reason", "ApplicationSetModified"},
                                     {"message", "rollout in progress"}}})},
        {"rollout", {{"generation", 1}, {"step", 2}, {"stepStartedAt", "2026-03-01T12:00:00Z"}}}}}};
  return r;
}

// The body of cmd_run.cc's `services.publish.appset` callback.
void Publish(actors::StatusBoard& board, metrics::Metrics& metrics, const std::string& name,
             const Json& summary, std::vector<Json> apps,
             const std::map<std::string, std::string>& clusters, engine::Time now) {
  static const Json kNoStatus;
  const auto status = summary.find("status");
  metrics.AppSetObserved(name, status != summary.end() ? *status : kNoStatus, apps, now, clusters);
  board.PublishReconcile(name, summary, std::move(apps));
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 2000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 50;
  const int per_mille = argc > 3 ? std::atoi(argv[3]) : 10;
  const int changed = std::max(1, n * per_mille / 1000);

  // As cmd_run constructs them.
  actors::StatusBoard board;
  metrics::Metrics metrics;
  std::map<std::string, std::string> clusters;
  for (int i = 0; i < n; ++i) clusters[Name(i)] = Cluster(i);
  const engine::Time now = *engine::ParseRfc3339("2026-03-01T12:05:00Z");

  std::vector<int> versions(n, 0);
  Result first = Build(versions);
  double t0 = ThreadCpuMs();
  Publish(board, metrics, "web", first.summary, std::move(first.applications), clusters, now);
  const double first_ms = ThreadCpuMs() - t0;

  std::vector<double> ms;
  for (int r = 0; r < rounds; ++r) {
    // A different `changed` apps each round, spread over the set.
    for (int k = 0; k < changed; ++k) ++versions[(r * changed + k) * 97 % n];
    Result next = Build(versions);
    t0 = ThreadCpuMs();
    Publish(board, metrics, "web", next.summary, std::move(next.applications), clusters, now);
    ms.push_back(ThreadCpuMs() - t0);
  }
  // The floor no publish can go under with this interface: freeing the 2,000 Applications the
  // engine built for the reconcile (the callback receives them by value).
  Result spare = Build(versions);
  t0 = ThreadCpuMs();
  { std::vector<Json> gone = std::move(spare.applications); }
  const double free_ms = ThreadCpuMs() - t0;

  std::sort(ms.begin(), ms.end());
  double sum = 0;
  for (double v : ms) sum += v;
  double load[3] = {0, 0, 0};
  getloadavg(load, 3);
  std::printf(
      "apps=%d: first publish (all new) %.2f ms CPU; %d changed (%d per mille) x %d rounds: "
      "median %.3f ms, mean %.3f ms, min %.3f ms CPU per publish (freeing the input alone: "
      "%.3f ms); feed version %llu; load average %.2f %.2f %.2f\n",
      n, first_ms, changed, per_mille, rounds, ms.empty() ? 0 : ms[ms.size() / 2],
      ms.empty() ? 0 : sum / ms.size(), ms.empty() ? 0 : ms.front(), free_ms,
      static_cast<unsigned long long>(board.feed().version()), load[0], load[1], load[2]);
  return 0;
}
