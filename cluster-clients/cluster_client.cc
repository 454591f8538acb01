#include "cluster-clients/cluster_client.h"

#include <cctype>
#include <iostream>
#include <random>
#include <utility>

#include "cluster-clients/guard.h"
#include "cluster-clients/json_fields.h"
#include "cluster-clients/url.h"

namespace fleetwave::clients {
namespace {

std::string Seconds(Duration d) { return std::to_string(ToMillis(d) / 1000) + "s"; }

std::uint64_t SplitMix(std::uint64_t* state) {
  std::uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// What a request gets when code handling it threw: retrying would run the same code again.
Result InternalError(const std::string& what, const std::string& exception) {
  return ErrorResult(Outcome::kPermanent, Problem::kOther,
                     what + ": internal error, request abandoned (" + exception + ")");
}

// A response body that is JSON of the wrong shape: as permanent as an unparsable one.
Result BadResponse(const std::string& what, const std::string& problem) {
  return ErrorResult(Outcome::kPermanent, Problem::kOther,
                     what + ": unexpected response: " + problem);
}

// A callback that may be reached from several paths (success, guard) but must run once.
template <class... Args>
class Once {
 public:
  explicit Once(std::function<void(Args...)> fn) : fn_(std::move(fn)) {}
  bool operator()(Args... args) {
    auto fn = std::exchange(fn_, nullptr);
    if (!fn) return false;
    fn(std::forward<Args>(args)...);
    return true;
  }

 private:
  std::function<void(Args...)> fn_;
};

}  // namespace

ResourceRef NamespacesResource() { return {"", "v1", "namespaces", "Namespace", false}; }
ResourceRef DeploymentsResource() { return {"apps", "v1", "deployments", "Deployment", true}; }
ResourceRef StatefulSetsResource() { return {"apps", "v1", "statefulsets", "StatefulSet", true}; }
ResourceRef DaemonSetsResource() { return {"apps", "v1", "daemonsets", "DaemonSet", true}; }
ResourceRef CloneSetsResource() {
  return {"apps.kruise.io", "v1alpha1", "clonesets", "CloneSet", true};
}

struct ClusterClient::Call {
  RawRequest request;
  ResultCallback done;  // loop thread; emptied when called (a request completes once)
  Backoff backoff;
  int attempts = 0;
  bool refreshed_after_401 = false;

  std::string What() const { return request.method + " " + request.path; }
  bool Complete(Result r) {
    auto d = std::exchange(done, nullptr);
    if (!d) return false;
    d(std::move(r));
    return true;
  }
};

struct ClusterClient::ListState {
  ResourceRef ref;
  ListOptions options;
  ListCallback done;  // loop thread; emptied when called
  ListResult out;
  std::string continue_token;

  std::string What() const {
    return "list " + ref.resource + (options.ns.empty() ? "" : " in " + options.ns);
  }
  bool Finish(Result r) {
    auto d = std::exchange(done, nullptr);
    if (!d) return false;
    out.result = std::move(r);
    d(std::move(out));
    return true;
  }
};

struct ClusterClient::WatchState : WatchHandle, std::enable_shared_from_this<WatchState> {
  Transport* transport = nullptr;
  ResourceRef ref;
  WatchOptions options;
  EventCallback on_event;  // loop thread
  ResultCallback on_end;   // loop thread
  std::atomic<bool> canceled{false};
  bool ended = false;
  RequestId request = 0;
  TimerId stall_timer = 0;
  SteadyTime last_data{};
  Duration stall_timeout{};   // between bytes once the response headers came
  Duration header_timeout{};  // until they come (ClientOptions::progress_timeout)
  bool headers_seen = false;
  WatchDecoder decoder;
  std::string cluster;                           // its name, for messages
  std::function<void(const std::string&)> warn;  // the client's log

  std::string What() const { return "watch " + ref.resource; }

