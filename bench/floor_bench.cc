// floor_bench: the least a controller can do to chain two rollouts — the floor that
// fleet_bench compares fleetwave's step advance latency with. On one cluster it watches a
// Deployment (an informer over cluster-clients, the library fleetwave uses) and, the moment
// its rollout completes, server-side-applies another Deployment on a second cluster. No
// planning, no state store, no rendering: only watch event -> decision -> apply.
//
// Each round applies a new image to `floor-a` (cluster A), waits for the informer to see it
// complete (observedGeneration caught up, every replica updated and available), then applies
// the same image to `floor-b` (cluster B) and waits for that apply's reply. fleet_bench
// measures each round from kubesim's own records — the `available` event of floor-a to the
// audit time of the floor-b apply — exactly as it measures fleetwave; this program also
// prints its own callback-to-reply times as a cross-check.
//
//   floor_bench --kubeconfig K --watch sim-0 --apply sim-1 [--rounds 20] [--namespace floor]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cluster-clients/cluster_client.h"
#include "cluster-clients/curl_transport.h"
#include "cluster-clients/informer.h"
#include "cluster-clients/kubeconfig.h"

namespace {

using namespace fleetwave::clients;
using BenchClock = std::chrono::steady_clock;

Json Deployment(const std::string& ns, const std::string& name, const std::string& image) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec",
           {{"replicas", 1},
            {"selector", {{"matchLabels", {{"app", name}}}}},
            {"template",
             {{"metadata", {{"labels", {{"app", name}}}}},
              {"spec", {{"containers", Json::array({{{"name", "c"}, {"image", image}}})}}}}}}}};
}

Json Namespace(const std::string& ns) {
  return {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}};
}

long long Int(const Json& j, const char* pointer) {
  const Json& v = j.value(Json::json_pointer(pointer), Json());
  return v.is_number_integer() ? v.get<long long>() : -1;
}

// Kubernetes' "rollout complete" (kubectl rollout status): the controller observed this
// generation and every replica is updated and available, none left over.
bool Complete(const Projection& p) {
  const long long want = Int(p.fields, "/spec/replicas");
  return Int(p.fields, "/status/observedGeneration") >= p.generation &&
         Int(p.fields, "/status/updatedReplicas") == want &&
         Int(p.fields, "/status/availableReplicas") == want &&
         Int(p.fields, "/status/replicas") == want;
}

}  // namespace

