// The daemon's HTTP API server: civetweb threads carrying ApiRouter's routes (api_routes.h) over
// the StatusBoard. It never calls into the actors except through the command handler.
//
// Start() binds `listen` ("host:port", "[ip6]:port"; port 0 picks a free port, readable from
// port() afterwards) and returns an error text when it cannot; Stop() (also the destructor)
// waits for the requests in flight and closes the listener. Request bodies are bounded
// (413 above max_body_bytes); responses close the connection.
//
// A `?watch=1` stream (api_watch.h) holds one civetweb thread for as long as it lasts, so the
// server runs `threads` threads for ordinary requests plus `max_watches` for streams, and refuses
// a watch beyond that (503): watches can never starve a GET or a mutation. Stop() ends every
// stream: streams waiting for changes wake from the board's feed and end cleanly at once; a
// thread blocked writing to a stalled client is released by civetweb's stop flag within 2 s
// (ApiWatchTest.StopEndsStreams).
//
// With `read_token_file` every read under /api/ needs a bearer token too (the read token or the
// mutation token; 401 otherwise), for a listener others can reach; /healthz, /readyz and the
// page at / stay open. `tls_cert`/`tls_key` are refused with the reason: Debian's civetweb
// cannot serve TLS with OpenSSL 3, and plain HTTP where TLS was asked for would be worse
// (ApiAccessTest.*).
//
// Thread-safety: Start/Stop/port from one owning thread. The board and the handler must outlive
// the running server; the handler is called on civetweb's threads.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "actors/status_board.h"
#include "api/api_command.h"

struct mg_context;
struct mg_connection;

namespace fleetwave::api {

class ApiRouter;
class ApiTokenSource;

struct ApiServerOptions {
  std::string listen = "127.0.0.1:8089";
  std::string token_file;       // empty: no token, every mutation is refused
  std::string read_token_file;  // empty: reads are open
  std::string tls_cert;         // refused (see above)
  std::string tls_key;
  int threads = 8;       // for ordinary requests
  int max_watches = 16;  // concurrent ?watch=1 streams, each on a thread of its own
  std::chrono::milliseconds watch_keepalive{15000};  // a BOOKMARK line after this much quiet
  size_t max_body_bytes = 1 << 20;
  std::chrono::seconds token_refresh{60};
  std::function<std::chrono::steady_clock::time_point()> clock;  // nullptr = steady_clock
  std::function<void(const std::string&)> log;                   // nullptr = stderr
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
  int port() const { return port_; }  // the bound port; 0 when not running

  // Internal: civetweb's callback target.
  int Serve(::mg_connection* conn);

 private:
  void Log(const std::string& line) const;
  // Streams a watch the router accepted; returns the status for civetweb.
  int ServeWatch(::mg_connection* conn, const std::string& collection, const std::string& caller,
                 bool head);

  const actors::StatusBoard& board_;
  ApiCommandHandler handler_;
  ApiServerOptions options_;
  std::unique_ptr<ApiTokenSource> tokens_;
  std::unique_ptr<ApiTokenSource> read_tokens_;  // null: reads are open
  std::unique_ptr<ApiRouter> router_;
  std::string spec_;  // the numeric address civetweb listens on
  mg_context* ctx_ = nullptr;
  std::atomic<bool> stopping_{false};  // ends every watch stream (Stop())
  std::atomic<int> watches_{0};        // streams running now
  std::mutex watch_mu_;                // with watch_done_: Stop() waits for streams to end
  std::condition_variable watch_done_;
  int port_ = 0;
};

// Splits "host:port" / "[ip6]:port" and resolves a host name to a numeric address, giving the
// civetweb listening_ports value; nullopt and `error` set when the text is not an address.
std::optional<std::string> CivetListenSpec(const std::string& listen, bool ipv6_supported,
                                           std::string* error);

}  // namespace fleetwave::api
