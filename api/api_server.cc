#include "api/api_server.h"

#include <arpa/inet.h>
#include <civetweb.h>
#include <netdb.h>
#include <sys/socket.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

#include "api/api_routes.h"
#include "api/api_token.h"
#include "api/api_watch.h"

namespace fleetwave::api {
namespace {

std::once_flag g_civetweb_init;

int BeginRequest(mg_connection* conn) {
  const mg_request_info* info = mg_get_request_info(conn);
  auto* server = info ? static_cast<ApiServer*>(info->user_data) : nullptr;
  if (server == nullptr) return 0;
  return server->Serve(conn);
}

void WriteResponse(mg_connection* conn, const ApiResponse& r, bool head) {
  // The connection closes after every response, and an unread body is not drained first: a
  // refused 2 MiB upload costs no reading (ApiServerTest.OversizedBodyIs413).
  mg_disable_connection_keep_alive(conn);
  std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " +
                    mg_get_response_code_text(conn, r.status) + "\r\n";
  out += "Content-Type: " + r.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
  out += "Cache-Control: no-store\r\nConnection: close\r\n";
  for (const auto& [name, value] : r.headers) out += name + ": " + value + "\r\n";
  out += "\r\n";
  if (!head) out += r.body;
  mg_write(conn, out.data(), out.size());
}

// Opens and closes one connection to the listener (see Stop()).
void Poke(const std::string& spec, int port) {
  const bool v6 = !spec.empty() && spec.front() == '[';
  std::string host = v6 ? spec.substr(1, spec.find(']') - 1) : spec.substr(0, spec.rfind(':'));
  if (host == "0.0.0.0") host = "127.0.0.1";
  if (host == "::") host = "::1";
  const int fd = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  if (v6) {
    sockaddr_in6 addr{};
    addr.sin6_family = AF_INET6;
    addr.sin6_port = htons(static_cast<uint16_t>(port));
    if (inet_pton(AF_INET6, host.c_str(), &addr.sin6_addr) == 1) {
      ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    }
  } else {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) == 1) {
      ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    }
  }
  ::close(fd);
}

bool ParsePort(const std::string& text, std::string* port) {
  if (text.empty() || text.size() > 5) return false;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  if (value > 65535) return false;
  *port = std::to_string(value);
  return true;
}

}  // namespace

std::optional<std::string> CivetListenSpec(const std::string& listen, bool ipv6_supported,
                                           std::string* error) {
  const std::string bad = "invalid listen address \"" + LogSafe(listen) +
                          "\" (expected host:port or [ipv6]:port, e.g. 127.0.0.1:8089)";
  std::string host, port;
  if (!listen.empty() && listen.front() == '[') {
    const size_t close = listen.find(']');
    if (close == std::string::npos || close + 1 >= listen.size() || listen[close + 1] != ':' ||
        !ParsePort(listen.substr(close + 2), &port)) {
      *error = bad;
      return std::nullopt;
    }
    host = listen.substr(1, close - 1);
    in6_addr addr6{};
    if (inet_pton(AF_INET6, host.c_str(), &addr6) != 1) {
      *error = bad;
      return std::nullopt;
    }
    // Debian's civetweb is built without IPv6 (mg_check_feature(8) is 0): say so instead of
    // civetweb's "Failed to setup server ports" (ApiServerTest.IPv6ListenIsServedOrExplained).
    if (!ipv6_supported) {
      *error = "cannot listen on " + listen +
               ": this civetweb build has no IPv6 support; use an IPv4 address";
      return std::nullopt;
    }
    return "[" + host + "]:" + port;
  }
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0 || !ParsePort(listen.substr(colon + 1), &port)) {
    *error = bad;
    return std::nullopt;
  }
  host = listen.substr(0, colon);
  in_addr addr4{};
  if (inet_pton(AF_INET, host.c_str(), &addr4) == 1) return host + ":" + port;
  for (char c : host) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '.';
    if (!ok) {
      *error = bad;
      return std::nullopt;
    }
  }
  // civetweb takes numeric addresses only: a host name (localhost) is resolved here, to its
  // first IPv4 address.
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc != 0 || found == nullptr) {
    *error = "cannot resolve listen host \"" + host + "\": " + gai_strerror(rc);
    if (found) freeaddrinfo(found);
    return std::nullopt;
  }
  char text[INET_ADDRSTRLEN] = {0};
  const auto* sin = reinterpret_cast<const sockaddr_in*>(found->ai_addr);
  inet_ntop(AF_INET, &sin->sin_addr, text, sizeof(text));
  freeaddrinfo(found);
  return std::string(text) + ":" + port;
}

