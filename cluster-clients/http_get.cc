#include "cluster-clients/http_get.h"

#include <curl/curl.h>

#include <memory>
#include <mutex>

namespace fleetwave::clients {
namespace {

std::once_flag g_curl_init;

NetError ErrorOf(CURLcode code) {
  switch (code) {
    case CURLE_OK:
      return NetError::kNone;
    case CURLE_COULDNT_CONNECT:
      return NetError::kConnectRefused;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return NetError::kDns;
    case CURLE_OPERATION_TIMEDOUT:
      return NetError::kTimeout;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
      return NetError::kTls;
    case CURLE_ABORTED_BY_CALLBACK:
      return NetError::kCanceled;
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
      return NetError::kConnection;
    default:
      return NetError::kOther;
  }
}

struct Transfer {
  CURL* curl = nullptr;
  const SimpleRequest* request = nullptr;
  const std::function<bool(std::string_view)>* on_line = nullptr;  // null: collect the body
  SimpleResponse response;
  std::string pending;    // a stream's partial line
  bool stopped = false;   // on_line asked to stop
  std::string too_large;  // why the transfer was stopped for its size; "" = it was not
};

bool Is2xx(CURL* curl) {
  long code = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
  return code >= 200 && code < 300;
}

size_t OnWrite(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  if (t->on_line == nullptr || !Is2xx(t->curl)) {
    if (t->response.body.size() + n > t->request->max_body_bytes) {
      t->too_large =
          "the response body exceeds " + std::to_string(t->request->max_body_bytes) + " bytes";
      std::string().swap(t->response.body);
      return 0;
    }
    t->response.body.append(data, n);
    return n;
  }
  t->pending.append(data, n);
  size_t start = 0;
  while (true) {
    const size_t nl = t->pending.find('\n', start);
    if (nl == std::string::npos) break;
    std::string_view line(t->pending.data() + start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    start = nl + 1;
    if (!(*t->on_line)(line)) {
      t->stopped = true;
      return 0;  // ends the transfer (CURLE_WRITE_ERROR)
    }
  }
  t->pending.erase(0, start);
  if (t->pending.size() > t->request->max_line_bytes) {
    t->too_large =
        "a line of the stream exceeds " + std::to_string(t->request->max_line_bytes) + " bytes";
    std::string().swap(t->pending);
    return 0;
  }
  return n;
}

int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  return t->request->cancel != nullptr && t->request->cancel->load() ? 1 : 0;
}

SimpleResponse Run(const SimpleRequest& request,
                   const std::function<bool(std::string_view)>* on_line) {
  std::call_once(g_curl_init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  Transfer t;
  t.request = &request;
  t.on_line = on_line;
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) {
    t.response.error = NetError::kOther;
    t.response.error_message = "cannot initialise libcurl";
    return t.response;
  }
  t.curl = curl.get();
  curl_slist* headers = nullptr;
  for (const auto& h : request.headers) headers = curl_slist_append(headers, h.c_str());
  std::unique_ptr<curl_slist, void (*)(curl_slist*)> header_list(headers, curl_slist_free_all);
  char error_text[CURL_ERROR_SIZE] = {0};

  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  if (request.method == "HEAD") curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  if (!request.body.empty() || request.method == "POST") {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_text);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, OnWrite);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, OnProgress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, &t);
  if (!request.ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, request.ca_file.c_str());
  if (!request.cert_file.empty()) curl_easy_setopt(c, CURLOPT_SSLCERT, request.cert_file.c_str());
  if (!request.key_file.empty()) curl_easy_setopt(c, CURLOPT_SSLKEY, request.key_file.c_str());
  // A proxy from the environment would only get in the way of a loopback daemon.
  curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.timeout.count()));
  if (on_line == nullptr) {
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
  } else {
    // A watch sends a keepalive line every 15 s: a minute of silence means the daemon is gone.
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
  }

  const CURLcode code = curl_easy_perform(c);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  t.response.status = static_cast<int>(status);
  char* type = nullptr;
  if (curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &type) == CURLE_OK && type != nullptr) {
    t.response.content_type = type;
  }
  if (t.stopped) return t.response;  // the caller's choice, not an error
  if (!t.too_large.empty()) {
    t.response.error = NetError::kTooLarge;
    t.response.error_message = t.too_large;
    return t.response;
  }
  if (on_line != nullptr && code == CURLE_OK && !t.pending.empty() && Is2xx(c)) {
    (*on_line)(t.pending);
  }
  t.response.error = ErrorOf(code);
  if (code != CURLE_OK) {
    t.response.error_message = error_text[0] ? error_text : curl_easy_strerror(code);
  }
  return t.response;
}

}  // namespace

SimpleResponse HttpFetch(const SimpleRequest& request) { return Run(request, nullptr); }

SimpleResponse HttpStreamLines(const SimpleRequest& request,
                               const std::function<bool(std::string_view line)>& on_line) {
  return Run(request, &on_line);
}

}  // namespace fleetwave::clients