int main(int argc, char** argv) {
  std::string kubeconfig, watch_ctx = "sim-0", apply_ctx = "sim-1", ns = "floor";
  int rounds = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--kubeconfig")
      kubeconfig = v;
    else if (a == "--watch")
      watch_ctx = v;
    else if (a == "--apply")
      apply_ctx = v;
    else if (a == "--rounds")
      rounds = std::max(1, std::atoi(v.c_str()));
    else if (a == "--namespace")
      ns = v;
    else {
      std::cerr << "unknown flag " << a << "\n";
      return 2;
    }
  }
  if (kubeconfig.empty()) {
    std::cerr << "usage: floor_bench --kubeconfig F [--watch CTX] [--apply CTX] [--rounds R]\n";
    return 2;
  }
  KubeconfigSet set = LoadKubeconfigs({kubeconfig});
  const ClusterConfig* a_cfg = nullptr;
  const ClusterConfig* b_cfg = nullptr;
  for (const auto& c : set.clusters) {
    if (c.name == watch_ctx) a_cfg = &c;
    if (c.name == apply_ctx) b_cfg = &c;
  }
  if (!a_cfg || !b_cfg) {
    std::cerr << "contexts " << watch_ctx << " / " << apply_ctx << " not in " << kubeconfig << "\n";
    return 1;
  }

  SerialExecutor executor;  // outlives the transport (executor.h on shutdown order)
  CurlTransport transport;
  auto a = ClusterClient::Create(*a_cfg, &transport, &executor, nullptr);
  auto b = ClusterClient::Create(*b_cfg, &transport, &executor, nullptr);

  std::mutex mu;
  std::condition_variable cv;
  int pending = 0;
  bool failed = false;
  auto done = [&](Result r) {
    std::lock_guard<std::mutex> lock(mu);
    if (!r.ok()) {
      std::cerr << "apply failed: " << r.ToString() << "\n";
      failed = true;
    }
    --pending;
    cv.notify_all();
  };
  auto wait_pending = [&] {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(60), [&] { return pending == 0; }) && !failed;
  };
  const ApplyOptions manager{"floor-bench", true};
  pending = 2;
  a->Apply(Namespace(ns), manager, done);
  b->Apply(Namespace(ns), manager, done);
  if (!wait_pending()) return 1;

  // The round in flight: the generation floor-a must reach before floor-b is applied.
  int round = -1;
  long long target_generation = 0;
  std::string image;
  BenchClock::time_point seen_at{}, replied_at{};
  bool chained = false;

  InformerOptions io;
  io.resource = DeploymentsResource();
  io.ns = ns;
  io.field_selector = "metadata.name=floor-a";
  io.project =
      ProjectFields({"/spec/replicas", "/status/observedGeneration", "/status/updatedReplicas",
                     "/status/availableReplicas", "/status/replicas"});
  auto react = [&](const Projection& p) {
    std::unique_lock<std::mutex> lock(mu);
    if (round < 0 || chained || p.generation < target_generation || !Complete(p)) return;
    chained = true;
    seen_at = BenchClock::now();
    ++pending;
    lock.unlock();
    b->Apply(Deployment(ns, "floor-b", image), manager, [&](Result r) {
      {
        std::lock_guard<std::mutex> l(mu);
        replied_at = BenchClock::now();
      }
      done(r);
    });
  };
  InformerHandlers h;
  h.on_add = react;
  h.on_update = [&](const Projection&, const Projection& p) { react(p); };
  auto informer = Informer::Start(a, io, h, &executor);

  std::vector<double> own_ms;
  for (int r = 0; r <= rounds; ++r) {  // round 0 creates floor-a/floor-b and is not reported
    const std::string img = "registry.local/floor:r" + std::to_string(r);
    {
      std::lock_guard<std::mutex> lock(mu);
      round = -1;
      chained = false;
      image = img;
      pending = 1;
    }
    long long generation = 0;
    a->Apply(Deployment(ns, "floor-a", img), manager, [&](Result res) {
      std::lock_guard<std::mutex> lock(mu);
      if (!res.ok()) {
        std::cerr << "apply failed: " << res.ToString() << "\n";
        failed = true;
      } else {
        generation = Int(res.object, "/metadata/generation");
      }
      --pending;
      cv.notify_all();
    });
    if (!wait_pending()) return 1;
    {
      std::lock_guard<std::mutex> lock(mu);
      target_generation = generation;
      round = r;
    }
    // The rollout may already have completed before `round` was armed (an event the
    // informer delivered meanwhile): look at the cache once.
    if (auto p = informer->Get(ns, "floor-a")) react(*p);
    {
      std::unique_lock<std::mutex> lock(mu);
      if (!cv.wait_for(lock, std::chrono::seconds(60), [&] { return chained && pending == 0; }) ||
          failed) {
        std::cerr << "round " << r << " did not complete\n";
        return 1;
      }
      if (r > 0)
        own_ms.push_back(std::chrono::duration<double, std::milli>(replied_at - seen_at).count());
    }
    std::printf("round %d image %s generation %lld\n", r, img.c_str(), generation);
    std::fflush(stdout);
  }
  informer->Stop();
  std::sort(own_ms.begin(), own_ms.end());
  if (!own_ms.empty())
    std::printf("floor_bench rounds=%zu callback_to_apply_reply_median_ms=%.2f max_ms=%.2f\n",
                own_ms.size(), own_ms[own_ms.size() / 2], own_ms.back());
  return 0;
}
