#include "cluster-clients/curl_transport.h"

#include <curl/curl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <exception>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

namespace fleetwave::clients {
namespace {

std::once_flag g_curl_init;

// A dead peer that sends nothing back (host gone, cable cut) is noticed by TCP keepalive
// probes on idle connections and by the user timeout on connections with unacknowledged
// data: 30 s idle + 3 probes 15 s apart, or 75 s of unacknowledged data. Far below the
// client's watch stall timeout, well above the ~60 s between bookmarks on an idle watch's
// connection (keepalive probes are answered by a live peer's kernel, so a quiet but live
// watch is never cut). This is the connection upkeep for HTTP/2 as well: libcurl 7.88's
// curl_easy_upkeep() only walks the easy interface's own cache, never a multi handle's, so it
// cannot ping our connections.
constexpr int kKeepIdleS = 30;
constexpr int kKeepIntervalS = 15;
constexpr int kKeepCount = 3;
constexpr unsigned kUserTimeoutMs = 75'000;
// libcurl allocates its receive buffer one byte larger: 4,095 makes one 4 KiB allocation.
constexpr long kStreamReceiveBufferBytes = 4095;

// A body's cap when the request names none (HttpRequest::max_body_bytes).
constexpr std::size_t kMaxBody = 256u << 20;

struct Req {
  RequestId id = 0;
  HttpRequest request;
  HttpHandlers handlers;
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  HttpResponse response;
  bool headers_reported = false;
  bool canceled = false;
  bool added = false;
  bool too_large = false;      // the body passed its cap; the transfer was stopped
  SteadyTime last_progress{};  // start, then each response byte (HttpRequest::progress_timeout)
  TimerId progress_timer = 0;
  std::string handler_failure;  // set when one of its handlers threw
  std::string not_sent;         // HttpRequest::send_refusal's answer: the request was not sent
  CurlTransport::Impl* owner = nullptr;
  char errbuf[CURL_ERROR_SIZE] = {0};
};

NetError MapCurlError(CURLcode rc) {
  switch (rc) {
    case CURLE_OK:
      return NetError::kNone;
    case CURLE_WRITE_ERROR:
    case CURLE_ABORTED_BY_CALLBACK:
      return NetError::kCanceled;
    case CURLE_OPERATION_TIMEDOUT:
      return NetError::kTimeout;
    case CURLE_COULDNT_CONNECT:
      return NetError::kConnectRefused;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return NetError::kDns;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_USE_SSL_FAILED:
      return NetError::kTls;
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return NetError::kConnection;
    default:
      return NetError::kOther;
  }
}

}  // namespace

struct CurlTransport::Impl {
  explicit Impl(CurlTransportOptions o) : options(std::move(o)) {}

  CurlTransportOptions options;
  CURLM* multi = nullptr;
  // TLS sessions, shared by every request: libcurl keeps them per easy handle otherwise, and
  // we make one per request, so each new connection would do a full handshake. With the
  // share, a second connection to a cluster (HTTP/1.1: one per open watch) resumes the
  // session of an earlier one. Loop thread only (the destructor's cleanup aside), so no locks.
  CURLSH* share = nullptr;
  int epoll_fd = -1;
  int wake_fd = -1;  // eventfd: Post() and the destructor wake the loop with it
  std::thread thread;
  std::atomic<bool> stop{false};

  std::mutex mu;  // guards `posted` only
  std::vector<std::function<void()>> posted;

  // Loop-thread state.
  std::map<std::pair<SteadyTime, TimerId>, std::function<void()>> timers;
  std::unordered_map<TimerId, SteadyTime> timer_index;
  std::unordered_map<RequestId, std::unique_ptr<Req>> requests;
  std::vector<RequestId> pending_adds;
  std::vector<RequestId> pending_removals;
  std::optional<SteadyTime> curl_deadline;  // from CURLMOPT_TIMERFUNCTION
  TimerId next_timer = 1;
  RequestId next_request = 1;
  std::atomic<std::size_t> in_flight{0};

  std::atomic<std::int64_t> sockets_open{0}, sockets_opened{0}, responses_http2{0},
      responses_http1{0}, handler_exceptions{0}, loop_wakeups{0};

