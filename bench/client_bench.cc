// client_bench: one process watching Deployments and CloneSets on N clusters through
// cluster-clients (informers over libcurl multi), as a fleetwave daemon would. Reports the
// time to sync, open connections, RSS, CPU at rest, the latency from a change (a
// merge-patch sent to kubesim) to the informer's update callback (median, p99), and the CPU
// time per change (I/O threads' own CPU clock, and the whole process's) — CPU time, unlike
// latency, does not depend on how busy the shared host is.
//
// CPU per event is the I/O thread's CPU over the change window, less what that thread spends
// on background work in the same time (bookmarks every ~60 s per watch, watches re-opened at
// their 5-10 min timeout, stall timers), divided by the watch events delivered in the window.
// The background grows with the number of watches while the change rate falls with the
// host's load, so it inflates the raw quotient (`io_cpu_us_per_change_raw`) at large fleets;
// its rate is the one measured at rest just before the changes. Under
// `valgrind --tool=callgrind --separate-threads=yes --instr-atstart=no`, only the window named
// by `--profile rest|changes` (default: changes) is instrumented, so the I/O thread's profile
// file (`*-03`) counts that window's instructions alone.
//
//   kubesim --clusters 1000 --ports --tls --listen 127.0.0.1:0 --kubeconfig-out /tmp/k.yaml
//   client_bench --kubeconfig /tmp/k.yaml [--io-threads 1] [--changes 500] [--rest-seconds 10]
//                [--http2 1] [--in-flight 20] [--rate R] [--watch-timeout-minutes M]
//                [--profile rest|changes]
#include <sys/resource.h>

#include <dirent.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define BENCH_PROFILE_START() CALLGRIND_START_INSTRUMENTATION
#define BENCH_PROFILE_STOP() CALLGRIND_STOP_INSTRUMENTATION
#else
#define BENCH_PROFILE_START()
#define BENCH_PROFILE_STOP()
#endif

#include "cluster-clients/cluster_client.h"
#include "cluster-clients/curl_transport.h"
#include "cluster-clients/informer.h"
#include "cluster-clients/kubeconfig.h"

