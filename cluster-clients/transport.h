// The seam between the Kubernetes client logic and the network: an event loop that runs
// HTTP requests and timers on one thread. `CurlTransport` (curl_transport.h) is the real one,
// `FakeTransport` (tests) answers scripted responses in virtual time.
//
// Threading contract: `Post` may be called from any thread. Everything else (`Now` aside) is
// called on the loop thread only, and every handler and timer runs on the loop thread. So the
// client state machines built on a transport need no locks. Handlers must not block.
// Handlers should not throw; if one does anyway, the transport ends that handler's request
// with `NetError::kHandlerFailed` (a permanent error) and keeps serving every other request.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster-clients/clock.h"

namespace fleetwave::clients {

// How to reach one API server: TLS material (PEM bytes, never file names, so a kubeconfig's
// `-data` fields and files look the same) and connection options. Shared by all requests to
// one cluster; immutable once built (a credential change builds a new one).
struct Endpoint {
  std::string ca_pem;           // empty = system trust store
  std::string client_cert_pem;  // mutual TLS
  std::string client_key_pem;
  bool insecure_skip_verify = false;
  std::string proxy_url;
  bool http2 = false;
  Duration connect_timeout = seconds(5);
};

// Failures below HTTP.
enum class NetError {
  kNone,
  kCanceled,
  kTimeout,
  kConnectRefused,
  kDns,
  kTls,
  kConnection,  // reset / closed / send or receive error (curl 52, 55, 56)
  kOther,
  // One of the request's own handlers threw: the transport ended the request so the bug
  // costs this request, not the process. Permanent: retrying would run the same code.
  kHandlerFailed,
  // The response body grew past HttpRequest::max_body_bytes: the transfer was stopped and
  // what arrived released. Permanent: the same request would bring the same body.
  kTooLarge,
  // No byte of the response arrived within HttpRequest::progress_timeout: the server (or the
  // path to it) accepted the request and went silent. The transfer was stopped.
  kNoProgress,
  // HttpRequest::send_refusal answered, right before the request's first byte: nothing of it
  // was sent. error_message is the refusal.
  kNotSent,
};

struct HttpRequest {
  std::shared_ptr<const Endpoint> endpoint;
  std::string method = "GET";
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::string body;
  Duration timeout = seconds(30);  // whole request; zero = none
  // The longest wait for the next byte of the response (headers or body), counted from the
  // start and then from each byte that arrives; zero = none. Past it the request ends with
  // NetError::kNoProgress. Unlike `timeout` it never cuts a response that keeps arriving.
  Duration progress_timeout = Duration::zero();
  // Streams deliver a 2xx body to `on_data` as it arrives instead of collecting it.
  bool stream = false;
  // The most body bytes collected (a stream's 2xx body is not collected); 0 = the
  // transport's own cap. Past it the request ends with NetError::kTooLarge.
  std::size_t max_body_bytes = 0;
  // Asked on the loop thread at the last moment before the request's first byte is written
  // (the connection, TLS included, is up; each attempt on a fresh connection asks again);
  // a non-empty answer ends the request with NetError::kNotSent instead. The gap between a
  // check and the socket is then one function call, never a connection set-up or a loop turn
  // (the leadership write fence, docs/state-store.md). Empty = always sent.
  std::function<std::string()> send_refusal;
};

struct HttpResponse {
  int status = 0;
  NetError error = NetError::kNone;
  std::string error_message;  // from the transport; never contains headers
  std::string body;           // empty for a 2xx stream
  std::string retry_after;    // the Retry-After header, if any
  int http_version = 0;       // 2 = HTTP/2, 1 = HTTP/1.x, 0 = no response
};

struct HttpHandlers {
  // Status of the final response once its headers are complete (optional).
  std::function<void(int status)> on_headers;
  // Body chunks of a 2xx stream, in order, split anywhere.
  std::function<void(std::string_view chunk)> on_data;
  // Exactly once, unless the request was cancelled with Cancel().
  std::function<void(HttpResponse)> on_done;
};

using RequestId = std::uint64_t;
using TimerId = std::uint64_t;

class Transport {
 public:
  virtual ~Transport() = default;

  virtual SteadyTime Now() const = 0;
  // Any thread: runs `fn` on the loop thread soon.
  virtual void Post(std::function<void()> fn) = 0;
  // Loop thread: runs `fn` at or after `when`.
  virtual TimerId RunAt(SteadyTime when, std::function<void()> fn) = 0;
  virtual void CancelTimer(TimerId id) = 0;
  // Loop thread: starts a request. Handlers run on the loop thread.
  virtual RequestId Start(HttpRequest request, HttpHandlers handlers) = 0;
  // Loop thread: aborts a request; none of its handlers run afterwards.
  virtual void Cancel(RequestId id) = 0;
  // Requests in flight (diagnostics and tests).
  virtual std::size_t InFlight() const = 0;
};

}  // namespace fleetwave::clients