  // The one catch-all around everything the loop calls that is not ours: request handlers,
  // timers, posted tasks. An exception must not unwind through libcurl's C frames nor end
  // the I/O thread (std::terminate): it costs the request it belongs to (if any), is logged
  // once here, and the loop goes on. Returns false if `fn` threw. Pinned by
  // CurlTransportTest.HandlerExceptionFailsOnlyItsRequest.
  template <typename Fn>
  bool Guarded(const char* where, Req* r, Fn&& fn) noexcept {
    std::string what;
    try {
      fn();
      return true;
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
      what = "unknown exception";
    }
    ++handler_exceptions;
    std::string msg = std::string("transport: ") + where + " threw: " + what;
    if (r) {
      msg += "; request " + std::to_string(r->id) + " (" + r->request.method + " " +
             r->request.url + ") ends with a permanent error";
      if (r->handler_failure.empty()) r->handler_failure = std::string(where) + " threw: " + what;
    } else {
      msg += "; dropped";
    }
    try {
      if (options.log) {
        options.log(msg);
      } else {
        std::cerr << "fleetwave: error: " << msg << "\n";
      }
    } catch (...) {  // a throwing logger must not take the loop down either
    }
    return false;
  }

  // --- libcurl callbacks (loop thread, inside curl_multi_socket_action) ---

  static size_t OnWrite(char* data, size_t size, size_t n, void* user) {
    Req* r = static_cast<Req*>(user);
    Impl* self = r->owner;
    const size_t len = size * n;
    if (r->canceled || !r->handler_failure.empty()) return 0;
    r->last_progress = std::chrono::steady_clock::now();
    long code = 0;
    curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &code);
    if (r->request.stream && code >= 200 && code < 300) {
      if (!r->headers_reported && !self->ReportHeaders(r, code)) return 0;
      if (r->handlers.on_data &&
          !self->Guarded("on_data", r, [&] { r->handlers.on_data(std::string_view(data, len)); }))
        return 0;
      return r->canceled ? 0 : len;
    }
    // Error bodies (Status objects) and ordinary responses are collected; the cap keeps a
    // misbehaving server from exhausting memory.
    const std::size_t cap = r->request.max_body_bytes ? r->request.max_body_bytes : kMaxBody;
    if (r->response.body.size() + len > cap) {
      r->too_large = true;
      std::string().swap(r->response.body);
      return 0;
    }
    r->response.body.append(data, len);
    return len;
  }

