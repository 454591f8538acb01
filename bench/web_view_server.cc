// The web view's API at a size no kubesim run reaches on this host (issue 33's budget: the first
// load at 20,000 apps under 200 KB and 1 s): a StatusBoard holding S RollingSync sets of N/S
// synthetic apps each, mid-rollout (5 `env` steps of 2/8/20/30/40 %: steps 1-2 Healthy, step 3
// Progressing, two apps of step 1 Degraded, the rest Waiting), served by the daemon's own
// ApiServer. Prints "port P" once listening, then serves until its stdin closes.
// bench/web_view_load.py drives it with headless Chromium.
// Usage: web_view_server [--apps=N] [--sets=S]   (default 20000 apps in 1 set)
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>

#include "actors/status_board.h"
#include "api/api_server.h"

namespace {

using fleetwave::engine::Json;

int StepOf(int i) {
  const int p = i % 100;
  return p < 2 ? 1 : p < 10 ? 2 : p < 30 ? 3 : p < 60 ? 4 : 5;
}

void Publish(fleetwave::actors::StatusBoard& board, const std::string& set, int apps) {
  Json steps = Json::array();
  for (int s = 1; s <= 5; ++s) {
    Json step = {{"matchExpressions", Json::array({Json{{"key", "env"},
                                                        {"operator", "In"},
                                                        {"values", {"e" + std::to_string(s)}}}})}};
    if (s > 1) step["maxUpdate"] = "10%";
    steps.push_back(step);
  }
  Json entries = Json::array();
  std::map<std::string, Json> applications;
  int degraded = 0;
  for (int i = 0; i < apps; ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "%s-cluster-%05d", set.c_str(), i);
    const int step = StepOf(i);
    std::string rollout = step < 3 ? "Healthy" : step == 3 ? "Progressing" : "Waiting";
    std::string health = step < 3 ? "Healthy" : step == 3 ? "Progressing" : "Healthy";
    std::string sync = step <= 3 ? "Synced" : "OutOfSync";
    if (step == 1 && degraded < 2) {
      ++degraded;
      rollout = "Progressing";
      health = "Degraded";
    }
    entries.push_back({{"application", name},
                       {"status", rollout},
                       {"step", std::to_string(step)},
                       {"message", "bench"},
                       {"targetRevisions", {"r2"}}});
    applications[name] = {
        {"apiVersion", "argoproj.io/v1alpha1"},
        {"kind", "Application"},
        {"metadata", {{"name", name}, {"labels", {{"env", "e" + std::to_string(step)}}}}},
        {"spec", {{"destination", {{"name", "cluster-" + std::to_string(i)}}}}},
        {"status",
         {{"health", {{"status", health}}},
          {"sync", {{"status", sync}}},
          {"operationState", {{"phase", "Succeeded"}, {"message", "successfully synced"}}}}}};
  }
  const Json appset = {
      {"metadata", {{"name", set}}},
      {"spec", {{"strategy", {{"type", "RollingSync"}, {"rollingSync", {{"steps", steps}}}}}}},
      {"status",
       {{"rollout", {{"step", 1}, {"generation", 2}}},
        {"applicationStatus", entries},
        {"conditions",
         Json::array({Json{{"type", "RolloutProgressing"},
                           {"status", "True"},
                           {"reason", "ApplicationSetModified"},
                           {"message", "ApplicationSet is performing rollout of step 1"}}})}}}};
  board.PublishAppSet(set, appset, std::move(applications));
}

}  // namespace

int main(int argc, char** argv) {
  int apps = 20000, sets = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--apps=", 0) == 0) apps = std::atoi(arg.c_str() + 7);
    if (arg.rfind("--sets=", 0) == 0) sets = std::atoi(arg.c_str() + 7);
  }
  if (apps <= 0 || sets <= 0) {
    std::fprintf(stderr, "usage: web_view_server [--apps=N] [--sets=S]\n");
    return 2;
  }
  fleetwave::actors::StatusBoard board;
  board.SetReady(true);
  for (int s = 0; s < sets; ++s) Publish(board, "set-" + std::to_string(s), apps / sets);
  fleetwave::api::ApiServer server(
      board, [](const fleetwave::api::ApiCommand&) { return fleetwave::api::ApiCommandResult{}; });
  fleetwave::api::ApiServerOptions options;
  options.listen = "127.0.0.1:0";
  if (auto error = server.Start(options)) {
    std::fprintf(stderr, "web_view_server: %s\n", error->c_str());
    return 1;
  }
  std::printf("port %d\n", server.port());
  std::fflush(stdout);
  std::string line;
  while (std::getline(std::cin, line)) {
  }
  server.Stop();
  return 0;
}