namespace {

using namespace fleetwave::clients;
using BenchClock = std::chrono::steady_clock;

long RssKb() {
  std::ifstream f("/proc/self/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

int OpenSockets() {
  int n = 0;
  DIR* d = opendir("/proc/self/fd");
  if (!d) return -1;
  while (dirent* e = readdir(d)) {
    char link[256];
    const std::string p = std::string("/proc/self/fd/") + e->d_name;
    const ssize_t len = readlink(p.c_str(), link, sizeof link - 1);
    if (len > 0 && std::strncmp(link, "socket:", 7) == 0) ++n;
  }
  closedir(d);
  return n;
}

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

template <typename T>
T Await(const std::function<void(std::function<void(T)>)>& start) {
  std::mutex mu;
  std::condition_variable cv;
  std::optional<T> v;
  start([&](T x) {
    std::lock_guard<std::mutex> lock(mu);
    v = std::move(x);
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return v.has_value(); });
  return std::move(*v);
}

Json Workload(const std::string& api_version, const std::string& kind) {
  return {
      {"apiVersion", api_version},
      {"kind", kind},
      {"metadata", {{"name", "bench"}, {"namespace", "default"}, {"labels", {{"bench", "yes"}}}}},
      {"spec",
       {{"replicas", 1},
        {"selector", {{"matchLabels", {{"app", "bench"}}}}},
        {"template",
         {{"metadata", {{"labels", {{"app", "bench"}}}}},
          {"spec", {{"containers", Json::array({{{"name", "c"}, {"image", "nginx:1"}}})}}}}}}}};
}

double IoCpuSeconds(const std::vector<std::unique_ptr<CurlTransport>>& transports) {
  double s = 0;
  for (const auto& t : transports) s += t->LoopCpuSeconds();
  return s;
}

// Watch events the informers handled (ADDED/MODIFIED/DELETED and relist diffs) and watch
// restarts, summed over all informers.
struct InformerTotals {
  long events = 0, restarts = 0, lists = 0;
};
InformerTotals Totals(const std::vector<std::shared_ptr<Informer>>& informers) {
  InformerTotals t;
  for (const auto& inf : informers) {
    const InformerStats s = inf->stats();
    t.events += s.events;
    t.restarts += s.watch_restarts;
    t.lists += s.lists;
  }
  return t;
}

// User and system CPU seconds of the process's `index`-th thread by creation order (thread
// ids ascend): 0 main, 1 the executor, 2 the first watching I/O thread. {-1, -1} if unknown.
std::pair<double, double> ThreadUserSys(std::size_t index) {
  std::vector<long> tids;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') tids.push_back(std::atol(e->d_name));
    closedir(d);
  }
  std::sort(tids.begin(), tids.end());
  if (index >= tids.size()) return {-1, -1};
  std::ifstream f("/proc/self/task/" + std::to_string(tids[index]) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return {-1, -1};
  std::istringstream rest(stat.substr(close + 2));
  std::string field;
  double user = -1, sys = -1;
  for (int i = 3; rest >> field; ++i) {  // field 3 is the state; 14 utime, 15 stime
    if (i == 14) user = std::atof(field.c_str());
    if (i == 15) {
      sys = std::atof(field.c_str());
      break;
    }
  }
  const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  return {user / hz, sys / hz};
}

std::string LoadAverage() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + "," + b + "," + c;
}

}  // namespace

int main(int argc, char** argv) {
  std::string kubeconfig;
  int io_threads = 1, changes = 500, rest_seconds = 10, max_clusters = 0, in_flight = 20;
  bool http2 = false;
  double rate = 0;  // changes per second; 0 = as fast as `in_flight` allows
  // Watch timeoutSeconds; 0 = the client's default (5-10 min). kubesim ends every watch
  // response with `Connection: close`, so each re-opened watch is a new TLS handshake: with
  // a sync of minutes at 2,000 clusters they land in the measured windows.
  int watch_timeout_minutes = 0;
  std::string profile = "changes";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--kubeconfig")
      kubeconfig = v;
    else if (a == "--io-threads")
      io_threads = std::max(1, std::atoi(v.c_str()));
    else if (a == "--changes")
      changes = std::atoi(v.c_str());
    else if (a == "--rest-seconds")
      rest_seconds = std::atoi(v.c_str());
    else if (a == "--clusters")
      max_clusters = std::atoi(v.c_str());
    else if (a == "--in-flight")
      in_flight = std::max(1, std::atoi(v.c_str()));
    else if (a == "--watch-timeout-minutes")
      watch_timeout_minutes = std::atoi(v.c_str());
    else if (a == "--rate")
      rate = std::atof(v.c_str());
    else if (a == "--profile")
      profile = v;
    else if (a == "--http2")
      http2 = v == "1" || v == "true";
    else {
      std::cerr << "unknown flag " << a << "\n";
      return 2;
    }
  }
  if (kubeconfig.empty()) {
    std::cerr << "usage: client_bench --kubeconfig F [--clusters N] [--io-threads K] "
                 "[--changes M] [--rest-seconds S] [--in-flight P] [--http2 1] "
                 "[--rate R] [--watch-timeout-minutes M] [--profile rest|changes]\n";
    return 2;
  }
  rlimit rl{};
  getrlimit(RLIMIT_NOFILE, &rl);
  rl.rlim_cur = rl.rlim_max;
  setrlimit(RLIMIT_NOFILE, &rl);

  KubeconfigSet set = LoadKubeconfigs({kubeconfig});
  if (!set.errors.empty()) {
    std::cerr << fleetwave::engine::FormatIssue(set.errors[0]) << "\n";
    return 1;
  }
  if (max_clusters > 0 && static_cast<int>(set.clusters.size()) > max_clusters)
    set.clusters.resize(static_cast<std::size_t>(max_clusters));
  const int n = static_cast<int>(set.clusters.size());
  const long rss_start = RssKb();

  SerialExecutor executor;  // outlives the transports (see executor.h on shutdown order)
  std::vector<std::unique_ptr<CurlTransport>> transports;
  for (int i = 0; i < io_threads; ++i) transports.push_back(std::make_unique<CurlTransport>());
  // The bench's own writes (setup and the PATCHes) go through a separate transport and
  // clients, so the watching I/O threads' CPU clock counts event delivery only.
  auto writer_transport = std::make_unique<CurlTransport>();
  std::vector<std::shared_ptr<ClusterClient>> clients, writers;
  for (int i = 0; i < n; ++i) {
    ClientOptions o;
    o.rate_limit = {50, 100};
    o.http2 = http2;
    if (watch_timeout_minutes > 0)
      o.watch_timeout_min = o.watch_timeout_max = std::chrono::minutes(watch_timeout_minutes);
    clients.push_back(ClusterClient::Create(set.clusters[i], transports[i % io_threads].get(),
                                            &executor, nullptr, o));
    writers.push_back(
        ClusterClient::Create(set.clusters[i], writer_transport.get(), &executor, nullptr, o));
  }