  static size_t OnHeader(char* data, size_t size, size_t n, void* user) {
    Req* r = static_cast<Req*>(user);
    Impl* self = r->owner;
    const size_t len = size * n;
    r->last_progress = std::chrono::steady_clock::now();
    std::string_view line(data, len);
    if (line.rfind("HTTP/", 0) == 0) {
      r->response.retry_after.clear();  // a new response (after 100 Continue or a proxy)
    } else if (line.size() > 12 &&
               (line.substr(0, 12) == "Retry-After:" || line.substr(0, 12) == "retry-after:")) {
      std::string v(line.substr(12));
      while (!v.empty() && (v.back() == '\r' || v.back() == '\n' || v.back() == ' ')) v.pop_back();
      while (!v.empty() && v.front() == ' ') v.erase(v.begin());
      r->response.retry_after = v;
    } else if (line == "\r\n" || line == "\n") {
      long code = 0;
      curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &code);
      if (code >= 200) {
        long version = 0;
        curl_easy_getinfo(r->easy, CURLINFO_HTTP_VERSION, &version);
        r->response.http_version = version == CURL_HTTP_VERSION_2_0 ? 2 : 1;
        ++(version == CURL_HTTP_VERSION_2_0 ? self->responses_http2 : self->responses_http1);
      }
      if (code >= 200 && code < 300 && r->request.stream && !r->headers_reported &&
          !self->ReportHeaders(r, code))
        return 0;
    }
    return len;
  }

  // Runs on_headers once for a 2xx stream; false = stop the transfer.
  bool ReportHeaders(Req* r, long code) {
    r->headers_reported = true;
    if (r->handlers.on_headers &&
        !Guarded("on_headers", r, [&] { r->handlers.on_headers(static_cast<int>(code)); }))
      return false;
    return !r->canceled;
  }

  // CURLMOPT_SOCKETFUNCTION: libcurl says which sockets to watch for what; mirror it in epoll.
  // `socketp` (set by curl_multi_assign) marks a socket already registered.
  static int OnSocket(CURL*, curl_socket_t s, int what, void* user, void* socketp) {
    Impl* self = static_cast<Impl*>(user);
    if (what == CURL_POLL_REMOVE) {
      // The socket may already be closed (then epoll dropped it itself): ignore errors.
      epoll_ctl(self->epoll_fd, EPOLL_CTL_DEL, s, nullptr);
      curl_multi_assign(self->multi, s, nullptr);
      return 0;
    }
    epoll_event ev{};
    ev.data.fd = s;
    if (what == CURL_POLL_IN || what == CURL_POLL_INOUT) ev.events |= EPOLLIN;
    if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT) ev.events |= EPOLLOUT;
    if (socketp) {
      if (epoll_ctl(self->epoll_fd, EPOLL_CTL_MOD, s, &ev) != 0 && errno == ENOENT)
        epoll_ctl(self->epoll_fd, EPOLL_CTL_ADD, s, &ev);
    } else {
      if (epoll_ctl(self->epoll_fd, EPOLL_CTL_ADD, s, &ev) != 0 && errno == EEXIST)
        epoll_ctl(self->epoll_fd, EPOLL_CTL_MOD, s, &ev);
      curl_multi_assign(self->multi, s, self);  // any non-null marker
    }
    return 0;
  }

  // CURLMOPT_TIMERFUNCTION: one deadline for all of libcurl's timeouts; -1 removes it. Never
  // call back into libcurl from here: the loop acts on it.
  static int OnCurlTimer(CURLM*, long timeout_ms, void* user) {
    Impl* self = static_cast<Impl*>(user);
    if (timeout_ms < 0) {
      self->curl_deadline.reset();
    } else {
      self->curl_deadline =
          std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    }
    return 0;
  }

  // CURLOPT_OPENSOCKETFUNCTION / CLOSESOCKETFUNCTION: count the connections we hold (tests
  // assert one per cluster with HTTP/2), and set the dead-peer timeouts above.
  static curl_socket_t OnOpenSocket(void* user, curlsocktype, curl_sockaddr* addr) {
    Impl* self = static_cast<Impl*>(user);
    const curl_socket_t s = ::socket(addr->family, addr->socktype | SOCK_CLOEXEC, addr->protocol);
    if (s == CURL_SOCKET_BAD) return s;
    if (addr->family == AF_INET || addr->family == AF_INET6) {
      const int cnt = kKeepCount;
      const unsigned uto = kUserTimeoutMs;
      setsockopt(s, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
      setsockopt(s, IPPROTO_TCP, TCP_USER_TIMEOUT, &uto, sizeof uto);
    }
    ++self->sockets_open;
    ++self->sockets_opened;
    return s;
  }

  // CURLOPT_SSL_CTX_FUNCTION: an idle TLS connection (a quiet watch) gives its read and write
  // buffers back to the allocator, so thousands of idle watches do not each keep ~34 KB, and
  // the next record is read into memory that is still warm from the last one.
  static CURLcode OnSslCtx(CURL*, void* ctx, void*) {
    SSL_CTX_set_mode(static_cast<SSL_CTX*>(ctx), SSL_MODE_RELEASE_BUFFERS);
    return CURLE_OK;
  }

  // CURLOPT_PREREQFUNCTION: libcurl calls it once the connection is ready, right before it
  // writes the request (HttpRequest::send_refusal).
  // A refusal that throws is not an answer: the request is not sent either.
  static int OnPrereq(void* user, char*, char*, int, int) {
    Req* r = static_cast<Req*>(user);
    std::string why;
    if (!r->owner->Guarded("send_refusal", r, [&] { why = r->request.send_refusal(); }))
      return CURL_PREREQFUNC_ABORT;
    if (why.empty()) return CURL_PREREQFUNC_OK;
    r->not_sent = std::move(why);
    return CURL_PREREQFUNC_ABORT;
  }

  static int OnCloseSocket(void* user, curl_socket_t s) {
    Impl* self = static_cast<Impl*>(user);
    --self->sockets_open;
    return ::close(s);
  }

  void Setup(Req* r) {
    CURL* e = curl_easy_init();
    r->easy = e;
    const HttpRequest& q = r->request;
    const Endpoint& ep = *q.endpoint;
    curl_easy_setopt(e, CURLOPT_URL, q.url.c_str());
    curl_easy_setopt(e, CURLOPT_PRIVATE, r);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->errbuf);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &Impl::OnWrite);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &Impl::OnHeader);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, &Impl::OnOpenSocket);
    curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, this);
    curl_easy_setopt(e, CURLOPT_CLOSESOCKETFUNCTION, &Impl::OnCloseSocket);
    curl_easy_setopt(e, CURLOPT_CLOSESOCKETDATA, this);
    if (q.send_refusal) {
      curl_easy_setopt(e, CURLOPT_PREREQFUNCTION, &Impl::OnPrereq);
      curl_easy_setopt(e, CURLOPT_PREREQDATA, r);
    }
    // Watches idle for minutes: keepalive probes find dead peers (see kKeepIdleS), and the
    // watch's own timeoutSeconds plus the client's stall detection bound the rest.
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPIDLE, static_cast<long>(kKeepIdleS));
    curl_easy_setopt(e, CURLOPT_TCP_KEEPINTVL, static_cast<long>(kKeepIntervalS));
    // A watch keeps its handle for minutes and its events are small, while libcurl gives every
    // handle a receive buffer of 16 KiB at connect (20 KiB in jemalloc's size classes, with
    // its extra byte) and keeps it: about a third of a cluster's connection memory at rest
    // (325 → 219 KB per cluster, docs/benchmarks.md "Heap profile"). A stream's body is
    // decoded chunk by chunk anyway.
    if (q.stream) curl_easy_setopt(e, CURLOPT_BUFFERSIZE, kStreamReceiveBufferBytes);
    curl_easy_setopt(e, CURLOPT_SSL_CTX_FUNCTION, &Impl::OnSslCtx);
    curl_easy_setopt(e, CURLOPT_SHARE, share);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(ToMillis(ep.connect_timeout)));
    if (q.timeout > Duration::zero())
      curl_easy_setopt(e, CURLOPT_TIMEOUT_MS,
                       static_cast<long>(std::max<long long>(1, ToMillis(q.timeout))));
    // HTTP/2 only where ALPN offers it (2TLS: HTTP/1.1 for cleartext and for servers that do
    // not offer h2). PIPEWAIT makes a new request wait for the origin's connection to show
    // whether it multiplexes instead of opening a second one, so all of a cluster's watches
    // share one connection. Pinned by CurlHttp2Test.OneConnectionPerCluster.
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION,
                     ep.http2 ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1);
    if (ep.http2) curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
    if (!ep.ca_pem.empty()) {
      curl_blob blob{const_cast<char*>(ep.ca_pem.data()), ep.ca_pem.size(), CURL_BLOB_NOCOPY};
      curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &blob);
    }
    if (!ep.client_cert_pem.empty()) {
      curl_blob cert{const_cast<char*>(ep.client_cert_pem.data()), ep.client_cert_pem.size(),
                     CURL_BLOB_NOCOPY};
      curl_blob key{const_cast<char*>(ep.client_key_pem.data()), ep.client_key_pem.size(),
                    CURL_BLOB_NOCOPY};
      curl_easy_setopt(e, CURLOPT_SSLCERT_BLOB, &cert);
      curl_easy_setopt(e, CURLOPT_SSLCERTTYPE, "PEM");
      curl_easy_setopt(e, CURLOPT_SSLKEY_BLOB, &key);
      curl_easy_setopt(e, CURLOPT_SSLKEYTYPE, "PEM");
    }
    if (ep.insecure_skip_verify) {
      curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
      curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (!ep.proxy_url.empty()) curl_easy_setopt(e, CURLOPT_PROXY, ep.proxy_url.c_str());
    if (q.method != "GET") curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, q.method.c_str());
    if (!q.body.empty() || q.method == "POST" || q.method == "PUT" || q.method == "PATCH") {
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(q.body.size()));
      curl_easy_setopt(e, CURLOPT_POSTFIELDS, q.body.data());
    }
    // No "Expect: 100-continue" round trip for bodies.
    r->headers = curl_slist_append(r->headers, "Expect:");
    for (const auto& h : q.headers) r->headers = curl_slist_append(r->headers, h.c_str());
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->headers);
  }

  void Release(Req* r) {
    if (r->progress_timer) CancelTimer(r->progress_timer);
    r->progress_timer = 0;
    if (r->added) curl_multi_remove_handle(multi, r->easy);
    if (r->easy) curl_easy_cleanup(r->easy);
    if (r->headers) curl_slist_free_all(r->headers);
    r->easy = nullptr;
    r->headers = nullptr;
    r->added = false;
  }

  // Ends a request that libcurl no longer drives and runs its on_done (unless cancelled).
  void Finish(std::unordered_map<RequestId, std::unique_ptr<Req>>::iterator it, HttpResponse resp) {
    std::unique_ptr<Req> r = std::move(it->second);
    requests.erase(it);
    Release(r.get());
    --in_flight;
    if (r->canceled || !r->handlers.on_done) return;
    auto done = std::move(r->handlers.on_done);
    Guarded("on_done", nullptr, [&] { done(std::move(resp)); });
  }

  void ProcessRemovals() {
    std::vector<RequestId> ids;
    ids.swap(pending_removals);
    for (RequestId id : ids) {
      auto it = requests.find(id);
      if (it != requests.end()) Finish(it, {});
    }
  }

  void ProcessAdds() {
    std::vector<RequestId> ids;
    ids.swap(pending_adds);
    for (RequestId id : ids) {
      auto it = requests.find(id);
      if (it == requests.end() || it->second->canceled) continue;
      Req* r = it->second.get();
      Setup(r);
      if (curl_multi_add_handle(multi, r->easy) == CURLM_OK) {
        r->added = true;
        if (r->request.progress_timeout > Duration::zero()) {
          r->last_progress = std::chrono::steady_clock::now();
          ArmProgress(r);
        }
      } else {
        HttpResponse resp;
        resp.error = NetError::kOther;
        resp.error_message = "cannot start request";
        Finish(it, std::move(resp));
      }
    }
  }

  void ProcessDone() {
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      const CURLcode rc = msg->data.result;
      Req* r = nullptr;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&r));
      if (!r) continue;
      auto it = requests.find(r->id);
      if (it == requests.end()) continue;
      HttpResponse resp = std::move(r->response);
      long code = 0;
      curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &code);
      resp.status = static_cast<int>(code);
      if (!r->handler_failure.empty()) {
        resp.error = NetError::kHandlerFailed;
        resp.error_message = r->handler_failure;
      } else if (!r->not_sent.empty()) {
        resp.error = NetError::kNotSent;
        resp.error_message = r->not_sent;
      } else if (r->too_large) {
        resp.error = NetError::kTooLarge;
        resp.error_message =
            "the response body exceeds " +
            std::to_string(r->request.max_body_bytes ? r->request.max_body_bytes : kMaxBody) +
            " bytes";
      } else {
        resp.error = MapCurlError(rc);
        if (rc != CURLE_OK) {
          resp.error_message = r->errbuf[0] ? std::string(r->errbuf) : curl_easy_strerror(rc);
          resp.error_message += " (curl " + std::to_string(static_cast<int>(rc)) + ")";
        }
      }
      Finish(it, std::move(resp));
    }
  }

  // HttpRequest::progress_timeout: a timer at the last byte plus the bound. When it fires with
  // nothing arrived since, the request ends here (a timer runs outside libcurl's callbacks, so
  // its handle may be removed) with kNoProgress; else it moves to the new last byte.
  void ArmProgress(Req* r) {
    const RequestId id = r->id;
    r->progress_timer =
        RunAt(r->last_progress + r->request.progress_timeout, [this, id] { CheckProgress(id); });
  }

  void CheckProgress(RequestId id) {
    auto it = requests.find(id);
    if (it == requests.end()) return;
    Req* r = it->second.get();
    r->progress_timer = 0;
    if (r->canceled) return;
    const SteadyTime now = std::chrono::steady_clock::now();
    if (now - r->last_progress < r->request.progress_timeout) {
      ArmProgress(r);
      return;
    }
    HttpResponse resp;
    resp.error = NetError::kNoProgress;
    resp.error_message = "no response byte for " +
                         std::to_string(ToMillis(r->request.progress_timeout)) +
                         " ms (progress timeout)";
    Finish(it, std::move(resp));
  }

  TimerId RunAt(SteadyTime when, std::function<void()> fn) {
    const TimerId id = next_timer++;
    timers.emplace(std::make_pair(when, id), std::move(fn));
    timer_index[id] = when;
    return id;
  }

  void CancelTimer(TimerId id) {
    auto it = timer_index.find(id);
    if (it == timer_index.end()) return;
    timers.erase({it->second, id});
    timer_index.erase(it);
  }

  void RunPosted() {
    std::vector<std::function<void()>> tasks;
    {
      std::lock_guard<std::mutex> lock(mu);
      tasks.swap(posted);
    }
    for (auto& t : tasks) Guarded("posted task", nullptr, t);
  }

  void RunTimers() {
    const SteadyTime now = std::chrono::steady_clock::now();
    while (!timers.empty() && timers.begin()->first.first <= now) {
      auto node = timers.extract(timers.begin());
      timer_index.erase(node.key().second);
      Guarded("timer", nullptr, node.mapped());
    }
  }

  void SocketAction(curl_socket_t s, int flags) {
    int running = 0;
    curl_multi_socket_action(multi, s, flags, &running);
    // libcurl calls the timer callback only when its earliest deadline changes; if we fired
    // a hair before libcurl deems that deadline due, it stays the same, no callback comes and
    // the deadline we cleared would be lost (a connect or request timeout that never fires).
    // Asking libcurl afterwards is O(1) and always right.
    long ms = -1;
    curl_multi_timeout(multi, &ms);
    if (ms < 0) {
      curl_deadline.reset();
    } else {
      curl_deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    }
  }

  // Milliseconds until the earliest of libcurl's deadline and our first timer (rounded up,
  // so the loop never spins on a sub-millisecond remainder); -1 = nothing scheduled.
  int WaitMillis() {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!posted.empty()) return 0;
    }
    if (!pending_adds.empty() || !pending_removals.empty()) return 0;
    std::optional<SteadyTime> next = curl_deadline;
    if (!timers.empty() && (!next || timers.begin()->first.first < *next))
      next = timers.begin()->first.first;
    if (!next) return -1;
    const auto left = *next - std::chrono::steady_clock::now();
    if (left <= Duration::zero()) return 0;
    const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
    return static_cast<int>(std::min<long long>(ms, 24 * 3600 * 1000));
  }

  // One turn: our own work first (tasks, timers, handle changes, which may schedule libcurl
  // work), then libcurl's due timeout, then sleep in epoll until a socket is ready, a deadline
  // passes or Post() writes the eventfd, and hand libcurl exactly the sockets that are ready.
  // Cost per turn is O(ready sockets + due timers), independent of idle transfers.
  void Loop() {
    std::vector<epoll_event> events(256);
    while (!stop.load()) {
      RunPosted();
      RunTimers();
      ProcessRemovals();
      ProcessAdds();
      if (curl_deadline && *curl_deadline <= std::chrono::steady_clock::now()) {
        curl_deadline.reset();
        SocketAction(CURL_SOCKET_TIMEOUT, 0);
        ProcessDone();
        ProcessRemovals();
      }
      const int wait_ms = WaitMillis();
      const int n = epoll_wait(epoll_fd, events.data(), static_cast<int>(events.size()), wait_ms);
      ++loop_wakeups;
      for (int i = 0; i < n; ++i) {
        const int fd = events[static_cast<std::size_t>(i)].data.fd;
        const std::uint32_t ev = events[static_cast<std::size_t>(i)].events;
        if (fd == wake_fd) {
          std::uint64_t v = 0;
          [[maybe_unused]] ssize_t got = ::read(wake_fd, &v, sizeof v);
          continue;
        }
        int flags = 0;
        if (ev & EPOLLIN) flags |= CURL_CSELECT_IN;
        if (ev & EPOLLOUT) flags |= CURL_CSELECT_OUT;
        if (ev & (EPOLLERR | EPOLLHUP)) flags |= CURL_CSELECT_ERR;
        SocketAction(fd, flags);
      }
      ProcessDone();
      ProcessRemovals();
    }
  }

  void Wake() {
    const std::uint64_t one = 1;
    [[maybe_unused]] ssize_t put = ::write(wake_fd, &one, sizeof one);
  }
};

