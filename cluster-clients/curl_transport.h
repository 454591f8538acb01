// The real transport: one I/O thread running a libcurl multi handle. Connections to the same
// origin are reused from the multi's connection cache; HTTP/2 (multiplexing) is used when an
// endpoint asks for it. Timers and posted tasks run on the same thread, so the client state
// machines above see one thread only. libcurl itself stays inside curl_transport.cc.
//
// Thread-safety: see transport.h. Destroying the transport stops the thread and drops every
// request and timer without running their handlers.
#pragma once

#include <memory>

#include "cluster-clients/transport.h"

namespace fleetwave::clients {

struct CurlTransportOptions {
  long max_connections = 0;  // idle connection cache size; 0 = libcurl's default
};

class CurlTransport final : public Transport {
 public:
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

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace fleetwave::clients