  // One Deployment and one CloneSet per cluster to change later.
  const auto t_setup = BenchClock::now();
  std::atomic<int> applied{0}, apply_failed{0};
  // At most 200 applies in flight: thousands of simultaneous TLS handshakes on two shared
  // cores overrun the connect timeout.
  int started = 0;
  for (auto& c : writers)
    for (const Json& obj :
         {Workload("apps/v1", "Deployment"), Workload("apps.kruise.io/v1alpha1", "CloneSet")}) {
      while (started - (applied + apply_failed) >= 200)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      ++started;
      c->Apply(obj, {"client-bench", true}, [&](Result r) { (r.ok() ? applied : apply_failed)++; });
    }
  while (applied + apply_failed < 2 * n) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::cerr << "applied " << applied << " objects (" << apply_failed << " failed) in "
            << ToMillis(BenchClock::now() - t_setup) << " ms\n";

  // Latency bookkeeping: (cluster, kind, seq) -> send time.
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, BenchClock::time_point> sent;
  std::vector<double> latencies_ms;
  std::atomic<int> synced{0};

  const auto t_start = BenchClock::now();
  std::vector<std::shared_ptr<Informer>> informers;
  for (int i = 0; i < n; ++i) {
    for (const ResourceRef& ref : {DeploymentsResource(), CloneSetsResource()}) {
      InformerOptions io;
      io.resource = ref;
      io.project = ProjectFields(
          {"/metadata/annotations/bench-seq", "/spec/replicas", "/status/observedGeneration"});
      InformerHandlers h;
      h.on_synced = [&] { ++synced; };
      const std::string prefix = set.clusters[i].name + "/" + ref.kind + "/";
      h.on_update = [&, prefix](const Projection&, const Projection& p) {
        const Json& seq = p.fields.value("/metadata/annotations/bench-seq"_json_pointer, Json());
        if (!seq.is_string()) return;
        const auto now = BenchClock::now();
        std::lock_guard<std::mutex> lock(mu);
        auto it = sent.find(prefix + seq.get<std::string>());
        if (it == sent.end()) return;
        latencies_ms.push_back(std::chrono::duration<double, std::milli>(now - it->second).count());
        sent.erase(it);
        cv.notify_all();
      };
      informers.push_back(Informer::Start(clients[i], io, h, &executor));
    }
  }
  while (synced < 2 * n) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const auto sync_ms = ToMillis(BenchClock::now() - t_start);
  // Let the first list+watch bursts and controller updates settle before measuring rest.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const long rss_synced = RssKb();
  const int sockets = OpenSockets();

  const double cpu0 = CpuSeconds(), io_cpu0 = IoCpuSeconds(transports);
  const InformerTotals rest0 = Totals(informers);
  const auto t_rest = BenchClock::now();
  if (profile == "rest") BENCH_PROFILE_START();
  std::this_thread::sleep_for(std::chrono::seconds(rest_seconds));
  if (profile == "rest") BENCH_PROFILE_STOP();
  const double rest_s = std::chrono::duration<double>(BenchClock::now() - t_rest).count();
  const double cpu_rest = (CpuSeconds() - cpu0) / rest_s * 100.0;
  const double io_background_per_s = (IoCpuSeconds(transports) - io_cpu0) / rest_s;
  const double io_cpu_rest = io_background_per_s * 100.0;
  const InformerTotals rest1 = Totals(informers);
  const std::string load_at_rest = LoadAverage();

  // CPU per change: from the first PATCH until every callback arrived. Per change the
  // watching I/O thread reads one watch event, decodes and projects it (the PATCH itself is
  // the writer transport's); the process figure includes the writer and the executor.
  const double cpu_changes0 = CpuSeconds(), io_cpu_changes0 = IoCpuSeconds(transports);
  const InformerTotals window0 = Totals(informers);
  const auto io_us0 = ThreadUserSys(2);
  if (profile == "changes") BENCH_PROFILE_START();

