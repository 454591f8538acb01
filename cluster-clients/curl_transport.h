// The real transport: one I/O thread running a libcurl multi handle through
// `curl_multi_socket_action` on epoll, so an event on one connection costs the same however
// many other transfers are open (libcurl tells us which sockets to watch; epoll reports only
// the ready ones). Connections to the same origin are reused from the multi's connection
// cache; with `Endpoint::http2` and a server that offers h2 by ALPN, all of an origin's
// requests and watches are multiplexed on one connection, else HTTP/1.1 is used. Timers and
// posted tasks run on the same thread, so the client state machines above see one thread
// only. libcurl itself stays inside curl_transport.cc.
//
// Fault containment: every handler, timer and posted task runs inside one catch-all. An
// exception escaping a request's handler ends that request with `NetError::kHandlerFailed`
// (its `on_done` still runs, once); one escaping a timer or task is dropped. Each is logged
// once and counted in `Stats::handler_exceptions`, and the loop carries on.
//
// Thread-safety: see transport.h; `stats()` may be read from any thread. Destroying the
// transport stops the thread and drops every request and timer without running their
// handlers.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "cluster-clients/transport.h"

namespace fleetwave::clients {

struct CurlTransportOptions {
  long max_connections = 0;  // idle connection cache size; 0 = libcurl's default
  // Connections per origin; 0 = unlimited. A cap would queue an HTTP/1.1 watch behind other
  // watches that hold their connections for minutes, so the default leaves it to HTTP/2
  // multiplexing (with PIPEWAIT, new requests wait for the one h2 connection) to keep the
  // count at one.
  long max_host_connections = 0;
  // Where the one-line report of a handler exception goes; nullptr = stderr.
  std::function<void(const std::string&)> log;
};

class CurlTransport final : public Transport {
 public:
  // Counters for diagnostics, benchmarks and tests (curl_transport_http2_test.cc).
  struct Stats {
    std::int64_t sockets_open = 0;     // TCP sockets libcurl holds (in use or cached)
    std::int64_t sockets_opened = 0;   // since start
    std::int64_t responses_http2 = 0;  // final response headers received over HTTP/2
    std::int64_t responses_http1 = 0;  // ... over HTTP/1.x
    std::int64_t handler_exceptions = 0;
    std::int64_t loop_wakeups = 0;  // epoll_wait returns (the cost-at-rest driver)
  };

  explicit CurlTransport(CurlTransportOptions options = {});
  ~CurlTransport() override;
  CurlTransport(const CurlTransport&) = delete;
  CurlTransport& operator=(const CurlTransport&) = delete;

  SteadyTime Now() const override;
  void Post(std::function<void()> fn) override;
  TimerId RunAt(SteadyTime when, std::function<void()> fn) override;
  void CancelTimer(TimerId id) override;
  RequestId Start(HttpRequest request, HttpHandlers handlers) override;
  void Cancel(RequestId id) override;
  std::size_t InFlight() const override;

  Stats stats() const;
  // CPU time (user + system) the I/O thread has used, in seconds; -1 if unknown.
  double LoopCpuSeconds() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace fleetwave::clients
