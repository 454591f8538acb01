#include "tools/fleetwave/doctor_check.h"

#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "cluster-clients/curl_transport.h"
#include "cluster-clients/executor.h"

namespace fleetwave::cli {
namespace {

using clients::Problem;
using clients::Result;

// Shared by the callbacks of one cluster's checks. Guarded by Run::mu.
struct ClusterRun {
  DoctorReport report;
  int pending = 0;
  bool done = false;
  std::string first_problem;
};

struct Run {
  std::mutex mu;
  std::condition_variable cv;
  int clusters_left = 0;
};

std::string Plural(const clients::ResourceRef& r) {
  return r.group.empty() ? r.resource : r.resource + "." + r.group;
}

}  // namespace

std::optional<clients::ResourceRef> WorkloadResource(const std::string& kind) {
  if (kind == "CloneSet") return clients::CloneSetsResource();
  if (kind == "Deployment") return clients::DeploymentsResource();
  if (kind == "StatefulSet") return clients::StatefulSetsResource();
  if (kind == "DaemonSet") return clients::DaemonSetsResource();
  return std::nullopt;
}

// Every line starts with what went wrong in plain words, then what was attempted and what
// the server or network said; none prints the client's internal outcome classes
// ("transient", "permanent"). Pinned line by line by DoctorTest.ProblemLinesByKind.
std::string ProblemLine(const Result& r, const std::string& what) {
  const std::string detail = r.message.empty() ? "" : ": " + r.message;
  const std::string http =
      r.http_status > 0 ? " (HTTP " + std::to_string(r.http_status) + ")" : std::string();
  auto starts_with = [&r](const char* prefix) { return r.message.rfind(prefix, 0) == 0; };
  switch (r.problem) {
    case Problem::kTls:
      return "TLS/CA: the server's certificate is not trusted or the handshake failed; check "
             "certificate-authority(-data) in the kubeconfig" +
             detail;
    case Problem::kUnauthorized:
      return "unauthorized: the server rejected the credentials (401); check the token, "
             "client certificate or exec plugin";
    case Problem::kForbidden:
      return "forbidden: may not " + what + detail;
    case Problem::kTimeout:
      // The client's own timeouts already read "timeout: no answer from <server>"; a 408 or
      // 504 comes from the server or a proxy in front of it.
      if (starts_with("timeout:")) return r.message;
      return "timeout: the server or a proxy gave up on " + what + http + detail;
    case Problem::kNoProgress:
      // The client's own words: "no progress: <server> accepted ... and sent nothing for N s".
      return r.message;
    case Problem::kConnectionRefused:
      if (starts_with("connection refused:")) return r.message;
      return "connection refused: nothing answers for " + what + detail;
    case Problem::kDns:
      if (starts_with("DNS:")) return r.message;
      return "DNS: cannot resolve the server's host for " + what + detail;
    case Problem::kConnection:
      return "connection broken: the connection closed during " + what +
             " (a proxy, load balancer or the server dropped it)" + detail;
    case Problem::kThrottled:
      return "throttled: the server asks fleetwave to slow down" + http + " on " + what + detail;
    case Problem::kServerError:
      return "server error: the API server failed to " + what + http + detail;
    case Problem::kExpired:
      return "expired: the server no longer has the version asked for in " + what + http + detail;
    case Problem::kCredentials:
      return "credentials: " + r.message;
    case Problem::kRequest:
      if (r.http_status == 404)
        return "not found: " + what +
               " does not exist on this server (HTTP 404); is the server URL a Kubernetes API "
               "server?";
      return "request rejected: the server refused to " + what + http + detail;
    default:
      return "failed: could not " + what + detail;
  }
}

std::vector<DoctorReport> CheckClusters(const std::vector<clients::ClusterConfig>& clusters,
                                        const DoctorOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + options.budget;
  std::vector<clients::ResourceRef> kinds;
  for (const auto& k : options.kinds)
    if (auto r = WorkloadResource(k)) kinds.push_back(*r);

  // Declared before the clients and transport so that it outlives every callback.
  auto run = std::make_shared<Run>();
  std::vector<std::shared_ptr<ClusterRun>> states;
  for (const auto& c : clusters) {
    auto s = std::make_shared<ClusterRun>();
    s->report.cluster = c.name;
    states.push_back(s);
  }
  run->clusters_left = static_cast<int>(clusters.size());

  // Destroyed in reverse: plugin runs finish first (they post to the transport), then the
  // I/O thread stops (it submits to the executor, shut down by then), then the executor.
  clients::SerialExecutor executor;
  clients::CurlTransport transport;
  clients::ExecRunner exec_runner(4, options.budget);

  // Called with run->mu held.
  auto finish_one = [run](ClusterRun& s) {
    if (--s.pending > 0 || s.done) return;
    s.done = true;
    s.report.ok = s.first_problem.empty();
    s.report.problem = s.first_problem;
    --run->clusters_left;
    run->cv.notify_all();
  };

  clients::ClientOptions o;
  o.max_attempts = 1;  // one clear answer, fast: the doctor does not retry
  o.request_timeout = options.budget - std::chrono::milliseconds(500);
  o.connect_timeout = o.request_timeout;
  o.rate_limit = {0, 1};
  o.log = [](const std::string&) {};
  std::vector<std::shared_ptr<clients::ClusterClient>> live;
  for (std::size_t i = 0; i < clusters.size(); ++i) {
    auto client =
        clients::ClusterClient::Create(clusters[i], &transport, &executor, &exec_runner, o);
    live.push_back(client);
    auto s = states[i];
    std::lock_guard<std::mutex> lock(run->mu);
    s->pending = 1;
    const auto sent = std::chrono::steady_clock::now();
    client->ServerVersion([run, s, client, kinds, sent, finish_one](Result r) {
      const auto now = std::chrono::steady_clock::now();
      std::lock_guard<std::mutex> lock(run->mu);
      if (!r.ok()) {
        s->first_problem = ProblemLine(r, "get /version");
        finish_one(*s);
        return;
      }
      s->report.latency_ms = clients::ToMillis(now - sent);
      s->report.version = r.object.value("gitVersion", "");
      // The first answer paid for TCP and TLS set-up; a second one on the warm connection is
      // the round trip every later request pays.
      ++s->pending;
      const auto resent = std::chrono::steady_clock::now();
      client->ServerVersion([run, s, resent, finish_one](Result again) {
        const auto at = std::chrono::steady_clock::now();
        std::lock_guard<std::mutex> lock(run->mu);
        if (again.ok())
          s->report.latency_ms = std::min(*s->report.latency_ms, clients::ToMillis(at - resent));
        finish_one(*s);
      });
      // May fleetwave list and watch what it needs? One small list and one short watch each.
      for (const auto& ref : kinds) {
        ++s->pending;
        clients::ListOptions lo;
        lo.limit = 1;
        client->List(ref, lo, [run, s, client, ref, finish_one](clients::ListResult lr) {
          std::lock_guard<std::mutex> lock(run->mu);
          if (!lr.result.ok()) {
            // A kind the cluster does not serve (no Kruise installed) is not a problem here.
            if (lr.result.outcome != clients::Outcome::kNotFound && s->first_problem.empty())
              s->first_problem = ProblemLine(lr.result, "list " + Plural(ref));
            finish_one(*s);
            return;
          }
          clients::WatchOptions wo;
          wo.resource_version = lr.resource_version;
          wo.timeout_seconds = 1;
          auto handle = std::make_shared<std::shared_ptr<clients::WatchHandle>>();
          *handle = client->Watch(
              ref, wo, [](clients::WatchEvent) {},
              [run, s, ref, finish_one, handle](Result end) {
                std::lock_guard<std::mutex> lock(run->mu);
                if (!end.ok() && s->first_problem.empty())
                  s->first_problem = ProblemLine(end, "watch " + Plural(ref));
                handle->reset();
                finish_one(*s);
              });
        });
      }
      finish_one(*s);
    });
  }

  std::unique_lock<std::mutex> lock(run->mu);
  run->cv.wait_until(lock, deadline, [&] { return run->clusters_left == 0; });
  std::vector<DoctorReport> out;
  const long long budget_s = clients::ToMillis(options.budget) / 1000;
  for (std::size_t i = 0; i < states.size(); ++i) {
    ClusterRun& s = *states[i];
    if (!s.done) {
      s.report.ok = false;
      s.report.problem = s.first_problem.empty()
                             ? "timeout: no complete answer from " + clusters[i].server +
                                   " within " + std::to_string(budget_s) + "s"
                             : s.first_problem;
    }
    out.push_back(s.report);
  }
  lock.unlock();
  // Callbacks may call into clients: stop them before the transport goes; the transport's
  // destructor then cancels whatever still hangs.
  executor.Shutdown();
  return out;
}

}  // namespace fleetwave::cli
