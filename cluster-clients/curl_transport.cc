#include "cluster-clients/curl_transport.h"

#include <curl/curl.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace fleetwave::clients {
namespace {

std::once_flag g_curl_init;

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
  CURLM* multi = nullptr;
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
  bool in_perform = false;
  TimerId next_timer = 1;
  RequestId next_request = 1;
  std::atomic<std::size_t> in_flight{0};

  static size_t OnWrite(char* data, size_t size, size_t n, void* user) {
    Req* r = static_cast<Req*>(user);
    const size_t len = size * n;
    if (r->canceled) return 0;
    long code = 0;
    curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &code);
    if (r->request.stream && code >= 200 && code < 300) {
      if (!r->headers_reported) {
        r->headers_reported = true;
        if (r->handlers.on_headers) r->handlers.on_headers(static_cast<int>(code));
        if (r->canceled) return 0;
      }
      if (r->handlers.on_data) r->handlers.on_data(std::string_view(data, len));
      return r->canceled ? 0 : len;
    }
    // Error bodies (Status objects) and ordinary responses are collected; the cap keeps a
    // misbehaving server from exhausting memory.
    if (r->response.body.size() + len > (256u << 20)) return 0;
    r->response.body.append(data, len);
    return len;
  }

  static size_t OnHeader(char* data, size_t size, size_t n, void* user) {
    Req* r = static_cast<Req*>(user);
    const size_t len = size * n;
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
      if (code >= 200 && !r->headers_reported && r->request.stream && code < 300) {
        r->headers_reported = true;
        if (r->handlers.on_headers) r->handlers.on_headers(static_cast<int>(code));
        if (r->canceled) return 0;
      }
    }
    return len;
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
    // Watches idle for minutes: keepalive probes find dead peers, and the watch's own
    // timeoutSeconds plus the client's stall detection bound the rest.
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPIDLE, 30L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPINTVL, 15L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(ToMillis(ep.connect_timeout)));
    if (q.timeout > Duration::zero())
      curl_easy_setopt(e, CURLOPT_TIMEOUT_MS,
                       static_cast<long>(std::max<long long>(1, ToMillis(q.timeout))));
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
    if (r->added) curl_multi_remove_handle(multi, r->easy);
    if (r->easy) curl_easy_cleanup(r->easy);
    if (r->headers) curl_slist_free_all(r->headers);
    r->easy = nullptr;
    r->headers = nullptr;
  }

  void ProcessRemovals() {
    std::vector<RequestId> ids;
    ids.swap(pending_removals);
    for (RequestId id : ids) {
      auto it = requests.find(id);
      if (it == requests.end()) continue;
      Release(it->second.get());
      requests.erase(it);
      --in_flight;
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
      } else {
        HttpResponse resp;
        resp.error = NetError::kOther;
        resp.error_message = "cannot start request";
        auto done = std::move(r->handlers.on_done);
        Release(r);
        requests.erase(it);
        --in_flight;
        if (done) done(std::move(resp));
      }
    }
  }

  void ProcessDone() {
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      Req* r = nullptr;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&r));
      if (!r) continue;
      const CURLcode rc = msg->data.result;
      const RequestId id = r->id;
      if (r->canceled) {
        pending_removals.push_back(id);
        continue;
      }
      HttpResponse resp = std::move(r->response);
      long code = 0;
      curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &code);
      resp.status = static_cast<int>(code);
      resp.error = MapCurlError(rc);
      if (rc != CURLE_OK) {
        resp.error_message = r->errbuf[0] ? std::string(r->errbuf) : curl_easy_strerror(rc);
        resp.error_message += " (curl " + std::to_string(static_cast<int>(rc)) + ")";
      }
      auto done = std::move(r->handlers.on_done);
      auto it = requests.find(id);
      Release(r);
      requests.erase(it);
      --in_flight;
      if (done) done(std::move(resp));
    }
  }

  void RunTimers() {
    const SteadyTime now = std::chrono::steady_clock::now();
    while (!timers.empty() && timers.begin()->first.first <= now) {
      auto node = timers.extract(timers.begin());
      timer_index.erase(node.key().second);
      node.mapped()();
    }
  }

  void Loop() {
    while (!stop.load()) {
      std::vector<std::function<void()>> tasks;
      {
        std::lock_guard<std::mutex> lock(mu);
        tasks.swap(posted);
      }
      for (auto& t : tasks) t();
      RunTimers();
      ProcessRemovals();
      ProcessAdds();
      int running = 0;
      in_perform = true;
      curl_multi_perform(multi, &running);
      in_perform = false;
      ProcessRemovals();
      ProcessDone();
      ProcessRemovals();

      long timeout_ms = 1000;
      long curl_timeout = -1;
      curl_multi_timeout(multi, &curl_timeout);
      if (curl_timeout >= 0) timeout_ms = std::min(timeout_ms, curl_timeout);
      if (!timers.empty()) {
        const auto until = timers.begin()->first.first - std::chrono::steady_clock::now();
        timeout_ms = std::min<long>(timeout_ms, std::max<long long>(0, ToMillis(until) + 1));
      }
      {
        std::lock_guard<std::mutex> lock(mu);
        if (!posted.empty()) timeout_ms = 0;
      }
      if (!pending_adds.empty() || !pending_removals.empty()) timeout_ms = 0;
      if (timeout_ms > 0) curl_multi_poll(multi, nullptr, 0, static_cast<int>(timeout_ms), nullptr);
    }
  }
};

CurlTransport::CurlTransport(CurlTransportOptions options) : impl_(std::make_unique<Impl>()) {
  std::call_once(g_curl_init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  impl_->multi = curl_multi_init();
  if (options.max_connections > 0)
    curl_multi_setopt(impl_->multi, CURLMOPT_MAXCONNECTS, options.max_connections);
  impl_->thread = std::thread([this] { impl_->Loop(); });
}

CurlTransport::~CurlTransport() {
  impl_->stop = true;
  curl_multi_wakeup(impl_->multi);
  impl_->thread.join();
  for (auto& [id, r] : impl_->requests) impl_->Release(r.get());
  impl_->requests.clear();
  curl_multi_cleanup(impl_->multi);
}

SteadyTime CurlTransport::Now() const { return std::chrono::steady_clock::now(); }

void CurlTransport::Post(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->posted.push_back(std::move(fn));
  }
  curl_multi_wakeup(impl_->multi);
}

TimerId CurlTransport::RunAt(SteadyTime when, std::function<void()> fn) {
  const TimerId id = impl_->next_timer++;
  impl_->timers.emplace(std::make_pair(when, id), std::move(fn));
  impl_->timer_index[id] = when;
  return id;
}

void CurlTransport::CancelTimer(TimerId id) {
  auto it = impl_->timer_index.find(id);
  if (it == impl_->timer_index.end()) return;
  impl_->timers.erase({it->second, id});
  impl_->timer_index.erase(it);
}

RequestId CurlTransport::Start(HttpRequest request, HttpHandlers handlers) {
  auto r = std::make_unique<Req>();
  r->id = impl_->next_request++;
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
  // Never remove a handle from inside curl_multi_perform; the write callback's 0 or the
  // next loop turn finishes the job.
  impl_->pending_removals.push_back(id);
}

std::size_t CurlTransport::InFlight() const { return impl_->in_flight.load(); }

}  // namespace fleetwave::clients
