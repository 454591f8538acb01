// A Kubernetes REST client for one cluster, built on a `Transport` event loop: discovery and
// REST mapping, get/list/watch/apply/merge-patch/delete, per-cluster rate limiting (QPS and
// burst), jittered exponential backoff with Retry-After for transient failures, credential
// refresh on 401, and results as values (result.h).
//
// Thread-safety: every public method may be called from any thread; the work hops onto the
// transport's loop thread, where all of the client's state lives. Public callbacks run on the
// `Executor` given at creation, never on the loop thread. Methods whose names end in `OnLoop`
// are for building blocks that live on the loop themselves (the informer): REQUIRES the loop
// thread, and they call back on the loop thread.
//
// Lifetime: clients are shared_ptr-owned; pending work keeps a client alive. What waits on a
// request is owned by that request, never by the client, so a transport that drops its requests
// unanswered (it stops) frees their clients too. The transport, executor and exec runner must
// outlive every client that uses them.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster-clients/backoff.h"
#include "cluster-clients/credentials.h"
#include "cluster-clients/executor.h"
#include "cluster-clients/kubeconfig.h"
#include "cluster-clients/rate_limiter.h"
#include "cluster-clients/request_observer.h"
#include "cluster-clients/result.h"
#include "cluster-clients/transport.h"
#include "cluster-clients/watch_decoder.h"

namespace fleetwave::clients {

// A resource collection as the REST mapping names it.
struct ResourceRef {
  std::string group;     // "" for the core group
  std::string version;   // "v1"
  std::string resource;  // plural: "deployments"
  std::string kind;      // "Deployment"
  bool namespaced = true;

  std::string ApiVersion() const { return group.empty() ? version : group + "/" + version; }
  bool operator==(const ResourceRef&) const = default;
};

// The kinds fleetwave itself needs, so callers need no discovery round trip for them.
ResourceRef NamespacesResource();
ResourceRef DeploymentsResource();
ResourceRef StatefulSetsResource();
ResourceRef DaemonSetsResource();
ResourceRef CloneSetsResource();  // apps.kruise.io/v1alpha1

struct ClientOptions {
  RateLimit rate_limit;
  BackoffPolicy backoff;
  int max_attempts = 5;  // per request, including the first; transient failures only
  // The whole request, retries aside. Above the API server's own 60 s default, so a slow
  // request the server still works on ends there first.
  Duration request_timeout = seconds(60);
  Duration connect_timeout = seconds(5);
  // A request whose response sends no byte for this long, or a watch whose response headers
  // do not arrive within it, fails with Problem::kNoProgress (a hung server) and is not
  // retried: the caller hears at once. Above the 30 s an admission webhook may take.
  Duration progress_timeout = seconds(30);
  // HTTP/2 where the server offers it by ALPN (all of a cluster's requests and watches on one
  // connection), HTTP/1.1 with keep-alive elsewhere and over plain http (issue 26).
  bool http2 = true;
  std::string user_agent = "fleetwave/0.1.0";
  // Watches end after a random timeoutSeconds in [min, max], as client-go's reflector does,
  // so thousands of watches do not reconnect together.
  Duration watch_timeout_min = std::chrono::minutes(5);
  Duration watch_timeout_max = std::chrono::minutes(10);
  // A watch that delivers nothing (not even a bookmark) for this long is presumed dead.
  // Must stay well above the ~60 s between bookmarks of an idle watch.
  Duration watch_stall_timeout = seconds(150);
  Duration discovery_min_refresh = seconds(30);  // an unknown kind refreshes at most this often
  std::uint64_t seed = 0;                        // 0 = random (jitter, watch timeouts)
  std::function<void(const std::string&)> log;   // warnings; nullptr = stderr
  // Told of every request attempt and watch restart (metrics); nullptr = nobody. Must outlive
  // the client.
  RequestObserver* observer = nullptr;
  // What a hostile or broken cluster may make the client hold (issue 30). One watch event (a
  // line of the stream): past it the watch ends with an error naming the cluster and the
  // resource and is restarted with backoff like any failed watch. One response body (a list
  // page, an error Status): past it the request fails, permanently, and what arrived is freed.
  std::size_t max_watch_event_bytes = 16u << 20;
  std::size_t max_response_bytes = 512u << 20;
  // Asked on the loop thread before every attempt of a mutating request (any method but GET),
  // retries included, twice: before the request goes to the transport, and by the transport
  // once the connection is up, right before the first byte (HttpRequest::send_refusal). A
  // non-empty answer is why this process may not write now, and the attempt fails with it
  // (Outcome::kPermanent, Problem::kRequest) without being sent. The daemon's leadership fence
  // (issue 28): a former leader, or one thawed after a freeze past its lease, writes nothing.
  // Must be cheap and thread-safe; nullptr = always allowed.
  std::function<std::string()> write_refusal;
};

// A request to a fixed path. `path` is sent as written: build it from constants only (or with
// url.h's EscapeSegment and Query), never by pasting a name or a server's value into it.
struct RawRequest {
  std::string method = "GET";
  std::string path;  // below the server URL, with query: "/api/v1/namespaces?limit=1"
  std::string body;
  std::string content_type;
  bool idempotent = true;  // retried on transient failures
  std::optional<Duration> timeout;
  std::optional<Duration> progress_timeout;  // default: ClientOptions::progress_timeout
};

struct ListOptions {
  std::string ns;  // "" = all namespaces (or a cluster-scoped kind)
  std::string label_selector;
  std::string field_selector;
  int limit = 500;  // page size
};

struct ListResult {
  Result result;            // ok, or why the list failed
  std::vector<Json> items;  // every page
  std::string resource_version;
  int pages = 0;
  int restarts = 0;  // times an expired continue token restarted the list
};

struct ApplyOptions {
  std::string field_manager = "fleetwave";
  bool force = false;
};

struct DeleteOptions {
  std::string propagation_policy;  // Background | Foreground | Orphan | ""
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
};

struct WatchOptions {
  std::string ns;
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;  // resume point
  bool allow_bookmarks = true;
  std::optional<int> timeout_seconds;  // default: random in the client's range
};

using ResultCallback = std::function<void(Result)>;
using ListCallback = std::function<void(ListResult)>;
using EventCallback = std::function<void(WatchEvent)>;

// One watch request. Cancel() stops it: no callback of it runs after Cancel returns on the
// loop thread (callbacks already queued on the executor are dropped too).
class WatchHandle {
 public:
  virtual ~WatchHandle() = default;
  virtual void Cancel() = 0;  // any thread
};

class ClusterClient : public std::enable_shared_from_this<ClusterClient> {
 public:
  static std::shared_ptr<ClusterClient> Create(ClusterConfig config, Transport* transport,
                                               Executor* executor, ExecRunner* exec_runner,
                                               ClientOptions options = {});
  ~ClusterClient();