CurlTransport::CurlTransport(CurlTransportOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {
  std::call_once(g_curl_init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  Impl& m = *impl_;
  m.epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  m.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = m.wake_fd;
  epoll_ctl(m.epoll_fd, EPOLL_CTL_ADD, m.wake_fd, &ev);
  m.multi = curl_multi_init();
  m.share = curl_share_init();
  curl_share_setopt(m.share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  curl_multi_setopt(m.multi, CURLMOPT_SOCKETFUNCTION, &Impl::OnSocket);
  curl_multi_setopt(m.multi, CURLMOPT_SOCKETDATA, &m);
  curl_multi_setopt(m.multi, CURLMOPT_TIMERFUNCTION, &Impl::OnCurlTimer);
  curl_multi_setopt(m.multi, CURLMOPT_TIMERDATA, &m);
  curl_multi_setopt(m.multi, CURLMOPT_PIPELINING, static_cast<long>(CURLPIPE_MULTIPLEX));
  // Streams per HTTP/2 connection before a new one is opened: kube-apiserver's default limit
  // (--http2-max-streams-per-connection), so a cluster with more watches and requests open at
  // once gets a second connection instead of streams the server would hold back.
  curl_multi_setopt(m.multi, CURLMOPT_MAX_CONCURRENT_STREAMS, 100L);
  if (m.options.max_connections > 0)
    curl_multi_setopt(m.multi, CURLMOPT_MAXCONNECTS, m.options.max_connections);
  if (m.options.max_host_connections > 0)
    curl_multi_setopt(m.multi, CURLMOPT_MAX_HOST_CONNECTIONS, m.options.max_host_connections);
  m.thread = std::thread([this] {
    // Named for `top -H` and for the daemon's test that it keeps the process's priority while
    // its background threads run below it (tools/fleetwave/thread_priority.h).
    pthread_setname_np(pthread_self(), "fw-cluster-io");
    impl_->Loop();
  });
}

CurlTransport::~CurlTransport() {
  impl_->stop = true;
  impl_->Wake();
  impl_->thread.join();
  for (auto& [id, r] : impl_->requests) impl_->Release(r.get());
  impl_->requests.clear();
  curl_multi_cleanup(impl_->multi);
  curl_share_cleanup(impl_->share);  // after every easy handle that used it
  ::close(impl_->wake_fd);
  ::close(impl_->epoll_fd);
}

SteadyTime CurlTransport::Now() const { return std::chrono::steady_clock::now(); }

void CurlTransport::Post(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->posted.push_back(std::move(fn));
  }
  impl_->Wake();
}

TimerId CurlTransport::RunAt(SteadyTime when, std::function<void()> fn) {
  return impl_->RunAt(when, std::move(fn));
}

void CurlTransport::CancelTimer(TimerId id) { impl_->CancelTimer(id); }

RequestId CurlTransport::Start(HttpRequest request, HttpHandlers handlers) {
  auto r = std::make_unique<Req>();
  r->id = impl_->next_request++;
  r->owner = impl_.get();
  r->request = std::move(request);
  r->handlers = std::move(handlers);
  const RequestId id = r->id;
  impl_->requests[id] = std::move(r);
  // Added on the next loop turn: libcurl forbids adding handles from inside its callbacks.
  impl_->pending_adds.push_back(id);
  ++impl_->in_flight;
  return id;
}

void CurlTransport::Cancel(RequestId id) {
  auto it = impl_->requests.find(id);
  if (it == impl_->requests.end() || it->second->canceled) return;
  // Handlers are kept (not destroyed) here: Cancel may be called from inside one of them.
  it->second->canceled = true;
  // Never remove a handle from inside curl_multi_socket_action; the write callback's 0 or
  // the next loop turn finishes the job.
  impl_->pending_removals.push_back(id);
}

std::size_t CurlTransport::InFlight() const { return impl_->in_flight.load(); }

CurlTransport::Stats CurlTransport::stats() const {
  Stats s;
  s.sockets_open = impl_->sockets_open.load();
  s.sockets_opened = impl_->sockets_opened.load();
  s.responses_http2 = impl_->responses_http2.load();
  s.responses_http1 = impl_->responses_http1.load();
  s.handler_exceptions = impl_->handler_exceptions.load();
  s.loop_wakeups = impl_->loop_wakeups.load();
  return s;
}

double CurlTransport::LoopCpuSeconds() const {
  clockid_t cid;
  if (pthread_getcpuclockid(const_cast<std::thread&>(impl_->thread).native_handle(), &cid) != 0)
    return -1;
  timespec ts{};
  if (clock_gettime(cid, &ts) != 0) return -1;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

}  // namespace fleetwave::clients
