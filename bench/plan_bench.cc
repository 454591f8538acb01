// RollingSync planning cost (issue 3): one ApplicationSet with N apps over 10 steps with mixed
// statuses. Reports the median time of one reconcile of the engine on decoded inputs
// (engine::Plan), and of `fleetwave plan` end to end (reading, decoding, planning, printing)
// separately. Usage: plan_bench [--engine-only] [N...]  (default 1000 10000 20000 100000; 20,000
// is issue 18's "one ApplicationSet of 20,000 apps").
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "engine/appset/application.h"
#include "engine/appset/appset.h"
#include "engine/rollingsync/rollout_plan.h"
#include "engine/rollingsync/rollout_status.h"
#include "engine/yaml_json.h"
#include "tools/fleetwave/commands.h"

namespace {

using fleetwave::engine::Json;
namespace engine = fleetwave::engine;

constexpr int kSteps = 10;
const char* kNow = "2026-03-01T12:00:00Z";

std::string Name(int i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "app-%06d", i);
  return buf;
}

// The ApplicationSet as a user writes it (no generators: the live apps are the desired ones),
// with a stored status of N entries: waves 0-3 done, wave 4 in flight, waves 5-9 waiting.
Json AppSetJson(int n) {
  Json steps = Json::array();
  for (int s = 0; s < kSteps; ++s) {
    Json step = {{"matchExpressions",
                  {{{"key", "wave"}, {"operator", "In"}, {"values", {"w" + std::to_string(s)}}}}}};
    if (s % 3 == 1) step["maxUpdate"] = "10%";
    if (s % 3 == 2) step["maxUpdate"] = 25;
    steps.push_back(step);
  }
  Json entries = Json::array();
  for (int i = 0; i < n; ++i) {
    const int wave = i % kSteps;
    const char* status = wave < 4   ? "Healthy"
                         : wave > 4 ? "Waiting"
                                    : (i % 3 == 0   ? "Progressing"
                                       : i % 3 == 1 ? "Pending"
                                                    : "Waiting");
    entries.push_back({{"application", Name(i)},
                       {"status", status},
                       {"message", "earlier message"},
                       {"step", std::to_string(wave + 1)},
                       {"targetRevisions", {"r2"}},
                       {"lastTransitionTime", "2026-03-01T11:55:00Z"}});
  }
  return {
      {"apiVersion", "argoproj.io/v1alpha1"},
      {"kind", "ApplicationSet"},
      {"metadata", {{"name", "bench"}, {"namespace", "argocd"}}},
      {"spec",
       {{"generators", Json::array()},
        {"template",
         {{"metadata", {{"name", "{{name}}"}}},
          {"spec",
           {{"project", "default"},
            {"source", {{"repoURL", "https://git.example/r.git"}, {"path", "apps"}}},
            {"destination", {{"server", "https://kubernetes.default.svc"}, {"namespace", "n"}}}}}}},
        {"strategy", {{"type", "RollingSync"}, {"rollingSync", {{"steps", steps}}}}}}},
      {"status", {{"applicationStatus", entries}}}};
}

Json AppsJson(int n) {
  Json items = Json::array();
  for (int i = 0; i < n; ++i) {
    const int wave = i % kSteps;
    const bool done = wave < 4;
    Json status = {{"sync", {{"status", done ? "Synced" : "OutOfSync"}, {"revision", "r2"}}},
                   {"health", {{"status", wave >= 4 && i % 97 == 0 ? "Degraded" : "Healthy"}}},
                   {"reconciledAt", "2026-03-01T11:59:00Z"}};
    if (wave == 4 && i % 3 == 0) {  // the Progressing ones ran their sync
      status["operationState"] = {{"phase", "Running"}, {"startedAt", "2026-03-01T11:58:00Z"}};
    }
    items.push_back(
        {{"apiVersion", "argoproj.io/v1alpha1"},
         {"kind", "Application"},
         {"metadata",
          {{"name", Name(i)},
           {"namespace", "argocd"},
           {"labels", {{"wave", "w" + std::to_string(wave)}}}}},
         {"spec",
          {{"project", "default"},
           {"source",
            {{"repoURL", "https://git.example/r.git"},
             {"path", "apps"},
             {"targetRevision", "HEAD"}}},
           {"destination",
            {{"server", "https://c" + std::to_string(i) + ".example:6443"}, {"namespace", "n"}}},
           {"syncPolicy", {{"syncOptions", {"CreateNamespace=true"}}}}}},
         {"status", status}});
  }
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
}

double ThreadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// Median of `runs` calls, in milliseconds. The CPU time of this thread is what is reported:
// the bench machine is shared, and wall time there mostly measures the neighbours. `setup`
// runs before each call, untimed.
double MedianMs(
    int runs, const std::function<void()>& f, const std::function<void()>& setup = [] {}) {
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    setup();
    const double t0 = ThreadCpuMs();
    f();
    ms.push_back(ThreadCpuMs() - t0);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

void Bench(int n, bool engine_only) {
  const Json appset_json = AppSetJson(n);
  const Json apps_json = AppsJson(n);

  // Decoded inputs, as the daemon holds them.
  YAML::Node node = YAML::Load(appset_json.dump());
  auto decoded = engine::DecodeApplicationSet(node, "bench.yaml");
  if (!decoded.appset || !decoded.issues.empty()) {
    std::fprintf(stderr, "bench appset does not decode\n");
    std::exit(1);
  }
  engine::DecodedApplications live;
  engine::DecodeApplicationDocument(apps_json, "apps.json", live);
  const auto desired = engine::DesiredFromLive(live.apps);
  const engine::Time now = *engine::ParseRfc3339(kNow);
  const int runs = n >= 100000 ? 7 : 21;
  engine::Issues issues;
  const engine::StoredRolloutStatus stored =
      engine::DecodeStoredRolloutStatus(decoded.appset->status, issues);
  size_t to_sync = 0;
  // The daemon hands the stored status over (it is the previous reconcile's result), so each
  // run gets its own copy, made before the clock starts.
  engine::StoredRolloutStatus handed_over;
  const double engine_ms = MedianMs(
      runs,
      [&] {
        const auto r =
            engine::Plan(*decoded.appset, std::move(handed_over), desired, live.apps, now);
        to_sync = r.apps_to_sync.size();
      },
      [&] { handed_over = stored; });
  // The same, reading the stored status from its JSON document each time (the `plan` path).
  const double engine_json_ms = MedianMs(runs, [&] {
    const auto r = engine::Plan(*decoded.appset, desired, live.apps, now);
    to_sync = r.apps_to_sync.size();
  });

  if (engine_only) {
    std::printf("%7d apps (%zu to sync)  engine::Plan median %8.3f ms (%4.2f us/app)\n", n, to_sync,
                engine_ms, engine_ms * 1000.0 / n);
    return;
  }
  // End to end: files in, JSON out, exactly what `fleetwave plan` does.
  const auto dir =
      std::filesystem::temp_directory_path() / ("fleetwave-plan-bench-" + std::to_string(n));
  std::filesystem::create_directories(dir);
  const std::string set_file = (dir / "appset.json").string();
  const std::string apps_file = (dir / "apps.json").string();
  std::ofstream(set_file) << appset_json.dump();
  std::ofstream(apps_file) << apps_json.dump();
  const double cli_ms = MedianMs(n >= 100000 ? 3 : 7, [&] {
    std::ostringstream out, err;
    if (fleetwave::cli::RunPlan({"--appset", set_file, "--apps", apps_file, "--now", kNow}, out,
                                err) != 0) {
      std::fprintf(stderr, "plan failed: %s\n", err.str().c_str());
      std::exit(1);
    }
  });
  std::filesystem::remove_all(dir);
  std::printf(
      "%7d apps (%zu to sync)  engine::Plan median %8.3f ms (%4.2f us/app)  "
      "with status JSON decode %8.3f ms  fleetwave plan end to end %8.1f ms\n",
      n, to_sync, engine_ms, engine_ms * 1000.0 / n, engine_json_ms, cli_ms);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  bool engine_only = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--engine-only") {
      engine_only = true;
    } else {
      sizes.push_back(std::atoi(argv[i]));
    }
  }
  if (sizes.empty()) sizes = {1000, 10000, 20000, 100000};
  for (int n : sizes) Bench(n, engine_only);
  return 0;
}