  const std::string& name() const { return config_.name; }
  const ClusterConfig& config() const { return config_; }
  Transport* transport() const { return transport_; }
  Executor* executor() const { return executor_; }

  // Any thread; callbacks on the executor.
  void Request(RawRequest request, ResultCallback done);
  void ServerVersion(ResultCallback done);  // GET /version
  void Resolve(const std::string& api_version, const std::string& kind,
               std::function<void(Result, ResourceRef)> done);
  void Get(const ResourceRef& r, const std::string& ns, const std::string& name,
           ResultCallback done);
  void List(const ResourceRef& r, ListOptions options, ListCallback done);
  // Server-side apply of a complete object; the kind is mapped through discovery.
  void Apply(const Json& object, ApplyOptions options, ResultCallback done);
  void MergePatch(const ResourceRef& r, const std::string& ns, const std::string& name,
                  const Json& patch, ResultCallback done);
  void Delete(const ResourceRef& r, const std::string& ns, const std::string& name,
              DeleteOptions options, ResultCallback done);
  // One watch request; `on_end` runs once when it ends (ok = the server closed it normally).
  std::shared_ptr<WatchHandle> Watch(const ResourceRef& r, WatchOptions options,
                                     EventCallback on_event, ResultCallback on_end);

  // Loop-thread variants (see the header comment).
  void RequestOnLoop(RawRequest request, ResultCallback done);
  void ListOnLoop(const ResourceRef& r, ListOptions options, ListCallback done);
  std::shared_ptr<WatchHandle> WatchOnLoop(const ResourceRef& r, WatchOptions options,
                                           EventCallback on_event, ResultCallback on_end);
  void ResolveOnLoop(const std::string& api_version, const std::string& kind,
                     std::function<void(Result, ResourceRef)> done);