  void Cancel() override {
    if (canceled.exchange(true)) return;
    transport->Post([self = shared_from_this()] { self->Stop(); });
  }
  // Loop thread.
  void Stop() {
    ended = true;
    if (request) transport->Cancel(request);
    if (stall_timer) transport->CancelTimer(stall_timer);
    request = 0;
    stall_timer = 0;
  }
  void End(Result r) {
    if (ended) return;
    Stop();
    if (!canceled) on_end(std::move(r));
  }
  // Runs `body` for this watch on the loop thread; an exception escaping it ends the watch
  // with a permanent error (logged once) instead of reaching the transport.
  void Guarded(const std::function<void()>& body) {
    auto exception = RunGuarded(body);
    if (!exception) return;
    if (warn) warn(What() + ": internal error, watch abandoned: " + *exception);
    if (auto again = RunGuarded([&] { End(InternalError(What(), *exception)); }); again && warn)
      warn(What() + ": reporting the internal error failed too: " + *again);
  }
  // The bound on silence: short until the response headers come (a hung server answers a
  // new watch with nothing at all), long afterwards (an idle watch hears a bookmark a minute).
  Duration Bound() const {
    return headers_seen || header_timeout <= Duration::zero() ? stall_timeout : header_timeout;
  }
  void ArmStallTimer() {
    stall_timer = transport->RunAt(last_data + Bound(), [self = shared_from_this()] {
      self->Guarded([&] {
        self->stall_timer = 0;
        if (self->ended || self->canceled) return;
        if (self->transport->Now() - self->last_data < self->Bound()) {
          self->ArmStallTimer();
          return;
        }
        const std::string what = self->What() + " on cluster " + self->cluster;
        self->End(ErrorResult(Outcome::kTransient, Problem::kNoProgress,
                              self->headers_seen
                                  ? "no progress: " + what + " stalled: nothing received for " +
                                        Seconds(self->stall_timeout)
                                  : "no progress: " + what + ": no response within " +
                                        Seconds(self->header_timeout)));
      });
    });
  }
};

std::shared_ptr<ClusterClient> ClusterClient::Create(ClusterConfig config, Transport* transport,
                                                     Executor* executor, ExecRunner* exec_runner,
                                                     ClientOptions options) {
  return std::shared_ptr<ClusterClient>(
      new ClusterClient(std::move(config), transport, executor, exec_runner, std::move(options)));
}

ClusterClient::ClusterClient(ClusterConfig config, Transport* transport, Executor* executor,
                             ExecRunner* exec_runner, ClientOptions options)
    : config_(std::move(config)),
      transport_(transport),
      executor_(executor),
      options_(std::move(options)),
      credentials_(std::make_shared<CredentialProvider>(config_, exec_runner)),
      limiter_(options_.rate_limit, transport->Now()),
      rng_state_(options_.seed ? options_.seed : std::random_device{}()) {
  auto ep = std::make_shared<Endpoint>();
  ep->ca_pem = config_.ca_pem;
  ep->client_cert_pem = config_.client_cert_pem;
  ep->client_key_pem = config_.client_key_pem;
  ep->insecure_skip_verify = config_.insecure_skip_tls_verify;
  ep->proxy_url = config_.proxy_url;
  ep->http2 = options_.http2;
  ep->connect_timeout = options_.connect_timeout;
  base_endpoint_ = std::move(ep);
}

ClusterClient::~ClusterClient() = default;

void ClusterClient::Warn(const std::string& message) const {
  if (options_.log) {
    options_.log(message);
  } else {
    std::cerr << "fleetwave: warning: " << message << "\n";
  }
}

void ClusterClient::ReportWatchRestart(const std::string& resource) const {
  if (options_.observer) options_.observer->OnWatchRestart(config_.name, resource);
}

std::string ClusterClient::QueryEscape(const std::string& value) { return EscapeQueryValue(value); }

std::string ClusterClient::ResourcePath(const ResourceRef& r, const std::string& ns,
                                        const std::string& name) {
  std::string p = r.group.empty()
                      ? "/api/" + EscapeSegment(r.version)
                      : "/apis/" + EscapeSegment(r.group) + "/" + EscapeSegment(r.version);
  if (r.namespaced && !ns.empty()) p += "/namespaces/" + EscapeSegment(ns);
  p += "/" + EscapeSegment(r.resource);
  if (!name.empty()) p += "/" + EscapeSegment(name);
  return p;
}

std::string ClusterClient::TargetProblem(const ResourceRef& r, const std::string& ns,
                                         const std::string* name) const {
  std::string why;
  if (r.namespaced && !ns.empty())
    if (std::string p = SegmentProblem(ns); !p.empty()) why = "namespace \"" + ns + "\" " + p;
  if (name)
    if (std::string p = SegmentProblem(*name); !p.empty())
      why += (why.empty() ? "" : "; ") + std::string("name \"") + *name + "\" " + p;
  if (why.empty()) return "";
  return r.resource + " on cluster " + config_.name + ": " + why + "; request not sent";
}

void ClusterClient::Guarded(const std::string& what, const std::function<void()>& body,
                            const std::function<void(Result)>& fail) {
  auto exception = RunGuarded(body);
  if (!exception) return;
  Warn(what + ": internal error, request abandoned: " + *exception);
  if (!fail) return;
  if (auto again = RunGuarded([&] { fail(InternalError(what, *exception)); }))
    Warn(what + ": reporting the internal error failed too: " + *again);
}

void ClusterClient::Refuse(ResultCallback done, std::string message) {
  auto self = shared_from_this();
  transport_->Post([self, done = std::move(done), message = std::move(message)] {
    self->Deliver(done, ErrorResult(Outcome::kPermanent, Problem::kRequest, message));
  });
}

void ClusterClient::Deliver(ResultCallback done, Result result) {
  executor_->Submit(
      [done = std::move(done), result = std::move(result)]() mutable { done(std::move(result)); });
}

std::shared_ptr<const Endpoint> ClusterClient::EndpointFor(const Credential* cred) {
  if (!cred || cred->client_cert_pem.empty()) return base_endpoint_;
  if (cred_endpoint_ && cred_endpoint_key_ == cred->client_cert_pem) return cred_endpoint_;
  auto ep = std::make_shared<Endpoint>(*base_endpoint_);
  ep->client_cert_pem = cred->client_cert_pem;
  ep->client_key_pem = cred->client_key_pem;
  cred_endpoint_ = ep;
  cred_endpoint_key_ = cred->client_cert_pem;
  return ep;
}

std::vector<std::string> ClusterClient::Headers(const Credential* cred,
                                                const std::string& content_type,
                                                const char* accept) const {
  std::vector<std::string> h = {std::string("Accept: ") + accept,
                                "User-Agent: " + options_.user_agent};
  if (cred && !cred->authorization.empty()) h.push_back("Authorization: " + cred->authorization);
  if (!content_type.empty()) h.push_back("Content-Type: " + content_type);
  return h;
}

Result ClusterClient::FromNetError(const HttpResponse& response) {
  const std::string& server = config_.server;
  const std::string detail =
      response.error_message.empty() ? "" : " (" + response.error_message + ")";
  if (response.error != NetError::kConnection) connection_errors_in_a_row_ = 0;
  switch (response.error) {
    case NetError::kTimeout:
      return ErrorResult(Outcome::kTransient, Problem::kTimeout,
                         "timeout: no answer from " + server + detail);
    case NetError::kNoProgress:
      return ErrorResult(Outcome::kTransient, Problem::kNoProgress,
                         "no progress: " + server + " took the request and sent nothing" + detail);
    case NetError::kConnectRefused:
      return ErrorResult(Outcome::kTransient, Problem::kConnectionRefused,
                         "connection refused: " + server + detail);
    case NetError::kDns:
      return ErrorResult(Outcome::kTransient, Problem::kDns,
                         "DNS: cannot resolve the host of " + server + detail);
    case NetError::kTls:
      return ErrorResult(
          Outcome::kPermanent, Problem::kTls,
          "TLS: cannot verify or establish a secure connection to " + server + detail);
    case NetError::kConnection: {
      std::string msg = "connection to " + server + " broken" + detail;
      // Under TLS 1.3 a server rejecting our client certificate looks like a reset.
      if (++connection_errors_in_a_row_ >= 3 && !base_endpoint_->client_cert_pem.empty())
        msg += "; the server may be rejecting the client certificate";
      return ErrorResult(Outcome::kTransient, Problem::kConnection, msg);
    }
    case NetError::kCanceled:
      return ErrorResult(Outcome::kTransient, Problem::kOther, "request canceled");
    case NetError::kHandlerFailed:
      // The transport caught an exception from one of our handlers: the same code would
      // run again on a retry.
      return ErrorResult(Outcome::kPermanent, Problem::kOther,
                         "request to " + server + " abandoned: internal error" + detail);
    case NetError::kTooLarge:
      return ErrorResult(Outcome::kPermanent, Problem::kOther,
                         "response from " + server + " too large" + detail);
    case NetError::kNotSent:
      return ErrorResult(Outcome::kPermanent, Problem::kRequest,
                         "request to " + server + " not sent" + detail);
    default:
      return ErrorResult(Outcome::kTransient, Problem::kOther,
                         "request to " + server + " failed" + detail);
  }
}

void ClusterClient::WithCredential(
    std::function<void(Result, std::shared_ptr<const Credential>)> then) {
  auto self = shared_from_this();
  credentials_->Get(
      [self, then = std::move(then)](Result err, std::shared_ptr<const Credential> cred) {
        // The provider may answer on an exec-runner thread: hop back to the loop.
        self->transport_->Post([then, err, cred] { then(err, cred); });
      });
}

void ClusterClient::GuardedCall(const std::shared_ptr<Call>& call,
                                const std::function<void()>& body) {
  Guarded(call->What(), body, [call](Result r) { call->Complete(std::move(r)); });
}

void ClusterClient::StartCall(std::shared_ptr<Call> call) {
  const Duration wait = limiter_.Reserve(transport_->Now());
  if (wait > Duration::zero()) {
    transport_->RunAt(transport_->Now() + wait, [self = shared_from_this(), call] {
      self->GuardedCall(call, [&] { self->SendCall(call); });
    });
  } else {
    SendCall(call);
  }
}

void ClusterClient::SendCall(std::shared_ptr<Call> call) {
  auto self = shared_from_this();
  WithCredential([self, call](Result err, std::shared_ptr<const Credential> cred) {
    self->GuardedCall(call, [&] {
      if (!err.ok()) {
        call->Complete(std::move(err));
        return;
      }
      self->SendWithCredential(call, std::move(cred));
    });
  });
}

void ClusterClient::SendWithCredential(std::shared_ptr<Call> call,
                                       std::shared_ptr<const Credential> cred) {
  // Asked here, before the transport, so a write queued or retried from before the leadership
  // ended is refused without a connection (ClientOptions::write_refusal); and asked again by the
  // transport right before the request's first byte (HttpRequest::send_refusal), because the
  // way from here to the socket may be long: a loop turn, a new connection's TCP and TLS
  // handshakes. A process frozen on that way past its lease would otherwise send the write
  // when it thaws, after its term ended.
  const bool fenced = call->request.method != "GET" && options_.write_refusal;
  if (fenced) {
    if (std::string why = options_.write_refusal(); !why.empty()) {
      call->Complete(NotSent(*call, why));
      return;
    }
  }
  HttpRequest req;
  if (fenced) req.send_refusal = options_.write_refusal;
  req.endpoint = EndpointFor(cred.get());
  req.method = call->request.method;
  req.url = config_.server + call->request.path;
  req.headers = Headers(cred.get(), call->request.content_type, "application/json");
  req.body = call->request.body;
  req.timeout = call->request.timeout.value_or(options_.request_timeout);
  req.progress_timeout = call->request.progress_timeout.value_or(options_.progress_timeout);
  req.max_body_bytes = options_.max_response_bytes;
  ++call->attempts;
  ++requests_sent_;
  auto self = shared_from_this();
  HttpHandlers handlers;
  handlers.on_done = [self, call, cred, sent = transport_->Now()](HttpResponse response) {
    self->GuardedCall(call, [&] {
      if (RequestObserver* o = self->options_.observer) {
        const int code = response.error == NetError::kNone ? response.status : 0;
        o->OnRequest(self->config_.name, call->request.method, code,
                     std::chrono::duration<double>(self->transport_->Now() - sent).count());
      }
      self->FinishCall(call, cred, std::move(response));
    });
  };
  transport_->Start(std::move(req), std::move(handlers));
}

Result ClusterClient::NotSent(const Call& call, const std::string& why) const {
  return ErrorResult(Outcome::kPermanent, Problem::kRequest,
                     call.What() + " on cluster " + config_.name + " not sent: " + why);
}

void ClusterClient::FinishCall(std::shared_ptr<Call> call, std::shared_ptr<const Credential> cred,
                               HttpResponse response) {
  if (response.error == NetError::kNotSent) {
    call->Complete(NotSent(*call, response.error_message));
    return;
  }
  if (response.error == NetError::kTooLarge ||
      (response.error == NetError::kNone && response.body.size() > options_.max_response_bytes)) {
    // Checked here too for transports that collect without a cap. Permanent: asking again
    // would bring the same body.
    std::string().swap(response.body);
    call->Complete(ErrorResult(
        Outcome::kPermanent, Problem::kOther,
        call->What() + " on cluster " + config_.name + ": the response exceeds " +
            std::to_string(options_.max_response_bytes) + " bytes (max_response_bytes)"));
    return;
  }
  Result result =
      response.error != NetError::kNone
          ? FromNetError(response)
          : ResultFromHttp(response.status, response.body, ParseRetryAfter(response.retry_after));
  if (response.error == NetError::kNone) connection_errors_in_a_row_ = 0;
  if (result.http_status == 401 && !call->refreshed_after_401 &&
      (config_.exec || !config_.token_file.empty())) {
    // The token file may have been rotated or the plugin's credential revoked: one fresh try.
    call->refreshed_after_401 = true;
    credentials_->Invalidate(cred);
    StartCall(call);
    return;
  }
  // A request that made no progress is not retried: the server is presumed hung, and the
  // caller (the cluster's liveness) hears it now rather than after every attempt's bound.
  if (result.outcome == Outcome::kTransient && result.problem != Problem::kNoProgress &&
      call->request.idempotent && call->attempts < options_.max_attempts) {
    std::optional<Duration> retry_after;
    if (result.retry_after) retry_after = *result.retry_after;
    const Duration delay = call->backoff.Next(retry_after);
    ++retries_;
    transport_->RunAt(transport_->Now() + delay, [self = shared_from_this(), call] {
      self->GuardedCall(call, [&] { self->StartCall(call); });
    });
    return;
  }
  call->Complete(std::move(result));
}

void ClusterClient::RequestOnLoop(RawRequest request, ResultCallback done) {
  auto call = std::make_shared<Call>();
  call->request = std::move(request);
  call->done = std::move(done);
  call->backoff = Backoff(options_.backoff, SplitMix(&rng_state_));
  GuardedCall(call, [&] { StartCall(call); });
}

void ClusterClient::Request(RawRequest request, ResultCallback done) {
  auto self = shared_from_this();
  transport_->Post([self, request = std::move(request), done = std::move(done)]() mutable {
    self->RequestOnLoop(std::move(request),
                        [self, done](Result r) { self->Deliver(done, std::move(r)); });
  });
}

void ClusterClient::ServerVersion(ResultCallback done) {
  RawRequest r;
  r.path = "/version";
  Request(std::move(r), std::move(done));
}

void ClusterClient::Get(const ResourceRef& ref, const std::string& ns, const std::string& name,
                        ResultCallback done) {
  if (std::string why = TargetProblem(ref, ns, &name); !why.empty()) {
    Refuse(std::move(done), "get " + why);
    return;
  }
  RawRequest r;
  r.path = ResourcePath(ref, ns, name);
  Request(std::move(r), std::move(done));
}

void ClusterClient::MergePatch(const ResourceRef& ref, const std::string& ns,
                               const std::string& name, const Json& patch, ResultCallback done) {
  if (std::string why = TargetProblem(ref, ns, &name); !why.empty()) {
    Refuse(std::move(done), "merge-patch " + why);
    return;
  }
  RawRequest r;
  r.method = "PATCH";
  r.path = ResourcePath(ref, ns, name);
  std::optional<std::string> body = DumpJson(patch);
  if (!body) {
    auto self = shared_from_this();
    transport_->Post([self, done = std::move(done), what = "merge-patch " + r.path] {
      self->Deliver(done, ErrorResult(Outcome::kPermanent, Problem::kRequest,
                                      what + ": the patch holds a string that is not UTF-8"));
    });
    return;
  }
  r.body = std::move(*body);
  r.content_type = "application/merge-patch+json";
  Request(std::move(r), std::move(done));
}

void ClusterClient::Delete(const ResourceRef& ref, const std::string& ns, const std::string& name,
                           DeleteOptions options, ResultCallback done) {
  if (std::string why = TargetProblem(ref, ns, &name); !why.empty()) {
    Refuse(std::move(done), "delete " + why);
    return;
  }
  Json body = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
  if (!options.propagation_policy.empty()) body["propagationPolicy"] = options.propagation_policy;
  if (options.precondition_uid) body["preconditions"]["uid"] = *options.precondition_uid;
  if (options.precondition_resource_version)
    body["preconditions"]["resourceVersion"] = *options.precondition_resource_version;
  RawRequest r;
  r.method = "DELETE";
  r.path = ResourcePath(ref, ns, name);
  r.body = body.dump();
  r.content_type = "application/json";
  Request(std::move(r), std::move(done));
}

void ClusterClient::Apply(const Json& object, ApplyOptions options, ResultCallback done) {
  // The manifest is the caller's (a file, a rendered template): every field is read as
  // untrusted, and a wrong shape is an error naming the field (cluster_client_test.cc,
  // ApplyRejectsMalformedObjects), never an exception on the loop thread.
  FieldReader fields(object);
  const std::string api_version = fields.RequiredString({"apiVersion"});
  const std::string kind = fields.RequiredString({"kind"});
  const std::string name = fields.RequiredString({"metadata", "name"});
  const std::string object_ns = fields.String({"metadata", "namespace"});
  std::optional<std::string> body;
  if (fields.ok()) body = DumpJson(object);
  auto self = shared_from_this();
  if (!fields.ok() || !body) {
    std::string what = "apply";
    if (!kind.empty()) what += " " + kind;
    if (!name.empty()) what += " " + name;
    const std::string problem =
        !fields.ok() ? fields.error() : "the object holds a string that is not UTF-8";
    transport_->Post([self, done = std::move(done), what, problem] {
      self->Deliver(done,
                    ErrorResult(Outcome::kPermanent, Problem::kRequest, what + ": " + problem));
    });
    return;
  }
  const std::string what = "apply " + kind + " " + name;
  auto finish = std::make_shared<Once<Result>>(
      [self, done = std::move(done)](Result r) { self->Deliver(done, std::move(r)); });
  transport_->Post([self, api_version, kind, name, object_ns, what, options, finish,
                    body = std::move(*body)] {
    self->Guarded(
        what,
        [&] {
          self->ResolveOnLoop(
              api_version, kind,
              [self, what, options, finish, body, name, object_ns](Result r, ResourceRef ref) {
                self->Guarded(
                    what,
                    [&] {
                      if (!r.ok()) {
                        (*finish)(std::move(r));
                        return;
                      }
                      std::string ns = object_ns;
                      if (ref.namespaced && ns.empty())
                        ns = self->config_.default_namespace.empty()
                                 ? "default"
                                 : self->config_.default_namespace;
                      if (std::string why = self->TargetProblem(ref, ns, &name); !why.empty()) {
                        (*finish)(
                            ErrorResult(Outcome::kPermanent, Problem::kRequest, "apply " + why));
                        return;
                      }
                      Query query;
                      query.Add("fieldManager", options.field_manager);
                      if (options.force) query.Add("force", "true");
                      RawRequest req;
                      req.method = "PATCH";
                      req.path = ResourcePath(ref, ref.namespaced ? ns : "", name) + query.str();
                      // JSON is YAML: the apply content type accepts it unchanged.
                      req.body = body;
                      req.content_type = "application/apply-patch+yaml";
                      self->RequestOnLoop(std::move(req),
                                          [finish](Result res) { (*finish)(std::move(res)); });
                    },
                    [finish](Result err) { (*finish)(std::move(err)); });
              });
        },
        [finish](Result err) { (*finish)(std::move(err)); });
  });
}

void ClusterClient::NextPage(std::shared_ptr<ListState> state) {
  Query q;
  q.Add("limit", state->options.limit)
      .AddIfSet("labelSelector", state->options.label_selector)
      .AddIfSet("fieldSelector", state->options.field_selector)
      .AddIfSet("continue", state->continue_token);
  RawRequest req;
  req.path = ResourcePath(state->ref, state->options.ns, "") + q.str();
  auto self = shared_from_this();
  RequestOnLoop(std::move(req), [self, state](Result r) {
    self->Guarded(
        state->What(), [&] { self->OnPage(state, std::move(r)); },
        [state](Result err) { state->Finish(std::move(err)); });
  });
}

void ClusterClient::OnPage(const std::shared_ptr<ListState>& state, Result r) {
  if (!r.ok()) {
    if (r.http_status == 410 && !state->continue_token.empty() && state->out.restarts < 5) {
      // The continue token expired between pages: the pages so far belong to a snapshot
      // that is gone, so start over with a fresh list (as client-go's pager does).
      ++state->out.restarts;
      state->out.items.clear();
      state->out.pages = 0;
      state->continue_token.clear();
      NextPage(state);
      return;
    }
    state->Finish(std::move(r));
    return;
  }
  // The page is read as untrusted: a proxy may answer 200 with HTML, a broken server with
  // the wrong shapes (cluster_client_test.cc, ListRejectsMalformedPages).
  Json& doc = r.object;
  FieldReader fields(doc);
  const Json* items = fields.Array({"items"});
  std::string resource_version = fields.String({"metadata", "resourceVersion"});
  std::string continue_token = fields.String({"metadata", "continue"});
  if (!fields.ok() || !doc.is_object()) {
    const std::string problem =
        !doc.is_object() ? "not a list (" + JsonTypeName(doc) + ")" : fields.error();
    state->Finish(BadResponse(state->What(), problem));
    return;
  }
  ++state->out.pages;
  if (items)  // an array inside `doc`, which is ours: move the items out
    for (Json& item : doc["items"]) state->out.items.push_back(std::move(item));
  state->out.resource_version = std::move(resource_version);
  state->continue_token = std::move(continue_token);
  if (!state->continue_token.empty()) {
    NextPage(state);
    return;
  }
  Result ok;
  ok.http_status = r.http_status;
  state->Finish(std::move(ok));
}

void ClusterClient::ListOnLoop(const ResourceRef& r, ListOptions options, ListCallback done) {
  auto state = std::make_shared<ListState>();
  state->ref = r;
  state->options = std::move(options);
  if (state->options.limit <= 0) state->options.limit = 500;
  state->done = std::move(done);
  if (std::string why = TargetProblem(r, state->options.ns, nullptr); !why.empty()) {
    state->Finish(ErrorResult(Outcome::kPermanent, Problem::kRequest, "list " + why));
    return;
  }
  NextPage(std::move(state));
}

void ClusterClient::List(const ResourceRef& r, ListOptions options, ListCallback done) {
  auto self = shared_from_this();
  transport_->Post([self, r, options = std::move(options), done = std::move(done)]() mutable {
    self->ListOnLoop(r, std::move(options), [self, done](ListResult lr) {
      self->executor_->Submit([done, lr = std::move(lr)]() mutable { done(std::move(lr)); });
    });
  });
}

void ClusterClient::StartWatch(std::shared_ptr<WatchState> state) {
  auto self = shared_from_this();
  if (!state->warn) state->warn = [self](const std::string& m) { self->Warn(m); };
  if (std::string why = TargetProblem(state->ref, state->options.ns, nullptr); !why.empty()) {
    state->End(ErrorResult(Outcome::kPermanent, Problem::kRequest, "watch " + why));
    return;
  }
  const Duration wait = limiter_.Reserve(transport_->Now());
  auto go = [self, state] {
    state->Guarded([&] {
      if (state->canceled || state->ended) return;
      self->WithCredential([self, state](Result err, std::shared_ptr<const Credential> cred) {
        state->Guarded([&] {
          if (state->canceled || state->ended) return;
          if (!err.ok()) {
            state->End(std::move(err));
            return;
          }
          self->OpenWatch(state, std::move(cred));
        });
      });
    });
  };
  if (wait > Duration::zero()) {
    transport_->RunAt(transport_->Now() + wait, go);
  } else {
    go();
  }
}

void ClusterClient::OpenWatch(const std::shared_ptr<WatchState>& state,
                              std::shared_ptr<const Credential> cred) {
  const WatchOptions& o = state->options;
  int timeout_s = 0;
  if (o.timeout_seconds) {
    timeout_s = *o.timeout_seconds;
  } else {
    const long long lo = ToMillis(options_.watch_timeout_min) / 1000;
    const long long hi = std::max(lo, ToMillis(options_.watch_timeout_max) / 1000);
    timeout_s =
        static_cast<int>(lo + static_cast<long long>(SplitMix(&rng_state_) %
                                                     static_cast<std::uint64_t>(hi - lo + 1)));
  }
  Query q;
  q.Add("watch", "1").Add("timeoutSeconds", timeout_s);
  if (o.allow_bookmarks) q.Add("allowWatchBookmarks", "true");
  q.AddIfSet("resourceVersion", o.resource_version)
      .AddIfSet("labelSelector", o.label_selector)
      .AddIfSet("fieldSelector", o.field_selector);
  HttpRequest req;
  req.endpoint = EndpointFor(cred.get());
  req.url = config_.server + ResourcePath(state->ref, o.ns, "") + q.str();
  req.max_body_bytes = options_.max_response_bytes;  // a failed watch's Status body
  req.headers = Headers(cred.get(), "", "application/json");
  // The server ends the watch at timeoutSeconds; this cap only catches servers that don't.
  req.timeout = seconds(timeout_s) + seconds(30);
  req.stream = true;
  ++requests_sent_;
  // Every handler runs under the watch's guard: an exception in event handling (the
  // informer's, on this same thread) ends this watch, not the process
  // (cluster_client_test.cc, ThrowingWatchHandlerEndsOnlyThatWatch).
  HttpHandlers h;
  h.on_headers = [state](int) {
    state->Guarded([&] {
      state->last_data = state->transport->Now();
      state->headers_seen = true;
    });
  };
  h.on_data = [state](std::string_view chunk) {
    state->Guarded([&] {
      if (state->canceled || state->ended) return;
      state->last_data = state->transport->Now();
      for (auto& ev : state->decoder.Feed(chunk)) {
        if (state->canceled || state->ended) return;
        state->on_event(std::move(ev));
      }
      if (state->decoder.overflowed() && !state->canceled && !state->ended) {
        // A line without end (a hostile or broken server): the decoder has let go of it;
        // the watch fails like any broken stream and its owner restarts it with backoff.
        state->End(ErrorResult(Outcome::kTransient, Problem::kServerError,
                               state->What() + " on cluster " + state->cluster +
                                   ": a watch event exceeds " +
                                   std::to_string(state->decoder.max_event_bytes()) +
                                   " bytes (max_watch_event_bytes); the watch is restarted"));
      }
    });
  };
  auto self = shared_from_this();
  h.on_done = [self, state, cred](HttpResponse resp) {
    state->Guarded([&] {
      state->request = 0;
      if (state->canceled || state->ended) return;
      Result r;
      if (resp.error != NetError::kNone) {
        r = self->FromNetError(resp);
      } else {
        r = ResultFromHttp(resp.status, resp.body, ParseRetryAfter(resp.retry_after));
        r.object = Json();
        if (r.http_status == 401) self->credentials_->Invalidate(cred);
      }
      state->End(std::move(r));
    });
  };
  state->last_data = transport_->Now();
  state->request = transport_->Start(std::move(req), std::move(h));
  state->ArmStallTimer();
}

std::shared_ptr<WatchHandle> ClusterClient::WatchOnLoop(const ResourceRef& r, WatchOptions options,
                                                        EventCallback on_event,
                                                        ResultCallback on_end) {
  auto state = std::make_shared<WatchState>();
  state->transport = transport_;
  state->cluster = config_.name;
  state->decoder = WatchDecoder(options_.max_watch_event_bytes);
  state->ref = r;
  state->options = std::move(options);
  state->on_event = std::move(on_event);
  state->on_end = std::move(on_end);
  state->stall_timeout = options_.watch_stall_timeout;
  state->header_timeout = options_.progress_timeout;
  StartWatch(state);
  return state;
}

std::shared_ptr<WatchHandle> ClusterClient::Watch(const ResourceRef& r, WatchOptions options,
                                                  EventCallback on_event, ResultCallback on_end) {
  auto state = std::make_shared<WatchState>();
  state->transport = transport_;
  state->cluster = config_.name;
  state->decoder = WatchDecoder(options_.max_watch_event_bytes);
  state->ref = r;
  state->options = std::move(options);
  state->stall_timeout = options_.watch_stall_timeout;
  state->header_timeout = options_.progress_timeout;
  // The wrappers hold the state weakly (no cycle); each queued callback holds it strongly, so
  // a callback queued before the request finished still runs (unless cancelled).
  std::weak_ptr<WatchState> weak = state;
  Executor* exec = executor_;
  state->on_event = [exec, weak, on_event = std::move(on_event)](WatchEvent ev) {
    auto s = weak.lock();
    if (!s) return;
    exec->Submit([s, on_event, ev = std::move(ev)]() mutable {
      if (!s->canceled) on_event(std::move(ev));
    });
  };
  state->on_end = [exec, weak, on_end = std::move(on_end)](Result res) {
    auto s = weak.lock();
    if (!s) return;
    exec->Submit([s, on_end, res = std::move(res)]() mutable {
      if (!s->canceled) on_end(std::move(res));
    });
  };
  auto self = shared_from_this();
  transport_->Post([self, state] { self->StartWatch(state); });
  return state;
}

// One discovery round. Its requests own it (their callbacks hold it) and it owns the waiters;
// the client points at it only weakly. Waiters hold the client (a Resolve does, to answer on its
// executor): were they the client's own member, a round whose requests the transport drops
// unanswered (it stops with them in flight) would leave the client owning itself, never
// freed, with all it holds (cluster_client_test.cc, AnAbandonedDiscoveryReleasesTheClient).
// This way they go with the requests, and a later lookup starts a new round.
struct ClusterClient::Discovery {
  int outstanding = 0;
  Result error;  // the first failure of /api or /apis
  std::map<std::string, ResourceRef> found;
  // API versions whose resource list failed ("v1", "apps/v1"): their kinds are unknown, not
  // absent.
  std::map<std::string, Result> failed;
  std::vector<std::function<void(Result)>> waiters;
};

void ClusterClient::Discover(std::function<void(Result)> done) {
  if (auto running = discovery_.lock()) {  // one discovery at a time
    running->waiters.push_back(std::move(done));
    return;
  }
  auto self = shared_from_this();
  auto pending = std::make_shared<Discovery>();
  pending->waiters.push_back(std::move(done));
  discovery_ = pending;
  auto finish_one = [self, pending] {
    if (--pending->outstanding > 0) return;
    if (pending->error.ok()) {
      self->mapping_ = std::move(pending->found);
      self->failed_versions_ = std::move(pending->failed);
      // A partial discovery is used, but never trusted to say a kind is absent: the next
      // lookup of an unknown kind discovers again.
      if (self->failed_versions_.empty()) {
        self->discovered_at_ = self->transport_->Now();
      } else {
        self->discovered_at_.reset();
      }
    }
    // Ended: a waiter asking again starts a new round.
    self->discovery_.reset();
    auto waiters = std::move(pending->waiters);
    pending->waiters.clear();
    // Each waiter is its own request: one that throws must not starve the others.
    for (auto& w : waiters)
      self->Guarded(
          "discovery", [&] { w(pending->error); }, nullptr);
  };
  auto fetch_resources = [self, pending, finish_one](const std::string& path,
                                                     const std::string& group,
                                                     const std::string& version) {
    ++pending->outstanding;
    RawRequest req;
    req.path = path;
    self->RequestOnLoop(
        std::move(req), [self, pending, finish_one, group, version, path](Result r) {
          // A failing aggregated API group does not fail discovery as a whole (client-go
          // tolerates partial discovery the same way); nor does a malformed entry in it, which is
          // skipped with a warning naming it.
          self->Guarded(
              "discovery " + path,
              [&] {
                if (!r.ok()) {
                  pending->failed.emplace(group.empty() ? version : group + "/" + version, r);
                  return;
                }
                FieldReader list(r.object);
                const Json* resources = list.Array({"resources"});
                if (!list.ok()) self->Warn("discovery " + path + ": " + list.error());
                if (!resources) return;
                for (std::size_t i = 0; i < resources->size(); ++i) {
                  FieldReader res((*resources)[i]);
                  const std::string name = res.String({"name"});
                  ResourceRef ref{group, version, name, res.String({"kind"}),
                                  res.Bool({"namespaced"}, true)};
                  if (!res.ok()) {
                    self->Warn("discovery " + path + ": resources[" + std::to_string(i) +
                               "]: " + res.error() + "; skipped");
                    continue;
                  }
                  if (name.empty() || name.find('/') != std::string::npos) continue;  // subresource
                  pending->found[ref.ApiVersion() + "/" + ref.kind] = ref;
                }
              },
              nullptr);
          finish_one();
        });
  };
  pending->outstanding = 2;
  RawRequest api;
  api.path = "/api";
  RequestOnLoop(std::move(api), [self, pending, finish_one, fetch_resources](Result r) {
    self->Guarded(
        "discovery /api",
        [&] {
          if (!r.ok()) {
            if (pending->error.ok()) pending->error = r;
            return;
          }
          FieldReader doc(r.object);
          const Json* versions = doc.Array({"versions"});
          if (!doc.ok()) self->Warn("discovery /api: " + doc.error());
          if (!versions) return;
          for (const Json& v : *versions)
            if (v.is_string() && SegmentProblem(v.get_ref<const std::string&>()).empty())
              fetch_resources("/api/" + EscapeSegment(v.get_ref<const std::string&>()), "",
                              v.get<std::string>());
        },
        [pending](Result err) {
          if (pending->error.ok()) pending->error = std::move(err);
        });
    finish_one();
  });
  RawRequest apis;
  apis.path = "/apis";
  RequestOnLoop(std::move(apis), [self, pending, finish_one, fetch_resources](Result r) {
    self->Guarded(
        "discovery /apis",
        [&] {
          if (!r.ok()) {
            if (pending->error.ok()) pending->error = r;
            return;
          }
          FieldReader doc(r.object);
          const Json* groups = doc.Array({"groups"});
          if (!doc.ok()) self->Warn("discovery /apis: " + doc.error());
          if (!groups) return;
          for (std::size_t i = 0; i < groups->size(); ++i) {
            FieldReader g((*groups)[i]);
            const std::string group = g.String({"name"});
            const Json* versions = g.Array({"versions"});
            for (std::size_t j = 0; versions && j < versions->size(); ++j) {
              FieldReader v((*versions)[j]);
              const std::string gv = v.String({"groupVersion"});
              const std::string version = v.String({"version"});
              if (!v.ok()) {
                self->Warn("discovery /apis: groups[" + std::to_string(i) + "].versions[" +
                           std::to_string(j) + "]: " + v.error() + "; skipped");
              } else if (!gv.empty() && SegmentProblem(group).empty() &&
                         SegmentProblem(version).empty()) {
                // The path from the group and version the server names, each one segment
                // (never its groupVersion text pasted whole).
                fetch_resources("/apis/" + EscapeSegment(group) + "/" + EscapeSegment(version),
                                group, version);
              }
            }
            if (!g.ok())
              self->Warn("discovery /apis: groups[" + std::to_string(i) + "]: " + g.error() +
                         "; skipped");
          }
        },
        [pending](Result err) {
          if (pending->error.ok()) pending->error = std::move(err);
        });
    finish_one();
  });
}

void ClusterClient::ResolveOnLoop(const std::string& api_version, const std::string& kind,
                                  std::function<void(Result, ResourceRef)> done) {
  const std::string key = api_version + "/" + kind;
  if (auto it = mapping_.find(key); it != mapping_.end()) {
    done(Result{}, it->second);
    return;
  }
  auto not_found = [api_version, kind, this] {
    return ErrorResult(
        Outcome::kNotFound, Problem::kRequest,
        "no resource of kind " + kind + " in " + api_version + " on cluster " + config_.name);
  };
  const SteadyTime now = transport_->Now();
  if (discovered_at_ && now - *discovered_at_ < options_.discovery_min_refresh) {
    done(not_found(), {});
    return;
  }
  auto self = shared_from_this();
  Discover([self, key, api_version, done, not_found](Result r) {
    if (!r.ok()) {
      done(std::move(r), {});
      return;
    }
    if (auto it = self->mapping_.find(key); it != self->mapping_.end()) {
      done(Result{}, it->second);
    } else if (auto f = self->failed_versions_.find(api_version);
               f != self->failed_versions_.end()) {
      done(f->second, {});  // its group's list failed: as transient as that failure
    } else {
      done(not_found(), {});
    }
  });
}

void ClusterClient::Resolve(const std::string& api_version, const std::string& kind,
                            std::function<void(Result, ResourceRef)> done) {
  auto self = shared_from_this();
  auto finish = std::make_shared<Once<Result, ResourceRef>>(
      [self, done = std::move(done)](Result r, ResourceRef ref) {
        self->executor_->Submit([done, r = std::move(r), ref = std::move(ref)] { done(r, ref); });
      });
  transport_->Post([self, api_version, kind, finish] {
    self->Guarded(
        "resolve " + api_version + " " + kind,
        [&] {
          self->ResolveOnLoop(api_version, kind, [finish](Result r, ResourceRef ref) {
            (*finish)(std::move(r), std::move(ref));
          });
        },
        [finish](Result err) { (*finish)(std::move(err), ResourceRef{}); });
  });
}

}  // namespace fleetwave::clients
