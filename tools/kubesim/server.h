// The network side of kubesim: Boost.Beast HTTP/1.1 (optionally TLS) listeners, one for all
// clusters (path prefixes) or one per cluster, keep-alive request handling, chunked watch
// streams with bookmarks and timeouts, the controller tick timer and signal handling. Boost
// stays inside server.cc; everything runs on one io thread that owns the Simulator.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tools/kubesim/clock.h"
#include "tools/kubesim/simulator.h"
#include "tools/kubesim/tls.h"

namespace fleetwave::kubesim {

struct ServerOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;          // 0: pick free ports
  bool per_cluster_ports = false;  // --ports
  std::optional<TlsMaterial> tls;
  Duration bookmark_interval = std::chrono::seconds(60);
};

class Server {
 public:
  Server(Simulator& simulator, ServerOptions options);
  ~Server();
  // Binds every listener; on success `ports` holds the bound ports (one, or one per cluster).
  bool Start(std::vector<std::uint16_t>* ports, std::string* error);
  // Serves until SIGINT or SIGTERM.
  void Run();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fleetwave::kubesim
