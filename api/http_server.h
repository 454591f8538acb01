// The daemon's one HTTP server (Boost.Beast over Asio, optionally TLS with OpenSSL), carrying
// the API (api_server.h) and /metrics. Every socket is asynchronous on one io thread, so a slow
// or idle client costs a socket and a few KiB, never a thread:
//
//  - the request head must arrive within `read_timeout` of the connection (or of the previous
//    response, on a keep-alive connection: `idle_timeout`), and the body within `read_timeout`
//    of the head: a slowloris connection is closed then (HttpServerTest.Slowloris*);
//  - a head over `max_header_bytes` is 431, a body over `max_body_bytes` is 413 as soon as
//    Content-Length (or the chunked total so far) passes it, without reading the rest;
//  - one client address holds at most `max_connections_per_client` connections; beyond that a
//    new connection from it is closed at once, so one host cannot take the sockets of others;
//  - a response (or a watch's write) not taken by the client within `write_timeout` closes the
//    connection: a reader that stopped reading frees its slot;
//  - the Host header must name the listener: an IP literal, `localhost`, the host the listener
//    was given, or one of `allowed_hosts`; anything else is 421, so a page on a rebound DNS name
//    cannot read the API from a browser (HttpServerTest.WrongHostIs421);
//  - HTTP/1.1 keeps the connection open unless the client asks otherwise; HTTP/1.0 gets
//    Content-Length answers and close-delimited streams, never chunking.
//
// The handler runs on a small worker pool (`handler_threads`), never on the io thread: a list of
// thousands of Applications serialises there while the io thread keeps accepting and answering
// probes. A response whose `watch` is set becomes a `?watch=1` stream of that StatusBoard
// collection (api_watch.h framing): up to `max_watches` streams at once, at most
// `max_watches_per_client` per client address (503 beyond either). Streams wait for changes
// without a thread each: one thread per collection waits on the board's change feed and wakes
// the streams of that collection on the io thread.
//
// TLS (`tls`): the listener speaks only TLS 1.2 or later; a client that sends plain HTTP fails
// the handshake and is never served. With a client CA file every client must present a
// certificate it signed. The three files are checked for changes (mtime, size) at most every
// `tls_check_interval`, on accept; a changed set is loaded into a new context used by the next
// connections, and a set that does not load keeps the old context and is logged naming the file.
//
// Stop() (also the destructor) closes the listener, ends every stream with its last chunk and
// closes every connection; it returns within about 2 s whatever the clients do.
//
// Thread-safety: Start/Stop/port from one owning thread. The handler is called on the worker
// threads, concurrently; it and the board must outlive the running server.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actors/status_board.h"
#include "api/api_routes.h"

namespace fleetwave::api {

struct TlsFiles {
  std::string cert_file;       // PEM: the server certificate chain
  std::string key_file;        // PEM: its private key
  std::string client_ca_file;  // empty: no client certificates; else required and verified
};

struct HttpServerOptions {
  std::string listen = "127.0.0.1:8089";
  std::string name = "api";                // the log prefix ("api", "metrics")
  std::vector<std::string> allowed_hosts;  // Host names served besides the listener's own
  std::optional<TlsFiles> tls;
  size_t max_header_bytes = 16 * 1024;
  size_t max_body_bytes = 1 << 20;
  std::chrono::milliseconds read_timeout{10000};
  std::chrono::milliseconds idle_timeout{30000};
  std::chrono::milliseconds write_timeout{30000};
  int max_connections_per_client = 64;
  int max_watches = 1024;
  int max_watches_per_client = 64;
  std::chrono::milliseconds watch_keepalive{15000};
  int handler_threads = 4;
  std::chrono::milliseconds tls_check_interval{1000};
  std::function<void(const std::string&)> log;  // nullptr = stderr
};

class HttpServer {
 public:
  // Runs on a worker thread; `request.caller` is set. Never throws out (exceptions become 500).
  using Handler = std::function<ApiResponse(const ApiRequest&)>;

  // `board` serves the watch streams a handler asks for; nullptr: no watches (a `watch`
  // response is then a 404).
  HttpServer(Handler handler, const actors::StatusBoard* board);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The reason the server is not listening (the address, a TLS file), or nullopt once it is.
  std::optional<std::string> Start(const HttpServerOptions& options);
  void Stop();
  int port() const { return port_; }  // the bound port; 0 when not running

  struct Impl;

 private:
  Handler handler_;
  const actors::StatusBoard* board_;
  std::shared_ptr<Impl> impl_;
  int port_ = 0;
};

// Whether a Host header value (with or without its port) may be served by a listener on
// `listen_host` (as configured: "127.0.0.1", "localhost", "0.0.0.0", "[::1]", a name):
// IP literals, `localhost` and names under .localhost, the listen host itself and the
// allow-list (case-insensitive). An empty Host (HTTP/1.0 clients) is allowed: DNS rebinding
// needs a browser, and browsers always send one.
bool HostAllowed(const std::string& host_header, const std::string& listen_host,
                 const std::vector<std::string>& allowed_hosts);

// Splits "host:port" / "[ip6]:port" (port 0 picks a free one) into the host as written and the
// port; nullopt and `error` set when the text is not an address.
struct ListenAddress {
  std::string host;  // without brackets
  int port = 0;
};
std::optional<ListenAddress> ParseListen(const std::string& listen, std::string* error);

}  // namespace fleetwave::api