  // Changes: merge-patch an annotation, at most `in_flight` outstanding. The CPU per event
  // depends on the event rate (at a high rate one loop wake-up reads several events and the
  // caches stay warm), so sizes are compared at one fixed `--rate`.
  const auto t_changes = BenchClock::now();
  for (int k = 0; k < changes; ++k) {
    if (rate > 0)
      std::this_thread::sleep_until(
          t_changes + std::chrono::duration_cast<BenchClock::duration>(
                          std::chrono::duration<double>(static_cast<double>(k) / rate)));
    const int i = k % n;
    const bool clone = (k / n) % 2 == 1;
    const ResourceRef ref = clone ? CloneSetsResource() : DeploymentsResource();
    const std::string seq = std::to_string(k);
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait_for(lock, std::chrono::seconds(10),
                  [&] { return static_cast<int>(sent.size()) < in_flight; });
      sent[set.clusters[i].name + "/" + ref.kind + "/" + seq] = BenchClock::now();
    }
    writers[i]->MergePatch(ref, "default", "bench",
                           {{"metadata", {{"annotations", {{"bench-seq", seq}}}}}}, [](Result) {});
  }
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait_for(lock, std::chrono::seconds(30), [&] { return sent.empty(); });
  }
  const double changes_s = std::chrono::duration<double>(BenchClock::now() - t_changes).count();
  const double cpu_changes = CpuSeconds() - cpu_changes0;
  const double io_cpu_changes = IoCpuSeconds(transports) - io_cpu_changes0;
  if (profile == "changes") BENCH_PROFILE_STOP();
  const InformerTotals window1 = Totals(informers);
  const auto io_us1 = ThreadUserSys(2);
  const long window_events = window1.events - window0.events;
  // The I/O thread's background, at the rate measured at rest, over the change window.
  const double io_background = io_background_per_s * changes_s;
  const double io_cpu_per_event = window_events > 0 ? (io_cpu_changes - io_background) * 1e6 /
                                                          static_cast<double>(window_events)
                                                    : -1.0;
  std::vector<double> l;
  std::size_t lost;
  {
    std::lock_guard<std::mutex> lock(mu);
    l = latencies_ms;
    lost = sent.size();
  }
  std::sort(l.begin(), l.end());
  auto pct = [&](double q) {
    return l.empty() ? -1.0
                     : l[std::min(l.size() - 1,
                                  static_cast<std::size_t>(q * static_cast<double>(l.size())))];
  };
  std::int64_t watch_sockets = 0, h2 = 0, h1 = 0;
  for (const auto& t : transports) {
    const auto st = t->stats();
    watch_sockets += st.sockets_open;
    h2 += st.responses_http2;
    h1 += st.responses_http1;
  }
  const double per_change = l.empty() ? -1.0 : 1e6 / static_cast<double>(l.size());
  long watch_restarts = 0, expired = 0;
  for (auto& inf : informers) {
    watch_restarts += inf->stats().watch_restarts;
    expired += inf->stats().expired;
  }
  std::printf(
      "clusters=%d informers=%zu io_threads=%d sync_ms=%lld sockets=%d rss_start_mb=%.1f "
      "watch_sockets=%lld rss_synced_mb=%.1f cpu_at_rest_pct=%.2f io_cpu_at_rest_pct=%.2f "
      "changes=%zu lost=%zu changes_per_s=%.0f latency_median_ms=%.2f latency_p99_ms=%.2f "
      "latency_max_ms=%.2f io_cpu_us_per_event=%.1f io_cpu_us_per_change_raw=%.1f "
      "window_s=%.2f window_events=%ld window_restarts=%ld window_lists=%ld "
      "io_background_us_per_s=%.0f io_background_pct_of_window=%.0f rest_events=%ld "
      "rest_restarts=%ld io_window_user_s=%.2f io_window_sys_s=%.2f "
      "process_cpu_us_per_change=%.1f "
      "responses_h2=%lld responses_h1=%lld watch_restarts=%ld expired=%ld loadavg_rest=%s "
      "loadavg_end=%s\n",
      n, informers.size(), io_threads, static_cast<long long>(sync_ms), sockets, rss_start / 1024.0,
      static_cast<long long>(watch_sockets), rss_synced / 1024.0, cpu_rest, io_cpu_rest, l.size(),
      lost, static_cast<double>(l.size()) / changes_s, pct(0.5), pct(0.99),
      l.empty() ? -1.0 : l.back(), io_cpu_per_event, io_cpu_changes * per_change, changes_s,
      window_events, window1.restarts - window0.restarts, window1.lists - window0.lists,
      io_background_per_s * 1e6, io_cpu_changes > 0 ? io_background / io_cpu_changes * 100.0 : 0.0,
      rest1.events - rest0.events, rest1.restarts - rest0.restarts, io_us1.first - io_us0.first,
      io_us1.second - io_us0.second, cpu_changes * per_change, static_cast<long long>(h2),
      static_cast<long long>(h1), watch_restarts, expired, load_at_rest.c_str(),
      LoadAverage().c_str());
  std::fflush(stdout);
  for (auto& inf : informers) inf->Stop();
  executor.Shutdown();
  transports.clear();
  writer_transport.reset();
  return lost == 0 ? 0 : 1;
}