ApiServer::ApiServer(const actors::StatusBoard& board, ApiCommandHandler handler)
    : board_(board), handler_(std::move(handler)) {}

ApiServer::~ApiServer() { Stop(); }

void ApiServer::Log(const std::string& line) const {
  if (options_.log) {
    options_.log(line);
  } else {
    std::cerr << line << "\n";
  }
}

std::optional<std::string> ApiServer::Start(const ApiServerOptions& options) {
  if (ctx_ != nullptr) return "the API server is already running";
  std::call_once(g_civetweb_init, [] { mg_init_library(0); });
  options_ = options;
  std::string error;
  const bool ipv6 = mg_check_feature(MG_FEATURES_IPV6) != 0;
  std::optional<std::string> spec = CivetListenSpec(options_.listen, ipv6, &error);
  if (!spec) return error;

  tokens_ = std::make_unique<ApiTokenSource>(options_.token_file, options_.token_refresh,
                                             options_.clock, options_.log);
  tokens_->Reload();  // a missing token file is logged now, not at the first mutation
  if (!options_.read_token_file.empty()) {
    read_tokens_ = std::make_unique<ApiTokenSource>(
        options_.read_token_file, options_.token_refresh, options_.clock, options_.log);
    read_tokens_->Reload();
  }
  if (!options_.tls_cert.empty() || !options_.tls_key.empty()) {
    // Refused rather than served in plain text: a user who asked for TLS must not get HTTP.
    read_tokens_.reset();
    tokens_.reset();
    return "tls: the API cannot serve TLS itself: Debian's civetweb 1.15 loads OpenSSL 3 at run "
           "time without SSL_get_peer_certificate and crashes on the first TLS connection "
           "(civetweb issue #1334); listen on loopback and terminate TLS in a reverse proxy "
           "(docs/guide.md, \"The API beyond this host\")";
  }
  router_ = std::make_unique<ApiRouter>(board_, *tokens_, handler_, options_.log);

  stopping_ = false;
  const int watch_threads = std::max(0, options_.max_watches);
  const std::string threads = std::to_string(std::max(1, options_.threads) + watch_threads);
  const char* config[] = {
      "listening_ports", spec->c_str(),       "num_threads", threads.c_str(), "request_timeout_ms",
      "30000",           "enable_keep_alive", "no",          nullptr};
  mg_callbacks callbacks{};
  callbacks.begin_request = BeginRequest;
  callbacks.log_message = [](const mg_connection* conn, const char* message) -> int {
    const mg_request_info* info = conn ? mg_get_request_info(conn) : nullptr;
    auto* server = info ? static_cast<ApiServer*>(info->user_data) : nullptr;
    if (server == nullptr || message == nullptr) return 0;  // civetweb prints it to stderr
    server->Log(std::string("api: civetweb: ") + LogSafe(message));
    return 1;
  };
  mg_init_data init{};
  init.callbacks = &callbacks;
  init.user_data = this;
  init.configuration_options = config;
  char text[256] = {0};
  unsigned code = 0;
  mg_error_data err{&code, text, sizeof(text)};
  ctx_ = mg_start2(&init, &err);
  if (ctx_ == nullptr) {
    router_.reset();
    tokens_.reset();
    read_tokens_.reset();
    return "cannot listen on " + options_.listen + ": " +
           (text[0] ? std::string(text) : "civetweb failed to start");
  }
  spec_ = *spec;
  mg_server_port ports[1];
  if (mg_get_server_ports(ctx_, 1, ports) >= 1) port_ = ports[0].port;
  Log("api: listening on " + options_.listen + " (port " + std::to_string(port_) +
      (read_tokens_ ? ", reads need a token" : "") + ")");
  return std::nullopt;
}

