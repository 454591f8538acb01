// The daemon's HTTP API: ApiRouter's routes (api_routes.h) over the StatusBoard, carried by the
// asynchronous HttpServer (http_server.h: limits, timeouts, per-client caps, Host allow-list,
// TLS, watch streams without a thread each). It never calls into the actors except through the
// command handler.
//
// Start() binds `listen` ("host:port", "[ip6]:port"; port 0 picks a free port, readable from
// port() afterwards) and returns an error text when it cannot; Stop() (also the destructor)
// ends every stream and connection within about 2 s and closes the listener.
//
// GET /api/v1/leader: {"leader": ID, "self": ID, "isLeader": bool} (docs/state-store.md).
//
// With `read_token_file` every read under /api/ needs a bearer token too (the read token or the
// mutation token; 401 otherwise), for a listener others can reach; /healthz, /readyz and the
// page at / stay open (ApiAccessTest.*).
//
// Thread-safety: Start/Stop/port from one owning thread. The board and the handler must outlive
// the running server; the handler is called on the server's worker threads, concurrently.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "actors/status_board.h"
#include "api/api_command.h"
#include "api/http_server.h"

namespace fleetwave::api {

class ApiRouter;
class ApiTokenSource;

// Leader election (issue 28), as the daemon's leadership thread knows it.
struct LeaderStatus {
  std::string leader;  // empty: unknown or nobody
  std::string self;
  bool is_leader = false;
  // A standby's reads show the leader's committed state (docs/state-store.md, "What a standby
  // serves") as of this store revision; 0 before it was first read.
  int64_t shared_revision = 0;
};

// The HTTP server's options (listen, tls, limits, watches) and the API's own.
struct ApiServerOptions : HttpServerOptions {
  std::string token_file;           // empty: no token, every mutation is refused
  std::string read_token_file;      // empty: reads are open
  std::string webhook_secret_file;  // empty: POST /api/v1/webhook is refused (503)
  std::chrono::seconds token_refresh{60};
  std::function<std::chrono::steady_clock::time_point()> clock;  // nullptr = steady_clock
  // With leader election: GET /api/v1/leader answers it, and while this instance is a standby
  // every mutation under /api/v1/ except the webhook (whose signature the router checks before
  // the command handler answers it) is refused with 503 naming the leader, and every read under
  // /api/ says where its answer comes from: "X-Fleetwave-Served-By: standby <self> (leader
  // <leader>), shared state" and "X-Fleetwave-State-Revision: <shared_revision>". nullptr: no
  // leader election, this instance always leads.
  std::function<LeaderStatus()> leader;
};

class ApiServer {
 public:
  ApiServer(const actors::StatusBoard& board, ApiCommandHandler handler);
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  // The reason the server is not listening, or nullopt once it is.
  // REQUIRES: not running.
  std::optional<std::string> Start(const ApiServerOptions& options);
  void Stop();
  int port() const;  // the bound port; 0 when not running

 private:
  ApiResponse Serve(const ApiRequest& request) const;
  ApiResponse LeaderResponse() const;

  const actors::StatusBoard& board_;
  ApiCommandHandler handler_;
  ApiServerOptions options_;
  std::unique_ptr<ApiTokenSource> tokens_;
  std::unique_ptr<ApiTokenSource> webhook_secret_;
  std::unique_ptr<ApiTokenSource> read_tokens_;  // null: reads are open
  std::unique_ptr<ApiRouter> router_;
  std::unique_ptr<HttpServer> http_;
};

}  // namespace fleetwave::api