  // Logs a warning through ClientOptions::log (any thread; the informer reports with it).
  void Warn(const std::string& message) const;
  // Tells ClientOptions::observer that a watch of `resource` is re-opened (the informer's).
  void ReportWatchRestart(const std::string& resource) const;

  // Counters (any thread).
  long requests_sent() const { return requests_sent_.load(); }
  long retries() const { return retries_.load(); }

  // Builds a request path: /api/v1/namespaces/NS/RESOURCE[/NAME], every segment escaped
  // (url.h), so no namespace or name can add a segment, a query or a fragment.
  static std::string ResourcePath(const ResourceRef& r, const std::string& ns,
                                  const std::string& name);
  static std::string QueryEscape(const std::string& value);
  // "" when `ns` and `name` can address an object (or, with `name` null, a collection);
  // else why not, naming the cluster: an empty, "." or ".." segment would address another
  // resource however it is escaped, so such requests are never sent.
  std::string TargetProblem(const ResourceRef& r, const std::string& ns,
                            const std::string* name) const;

 private:
  struct Call;
  struct ListState;
  struct WatchState;
  struct Discovery;

  ClusterClient(ClusterConfig config, Transport* transport, Executor* executor,
                ExecRunner* exec_runner, ClientOptions options);

  // Runs `body` on the loop thread; an exception escaping it is logged once and reported to
  // `fail` (when set) as a permanent error: a bug or a throwing callback costs one request,
  // never the process.
  void Guarded(const std::string& what, const std::function<void()>& body,
               const std::function<void(Result)>& fail);
  void GuardedCall(const std::shared_ptr<Call>& call, const std::function<void()>& body);
  void StartCall(std::shared_ptr<Call> call);
  void SendCall(std::shared_ptr<Call> call);
  void SendWithCredential(std::shared_ptr<Call> call, std::shared_ptr<const Credential> cred);
  // A write the write fence refused (ClientOptions::write_refusal): permanent, never sent.
  Result NotSent(const Call& call, const std::string& why) const;
  void FinishCall(std::shared_ptr<Call> call, std::shared_ptr<const Credential> cred,
                  HttpResponse response);
  void NextPage(std::shared_ptr<ListState> state);
  void OnPage(const std::shared_ptr<ListState>& state, Result r);
  void StartWatch(std::shared_ptr<WatchState> state);
  void OpenWatch(const std::shared_ptr<WatchState>& state, std::shared_ptr<const Credential> cred);
  void WithCredential(std::function<void(Result, std::shared_ptr<const Credential>)> then);
  std::shared_ptr<const Endpoint> EndpointFor(const Credential* cred);
  std::vector<std::string> Headers(const Credential* cred, const std::string& content_type,
                                   const char* accept) const;
  Result FromNetError(const HttpResponse& response);
  void Deliver(ResultCallback done, Result result);
  // Answers `done` (on the executor, never inline) with a permanent error: a request refused
  // before it was sent.
  void Refuse(ResultCallback done, std::string message);
  void Discover(std::function<void(Result)> done);

  const ClusterConfig config_;
  Transport* const transport_;
  Executor* const executor_;
  const ClientOptions options_;
  std::shared_ptr<CredentialProvider> credentials_;

  // Loop-thread state.
  RateLimiter limiter_;
  std::shared_ptr<const Endpoint> base_endpoint_;
  std::shared_ptr<const Endpoint> cred_endpoint_;  // for plugin-provided client certificates
  std::string cred_endpoint_key_;
  std::map<std::string, ResourceRef> mapping_;  // "apiVersion/Kind" -> resource
  std::optional<SteadyTime> discovered_at_;
  std::map<std::string, Result> failed_versions_;  // of the last discovery: apiVersion -> why
  // The discovery round in flight, if any: its requests own it and it owns its waiters, so
  // the client (whom a waiter may hold) never owns itself through them (Discover).
  std::weak_ptr<Discovery> discovery_;
  int connection_errors_in_a_row_ = 0;
  std::uint64_t rng_state_;

  std::atomic<long> requests_sent_{0};
  std::atomic<long> retries_{0};
};

}  // namespace fleetwave::clients