void ApiServer::Stop() {
  if (ctx_ == nullptr) return;
  // Watch streams wait on the board's feed: the flag and the wake end them now, before
  // mg_stop() waits for their threads (ApiWatchTest.StopEndsStreams).
  stopping_ = true;
  board_.feed().WakeAll();
  {
    // Streams waiting for changes end with their last chunk within milliseconds; mg_stop() makes
    // every later write fail, so it waits for them briefly. A stream blocked writing to a client
    // that reads nothing is not waited for: civetweb's write loop sees the stop flag within its
    // 2 s poll quantum (ApiWatchTest.StopEndsStreams).
    std::unique_lock<std::mutex> lock(watch_mu_);
    watch_done_.wait_for(lock, std::chrono::milliseconds(250), [this] { return watches_ == 0; });
  }
  // civetweb's listener thread sees the stop flag only when its poll() returns: every 2 s, or
  // at once when a connection arrives. Connecting until mg_stop() returns makes a stop take
  // milliseconds instead of 2 s (ApiServerTest.StopClosesTheListenerAndStartsAgain). The few
  // connections accepted before the flag is seen are empty and closed by a worker.
  std::atomic<bool> stopped{false};
  std::thread waker([this, &stopped] {
    while (!stopped.load()) {
      Poke(spec_, port_);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  mg_stop(ctx_);  // returns after every request thread has finished
  stopped = true;
  waker.join();
  ctx_ = nullptr;
  port_ = 0;
  router_.reset();
  tokens_.reset();
  read_tokens_.reset();
}

int ApiServer::Serve(mg_connection* conn) {
  bool head = false;
  try {
    const mg_request_info* info = mg_get_request_info(conn);
    ApiRequest request;
    request.method = info->request_method ? info->request_method : "";
    request.path = info->local_uri ? info->local_uri : "";
    request.query = info->query_string ? info->query_string : "";
    if (const char* auth = mg_get_header(conn, "Authorization")) request.authorization = auth;
    const std::string addr = info->remote_addr;
    request.caller = (addr.find(':') != std::string::npos ? "[" + addr + "]" : addr) + ":" +
                     std::to_string(info->remote_port);
    head = request.method == "HEAD";

    // Reads under /api/ need a token when a read token is configured; the mutation token reads
    // too. Mutations are checked by the router.
    if (read_tokens_ && (request.method == "GET" || head) && request.path.rfind("/api/", 0) == 0) {
      std::optional<std::string_view> token;
      if (request.authorization) token = BearerToken(*request.authorization);
      const bool ok = token && !token->empty() &&
                      (read_tokens_->Check(*token) == ApiTokenSource::Verdict::kAccepted ||
                       tokens_->Check(*token) == ApiTokenSource::Verdict::kAccepted);
      if (!ok) {
        router_->LogLine("api: " + LogSafe(request.method) + " " + LogSafe(request.path) +
                         " from " + request.caller +
                         " refused (401): " + (token ? "wrong read token" : "missing read token"));
        ApiResponse r = ApiError(401, token ? "the bearer token is not valid for reading"
                                            : "reads need Authorization: Bearer <read token>");
        r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"fleetwave\"");
        WriteResponse(conn, r, head);
        return r.status;
      }
    }

    // Bodies are read only where a route takes one, and never past the bound: a larger one is
    // refused before it is read (ApiServerTest.OversizedBodyIs413).
    if (request.method != "GET" && !head) {
      const size_t limit = options_.max_body_bytes;
      if (info->content_length > static_cast<long long>(limit)) {
        router_->LogLine("api: " + LogSafe(request.method) + " " + LogSafe(request.path) +
                         " from " + request.caller + " refused (413): body over the limit");
        const ApiResponse r =
            ApiError(413, "request body is larger than " + std::to_string(limit) + " bytes");
        WriteResponse(conn, r, head);
        return r.status;
      }
      std::vector<char> buffer(16 * 1024);
      while (true) {
        const int n = mg_read(conn, buffer.data(), buffer.size());
        if (n <= 0) break;
        request.body.append(buffer.data(), static_cast<size_t>(n));
        if (request.body.size() > limit) {
          router_->LogLine("api: " + LogSafe(request.method) + " " + LogSafe(request.path) +
                           " from " + request.caller + " refused (413): body over the limit");
          const ApiResponse r =
              ApiError(413, "request body is larger than " + std::to_string(limit) + " bytes");
          WriteResponse(conn, r, head);
          return r.status;
        }
      }
    }
    const ApiResponse response = router_->Handle(request);
    if (!response.watch.empty()) return ServeWatch(conn, response.watch, request.caller, head);
    WriteResponse(conn, response, head);
    return response.status;
  } catch (...) {
    // Only allocation can throw here (the router catches its own): answer if possible.
    try {
      WriteResponse(conn, ApiError(500, "internal error"), head);
    } catch (...) {
    }
    return 500;
  }
}

int ApiServer::ServeWatch(mg_connection* conn, const std::string& collection,
                          const std::string& caller, bool head) {
  // A slot among max_watches, or 503: the ordinary request threads stay free.
  if (watches_.fetch_add(1) >= options_.max_watches) {
    watches_.fetch_sub(1);
    router_->LogLine("api: watch of " + collection + " from " + caller +
                     " refused (503): too many watches");
    ApiResponse r = ApiError(503, "too many watch streams (at most " +
                                      std::to_string(options_.max_watches) + "); try again later");
    r.headers.emplace_back("Retry-After", "5");
    WriteResponse(conn, r, head);
    return r.status;
  }
  struct Slot {
    ApiServer* server;
    ~Slot() {
      std::lock_guard<std::mutex> lock(server->watch_mu_);
      server->watches_.fetch_sub(1);
      server->watch_done_.notify_all();
    }
  } slot{this};

  mg_disable_connection_keep_alive(conn);
  const std::string headers =
      "HTTP/1.1 200 OK\r\nContent-Type: application/json-lines\r\n"
      "Transfer-Encoding: chunked\r\nCache-Control: no-store\r\n"
      "X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n";
  if (mg_write(conn, headers.data(), headers.size()) != static_cast<int>(headers.size()) || head) {
    return 200;
  }
  // One chunk per batch of lines, framed here so each is a single write. civetweb's own writes
  // give up when the server stops, and after request_timeout_ms on a client that reads nothing.
  auto write_chunk = [conn](std::string_view data) {
    char size[20];
    const int n = std::snprintf(size, sizeof(size), "%zx\r\n", data.size());
    std::string chunk(size, static_cast<size_t>(n));
    chunk.append(data);
    chunk += "\r\n";
    return mg_write(conn, chunk.data(), chunk.size()) == static_cast<int>(chunk.size());
  };
  WatchOptions options;
  options.keepalive = options_.watch_keepalive;
  const WatchEnd end = StreamWatch(board_, collection, options, stopping_, write_chunk);
  if (end == WatchEnd::kBehind) {
    router_->LogLine("api: watch of " + collection + " from " + caller +
                     " dropped: the client reads slower than the changes come");
  }
  // The zero-length chunk ends the stream cleanly when the server stops or drops the reader;
  // the client starts a new watch either way.
  if (end != WatchEnd::kWriteFailed) mg_write(conn, "0\r\n\r\n", 5);
  return 200;
}

}  // namespace fleetwave::api
