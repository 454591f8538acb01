#include "api/http_server.h"

#include <arpa/inet.h>
#include <openssl/ssl.h>
#include <sys/stat.h>

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <future>
#include <iostream>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "api/api_watch.h"
#include "engine/url_query.h"

namespace fleetwave::api {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
using beast::error_code;

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool ParsePort(const std::string& text, int* port) {
  if (text.empty() || text.size() > 5) return false;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  if (value > 65535) return false;
  *port = value;
  return true;
}

// The path of a request target, %XX-decoded (an invalid escape stays as it is; '+' is a plus
// in a path): the router matches decoded segments.
std::string DecodePath(std::string_view path) { return engine::PercentDecode(path, false); }

// A file's identity for change detection: a rotated certificate is a new mtime or size.
struct FileStamp {
  long long mtime_ns = -1;
  long long size = -1;
  bool operator==(const FileStamp& o) const { return mtime_ns == o.mtime_ns && size == o.size; }
};

FileStamp Stamp(const std::string& path) {
  FileStamp s;
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return s;
  s.mtime_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
  s.size = static_cast<long long>(st.st_size);
  return s;
}

std::vector<FileStamp> Stamps(const TlsFiles& files) {
  return {Stamp(files.cert_file), Stamp(files.key_file), Stamp(files.client_ca_file)};
}

std::string OpenSslError(const error_code& ec) {
  std::string text = ec.message();
  return text.empty() ? "unreadable" : text;
}

// A server context for TLS 1.2+ from the three files, or nullptr with `error` naming the file
// that failed and why.
std::shared_ptr<ssl::context> LoadTls(const TlsFiles& files, std::string* error) {
  auto readable = [&](const std::string& field, const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      *error = "tls: " + field + " " + path + ": " + std::strerror(errno);
      return false;
    }
    return true;
  };
  if (!readable("certFile", files.cert_file) || !readable("keyFile", files.key_file)) {
    return nullptr;
  }
  if (!files.client_ca_file.empty() && !readable("clientCAFile", files.client_ca_file)) {
    return nullptr;
  }
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                   ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                   ssl::context::single_dh_use);
  SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
  error_code ec;
  ctx->use_certificate_chain_file(files.cert_file, ec);
  if (ec) {
    *error = "tls: certFile " + files.cert_file + ": not a PEM certificate chain (" +
             OpenSslError(ec) + ")";
    return nullptr;
  }
  ctx->use_private_key_file(files.key_file, ssl::context::pem, ec);
  if (ec) {
    *error =
        "tls: keyFile " + files.key_file + ": not a PEM private key (" + OpenSslError(ec) + ")";
    return nullptr;
  }
  if (SSL_CTX_check_private_key(ctx->native_handle()) != 1) {
    *error = "tls: keyFile " + files.key_file + " does not match certFile " + files.cert_file;
    return nullptr;
  }
  if (!files.client_ca_file.empty()) {
    ctx->load_verify_file(files.client_ca_file, ec);
    if (ec) {
      *error = "tls: clientCAFile " + files.client_ca_file + ": not a PEM CA certificate (" +
               OpenSslError(ec) + ")";
      return nullptr;
    }
    // Clients are told which CA to present a certificate of; without one they are refused.
    if (STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(files.client_ca_file.c_str())) {
      SSL_CTX_set_client_CA_list(ctx->native_handle(), names);
    }
    ctx->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
  }
  return ctx;
}

}  // namespace

bool HostAllowed(const std::string& host_header, const std::string& listen_host,
                 const std::vector<std::string>& allowed_hosts) {
  if (host_header.empty()) return true;
  for (const std::string& a : allowed_hosts) {
    if (a == "*") return true;
  }
  std::string host;
  if (host_header.front() == '[') {
    const size_t close = host_header.find(']');
    if (close == std::string::npos) return false;
    in6_addr addr6{};
    // An IPv6 literal: DNS rebinding needs a name, so an address is always the server's own.
    return inet_pton(AF_INET6, host_header.substr(1, close - 1).c_str(), &addr6) == 1;
  }
  const size_t colon = host_header.rfind(':');
  host = Lower(colon == std::string::npos ? host_header : host_header.substr(0, colon));
  if (!host.empty() && host.back() == '.') host.pop_back();
  in_addr addr4{};
  if (inet_pton(AF_INET, host.c_str(), &addr4) == 1) return true;
  if (host == "localhost" ||
      (host.size() > 10 && host.compare(host.size() - 10, 10, ".localhost") == 0)) {
    return true;
  }
  if (host == Lower(listen_host)) return true;
  for (const std::string& a : allowed_hosts) {
    if (host == Lower(a)) return true;
  }
  return false;
}

std::optional<ListenAddress> ParseListen(const std::string& listen, std::string* error) {
  std::string safe = listen;
  for (char& c : safe) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  const std::string bad = "invalid listen address \"" + safe +
                          "\" (expected host:port or [ipv6]:port, e.g. 127.0.0.1:8089)";
  ListenAddress out;
  if (!listen.empty() && listen.front() == '[') {
    const size_t close = listen.find(']');
    if (close == std::string::npos || close + 1 >= listen.size() || listen[close + 1] != ':' ||
        !ParsePort(listen.substr(close + 2), &out.port)) {
      *error = bad;
      return std::nullopt;
    }
    out.host = listen.substr(1, close - 1);
    in6_addr addr6{};
    if (inet_pton(AF_INET6, out.host.c_str(), &addr6) != 1) {
      *error = bad;
      return std::nullopt;
    }
    return out;
  }
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0 || !ParsePort(listen.substr(colon + 1), &out.port)) {
    *error = bad;
    return std::nullopt;
  }
  out.host = listen.substr(0, colon);
  for (char c : out.host) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '.';
    if (!ok) {
      *error = bad;
      return std::nullopt;
    }
  }
  return out;
}

class ConnectionBase {
 public:
  virtual ~ConnectionBase() = default;
  virtual void StopNow() = 0;  // Stop(): end a stream with its last chunk, close the rest
  virtual void Wake() = 0;     // a watched collection changed
  virtual void Kill() = 0;     // closes now, whatever is in flight
};

struct HttpServer::Impl : std::enable_shared_from_this<HttpServer::Impl> {
  HttpServerOptions options;
  Handler handler;
  const actors::StatusBoard* board = nullptr;
  std::string listen_host;

  net::io_context io{1};
  net::executor_work_guard<net::io_context::executor_type> work{io.get_executor()};
  std::unique_ptr<net::thread_pool> pool;
  tcp::acceptor acceptor{io};
  net::steady_timer accept_retry{io};
  std::thread io_thread;
  std::promise<void> io_done;
  std::vector<std::thread> feed_threads;
  std::atomic<bool> stopping{false};

  // The io thread's own state (no lock: only it touches these).
  uint64_t next_id = 0;
  std::unordered_map<uint64_t, std::weak_ptr<ConnectionBase>> connections;
  std::unordered_map<std::string, int> per_client;
  std::unordered_map<std::string, int> watches_per_client;
  std::unordered_map<std::string, std::unordered_map<uint64_t, std::weak_ptr<ConnectionBase>>>
      watchers;
  int watches = 0;
  std::string refused_client;  // the last address told it is over its cap (logged once a run)
  std::shared_ptr<ssl::context> tls;
  std::vector<FileStamp> tls_loaded;  // the stamps of the files `tls` was made from
  std::vector<FileStamp> tls_failed;  // the stamps of a set that failed (logged once)
  std::chrono::steady_clock::time_point tls_checked{};

  void Log(const std::string& line) const {
    if (options.log) {
      options.log(line);
    } else {
      std::cerr << line << "\n";
    }
  }

  void Accept();
  void OnAccept(tcp::socket socket);
  void CheckTls();
  void StopAll();
  void WakeWatchers(const std::string& collection) {
    auto it = watchers.find(collection);
    if (it == watchers.end()) return;
    std::vector<std::shared_ptr<ConnectionBase>> woken;
    for (auto& [id, weak] : it->second) {
      if (auto c = weak.lock()) woken.push_back(std::move(c));
    }
    for (auto& c : woken) c->Wake();
  }
};

namespace {

using Impl = HttpServer::Impl;

template <class Stream>
constexpr bool kIsTls = !std::is_same_v<Stream, beast::tcp_stream>;

template <class Stream>
class Connection : public ConnectionBase, public std::enable_shared_from_this<Connection<Stream>> {
 public:
  Connection(std::shared_ptr<Impl> impl, tcp::socket socket, std::string address,
             std::shared_ptr<ssl::context> ctx)
      : impl_(std::move(impl)),
        ctx_(std::move(ctx)),
        stream_(MakeStream(std::move(socket), ctx_.get())),
        address_(std::move(address)),
        keepalive_(impl_->io) {
    error_code ec;
    const tcp::endpoint remote = beast::get_lowest_layer(stream_).socket().remote_endpoint(ec);
    caller_ = (remote.address().is_v6() ? "[" + address_ + "]" : address_) + ":" +
              std::to_string(ec ? 0 : remote.port());
  }

  void Start() {
    id_ = ++impl_->next_id;
    impl_->connections[id_] = this->weak_from_this();
    if constexpr (kIsTls<Stream>) {
      Lowest().expires_after(impl_->options.read_timeout);
      stream_.async_handshake(ssl::stream_base::server,
                              [self = this->shared_from_this()](error_code ec) {
                                if (self->closed_) return;
                                if (ec) return self->Close();
                                self->ReadHead();
                              });
    } else {
      ReadHead();
    }
  }

  void StopNow() override {
    stop_ = true;
    if (!watching_) {
      // A handler still running replies and closes; anything else closes now.
      if (!in_handler_) Close();
      return;
    }
    ending_ = true;
    if (!writing_) return Pump();
    // A write in flight gets 1 s to finish and be followed by the last chunk; a client that
    // stopped reading is cut then.
    keepalive_.expires_after(std::chrono::milliseconds(1000));
    keepalive_.async_wait([self = this->shared_from_this()](error_code ec) {
      if (!ec) self->Close();
    });
  }

  void Wake() override { Pump(); }
  void Kill() override { Close(); }

 private:
  static Stream MakeStream(tcp::socket socket, ssl::context* ctx) {
    if constexpr (kIsTls<Stream>) {
      return Stream(std::move(socket), *ctx);
    } else {
      (void)ctx;
      return Stream(std::move(socket));
    }
  }

  beast::tcp_stream& Lowest() { return beast::get_lowest_layer(stream_); }

  // Waits for the next request on a kept-alive connection (idle_timeout), then reads its head.
  void ReadNext() {
    if (stop_) return Close();
    if (buffer_.size() > 0) return ReadHead();
    Lowest().expires_after(impl_->options.idle_timeout);
    stream_.async_read_some(buffer_.prepare(4096),
                            [self = this->shared_from_this()](error_code ec, size_t n) {
                              if (self->closed_) return;
                              if (ec) return self->Close();
                              self->buffer_.commit(n);
                              self->ReadHead();
                            });
  }

  void ReadHead() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(impl_->options.max_header_bytes));
    parser_->body_limit(impl_->options.max_body_bytes);
    // One deadline for the whole head however slowly its bytes come (slowloris).
    Lowest().expires_after(impl_->options.read_timeout);
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = this->shared_from_this()](error_code ec, size_t) { self->OnHead(ec); });
  }

  // A refusal before the request was understood: answered, then the connection closes (its
  // unread body is never read).
  bool Refused(const error_code& ec) {
    if (ec == http::error::header_limit) {
      Reply(ApiError(431, "request header is larger than " +
                              std::to_string(impl_->options.max_header_bytes) + " bytes"),
            true);
      return true;
    }
    if (ec == http::error::body_limit) {
      Reply(ApiError(413, "request body is larger than " +
                              std::to_string(impl_->options.max_body_bytes) + " bytes"),
            true);
      impl_->Log(impl_->options.name + ": request from " + caller_ +
                 " refused (413): body over the limit");
      return true;
    }
    if (ec.category() == error_code(http::error::bad_target).category() &&
        ec != http::error::end_of_stream && ec != http::error::partial_message) {
      Reply(ApiError(400, "malformed HTTP request (" + ec.message() + ")"), true);
      return true;
    }
    return false;
  }

  void OnHead(const error_code& ec) {
    if (closed_) return;
    if (ec) {
      if (!Refused(ec)) Close();
      return;
    }
    auto& req = parser_->get();
    version_ = req.version();
    head_ = req.method() == http::verb::head;
    keep_alive_ = req.keep_alive();
    const std::string host(req[http::field::host]);
    if (!HostAllowed(host, impl_->listen_host, impl_->options.allowed_hosts)) {
      std::string safe = host.substr(0, 200);
      for (char& c : safe) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
      }
      impl_->Log(impl_->options.name + ": request from " + caller_ + " for Host \"" + safe +
                 "\" refused (421)");
      Reply(ApiError(421, "Host \"" + safe + "\" is not a name of this server (listening on " +
                              impl_->options.listen +
                              "); add it to listen.allowedHosts in fleetwave.yaml to serve it"),
            true);
      return;
    }
    if (parser_->is_done()) return Dispatch();
    Lowest().expires_after(impl_->options.read_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = this->shared_from_this()](error_code ec, size_t) {
                       if (self->closed_) return;
                       if (ec) {
                         if (!self->Refused(ec)) self->Close();
                         return;
                       }
                       self->Dispatch();
                     });
  }

  void Dispatch() {
    auto& req = parser_->get();
    ApiRequest request;
    request.method = std::string(req.method_string());
    const std::string_view target = req.target();
    const size_t q = target.find('?');
    request.path = DecodePath(target.substr(0, q));
    if (q != std::string_view::npos) request.query = std::string(target.substr(q + 1));
    if (auto it = req.find(http::field::authorization); it != req.end()) {
      request.authorization = std::string(it->value());
    }
    for (const auto& field : req) {
      const std::string_view name = field.name_string();
      if (name.size() < 2 || (name[0] != 'x' && name[0] != 'X') || name[1] != '-') continue;
      std::string lower(name);
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      request.headers[lower] = std::string(field.value());
    }
    request.body = std::move(req.body());
    request.caller = caller_;
    parser_.reset();
    Lowest().expires_never();
    in_handler_ = true;
    net::post(*impl_->pool, [self = this->shared_from_this(), request = std::move(request)] {
      ApiResponse response;
      try {
        response = self->impl_->handler(request);
      } catch (...) {
        response = ApiError(500, "internal error (see the daemon's log)");
      }
      Impl& impl = *self->impl_;
      net::post(impl.io, [self = std::move(self), response = std::move(response)]() mutable {
        self->in_handler_ = false;
        if (self->closed_) return;
        if (!response.watch.empty()) {
          return self->StartWatch(response.watch, std::move(response.watch_filter));
        }
        self->Reply(std::move(response), !self->keep_alive_ || self->stop_);
      });
    });
  }

  void Reply(ApiResponse r, bool close) {
    auto res = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(r.status), version_);
    res->set(http::field::content_type, r.content_type);
    res->set(http::field::cache_control, "no-store");
    for (const auto& [name, value] : r.headers) res->set(name, value);
    res->keep_alive(!close);
    if (head_) {
      res->content_length(r.body.size());
    } else {
      res->body() = std::move(r.body);
      res->prepare_payload();
    }
    Lowest().expires_after(impl_->options.write_timeout);
    http::async_write(stream_, *res,
                      [self = this->shared_from_this(), res, close](error_code ec, size_t) {
                        if (self->closed_) return;
                        if (ec) return self->Close();
                        if (close || self->stop_) return self->Shutdown();
                        self->ReadNext();
                      });
  }

  // --- ?watch=1 streams -------------------------------------------------------------------

  void StartWatch(const std::string& collection,
                  std::shared_ptr<const WatchSelection::Filter> filter) {
    Impl& impl = *impl_;
    const HttpServerOptions& o = impl.options;
    if (impl.board == nullptr) return Reply(ApiError(404, "no watch streams here"), true);
    if (stop_) return Reply(ApiError(503, "the server is stopping"), true);
    if (impl.watches >= o.max_watches ||
        impl.watches_per_client[address_] >= o.max_watches_per_client) {
      const bool client = impl.watches < o.max_watches;
      if (impl.watches_per_client[address_] == 0) impl.watches_per_client.erase(address_);
      impl.Log(o.name + ": watch of " + collection + " from " + caller_ + " refused (503): " +
               (client ? "too many watches from " + address_ : std::string("too many watches")));
      ApiResponse r =
          ApiError(503, client ? "too many watch streams from " + address_ + " (at most " +
                                     std::to_string(o.max_watches_per_client) + "); try again later"
                               : "too many watch streams (at most " +
                                     std::to_string(o.max_watches) + "); try again later");
      r.headers.emplace_back("Retry-After", "5");
      return Reply(std::move(r), true);
    }
    // The hold comes first: the collection keeps every change after the snapshot's version.
    hold_.emplace(impl.board->feed(), collection);
    snapshot_ = impl.board->Snapshot(collection, &cursor_);
    if (!snapshot_) {
      hold_.reset();
      return Reply(ApiError(404, "no watch of " + collection), true);
    }
    collection_ = collection;
    if (filter) selection_.emplace(std::move(filter));
    watching_ = true;
    chunked_ = version_ >= 11;
    ++impl.watches;
    ++impl.watches_per_client[address_];
    impl.watchers[collection_][id_] = this->weak_from_this();
    out_ =
        std::string(version_ >= 11 ? "HTTP/1.1" : "HTTP/1.0") +
        " 200 OK\r\nContent-Type: application/json-lines\r\n" +
        (chunked_ ? "Transfer-Encoding: chunked\r\n" : "") +
        "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n";
    if (head_) {
      ending_ = true;
      chunked_ = false;
      snapshot_.reset();
    }
    Pump();
  }

  // Writes whatever is due: the next batch of the snapshot, the feed's new changes, a
  // keepalive, the end. One write at a time; a write the client does not take within
  // write_timeout closes the stream (a stalled reader frees its slot).
  void Pump() {
    if (!watching_ || writing_ || closed_) return;
    std::string data;
    const size_t batch = 64 * 1024;
    if (!ending_ && !head_) {
      if (snapshot_) {
        while (next_item_ < snapshot_->size() && data.size() < batch) {
          const auto& item = (*snapshot_)[next_item_];
          if (item && (!selection_ || selection_->Admit(*item))) data += WatchLine("ADDED", *item);
          ++next_item_;
        }
        if (next_item_ >= snapshot_->size()) {
          data += BookmarkLine();
          snapshot_.reset();
        }
      } else {
        std::vector<actors::Change> changes;
        const auto read =
            impl_->board->feed().Next(collection_, &cursor_, {}, impl_->stopping, &changes);
        if (read == actors::ChangeFeed::Read::kChanges) {
          for (const actors::Change& c : changes) {
            if (!c.object) continue;
            const char* type = selection_ ? selection_->Translate(c.type, c.name, *c.object)
                                          : actors::ChangeTypeName(c.type);
            if (type != nullptr) data += WatchLine(type, *c.object);
          }
        } else if (read == actors::ChangeFeed::Read::kBehind) {
          impl_->Log(impl_->options.name + ": watch of " + collection_ + " from " + caller_ +
                     " dropped: the client reads slower than the changes come");
          ending_ = true;
        } else if (read == actors::ChangeFeed::Read::kCancelled) {
          ending_ = true;
        }
        if (data.empty() && keepalive_due_) {
          data = BookmarkLine();
        }
      }
    }
    keepalive_due_ = false;
    if (!data.empty()) {
      if (chunked_) {
        char size[20];
        const int n = std::snprintf(size, sizeof(size), "%zx\r\n", data.size());
        out_.append(size, static_cast<size_t>(n));
        out_ += data;
        out_ += "\r\n";
      } else {
        out_ += data;
      }
    }
    if (ending_ && !final_queued_) {
      if (chunked_) out_ += "0\r\n\r\n";
      final_queued_ = true;
    }
    if (out_.empty()) {
      if (final_queued_) Shutdown();  // a close-delimited stream ends with the connection
      return;
    }
    writing_ = true;
    Lowest().expires_after(
        stop_ ? std::min(impl_->options.write_timeout, std::chrono::milliseconds(1000))
              : impl_->options.write_timeout);
    net::async_write(
        stream_, net::buffer(out_),
        [self = this->shared_from_this()](error_code ec, size_t) { self->OnWatchWrite(ec); });
  }

  void OnWatchWrite(const error_code& ec) {
    if (closed_) return;
    writing_ = false;
    out_.clear();
    if (ec) {
      if (ec == beast::error::timeout && !stop_) {
        impl_->Log(impl_->options.name + ": watch of " + collection_ + " from " + caller_ +
                   " dropped: the client read nothing for " +
                   std::to_string(impl_->options.write_timeout.count()) + " ms");
      }
      return Close();
    }
    if (final_queued_) return Shutdown();
    if (ending_) return Pump();  // Stop() came during the write: the last chunk follows
    // The keepalive: a proxy or browser sees the stream is alive, and a gone client is found
    // by the failing write within one interval.
    keepalive_.expires_after(impl_->options.watch_keepalive);
    keepalive_.async_wait([self = this->shared_from_this()](error_code ec) {
      if (ec) return;
      self->keepalive_due_ = true;
      self->Pump();
    });
    Pump();
  }

  // --- the end of a connection -------------------------------------------------------------

  // Ends a response the client reads to EOF (HTTP/1.0, Connection: close): TLS sends its
  // close_notify, then the socket closes.
  void Shutdown() {
    if (closed_) return;
    if constexpr (kIsTls<Stream>) {
      Lowest().expires_after(std::chrono::milliseconds(1000));
      stream_.async_shutdown([self = this->shared_from_this()](error_code) { self->Close(); });
    } else {
      error_code ignored;
      Lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
      Close();
    }
  }

  void Close() {
    if (closed_) return;
    closed_ = true;
    keepalive_.cancel();
    error_code ignored;
    Lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
    Lowest().close();
    Impl& impl = *impl_;
    impl.connections.erase(id_);
    if (auto it = impl.per_client.find(address_);
        it != impl.per_client.end() && --it->second <= 0) {
      impl.per_client.erase(it);
    }
    if (watching_) {
      --impl.watches;
      if (auto it = impl.watches_per_client.find(address_);
          it != impl.watches_per_client.end() && --it->second <= 0) {
        impl.watches_per_client.erase(it);
      }
      if (auto it = impl.watchers.find(collection_); it != impl.watchers.end()) {
        it->second.erase(id_);
      }
    }
  }

  std::shared_ptr<Impl> impl_;
  std::shared_ptr<ssl::context> ctx_;  // outlives stream_, which refers to it
  Stream stream_;
  std::string address_;
  std::string caller_;
  uint64_t id_ = 0;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  unsigned version_ = 11;
  bool head_ = false;
  bool keep_alive_ = true;
  bool in_handler_ = false;
  bool stop_ = false;
  bool closed_ = false;
  // The watch stream's state.
  bool watching_ = false;
  bool chunked_ = true;
  bool writing_ = false;
  bool ending_ = false;
  bool final_queued_ = false;  // the last chunk (or the end of a close-delimited stream) is out
  bool keepalive_due_ = false;
  std::string collection_;
  uint64_t cursor_ = 0;
  // While this stream lives, its collection keeps the changes it has yet to read.
  std::optional<actors::ChangeFeed::Hold> hold_;
  std::optional<std::vector<actors::FeedObject>> snapshot_;  // a set is assembled when sent
  std::optional<WatchSelection> selection_;                  // a filtered watch's held objects
  size_t next_item_ = 0;
  std::string out_;
  net::steady_timer keepalive_;
};

}  // namespace

void HttpServer::Impl::Accept() {
  acceptor.async_accept([self = shared_from_this()](error_code ec, tcp::socket socket) {
    if (self->stopping) return;
    if (ec) {
      // Out of descriptors (EMFILE) and the like: try again shortly instead of spinning.
      self->Log(self->options.name + ": accept failed: " + ec.message());
      self->accept_retry.expires_after(std::chrono::milliseconds(100));
      self->accept_retry.async_wait([self](error_code e) {
        if (!e && !self->stopping) self->Accept();
      });
      return;
    }
    self->OnAccept(std::move(socket));
    self->Accept();
  });
}

void HttpServer::Impl::OnAccept(tcp::socket socket) {
  error_code ec;
  const tcp::endpoint remote = socket.remote_endpoint(ec);
  if (ec) return;
  const std::string address = remote.address().to_string();
  int& open = per_client[address];
  if (open >= options.max_connections_per_client) {
    // Closed at once: one address cannot take the sockets every other client needs.
    if (refused_client != address) {
      refused_client = address;
      Log(options.name + ": connections from " + address + " refused: it holds " +
          std::to_string(open) + " already (the limit per client address)");
    }
    socket.close(ec);
    return;
  }
  ++open;
  if (options.tls) {
    CheckTls();
    std::make_shared<Connection<beast::ssl_stream<beast::tcp_stream>>>(
        shared_from_this(), std::move(socket), address, tls)
        ->Start();
  } else {
    std::make_shared<Connection<beast::tcp_stream>>(shared_from_this(), std::move(socket), address,
                                                    nullptr)
        ->Start();
  }
}

void HttpServer::Impl::CheckTls() {
  const auto now = std::chrono::steady_clock::now();
  if (now - tls_checked < options.tls_check_interval) return;
  tls_checked = now;
  const std::vector<FileStamp> stamps = Stamps(*options.tls);
  if (stamps == tls_loaded || stamps == tls_failed) return;
  std::string error;
  auto fresh = LoadTls(*options.tls, &error);
  if (!fresh) {
    tls_failed = stamps;
    Log(options.name + ": " + error + "; still serving the certificate loaded before");
    return;
  }
  tls = std::move(fresh);
  tls_loaded = stamps;
  tls_failed.clear();
  Log(options.name + ": TLS files changed: serving " + options.tls->cert_file);
}

void HttpServer::Impl::StopAll() {
  error_code ignored;
  acceptor.close(ignored);
  accept_retry.cancel();
  std::vector<std::shared_ptr<ConnectionBase>> open;
  for (auto& [id, weak] : connections) {
    if (auto c = weak.lock()) open.push_back(std::move(c));
  }
  for (auto& c : open) c->StopNow();
}

HttpServer::HttpServer(Handler handler, const actors::StatusBoard* board)
    : handler_(std::move(handler)), board_(board) {}

HttpServer::~HttpServer() { Stop(); }

std::optional<std::string> HttpServer::Start(const HttpServerOptions& options) {
  if (impl_) return options.name + ": the server is already running";
  std::string error;
  const std::optional<ListenAddress> address = ParseListen(options.listen, &error);
  if (!address) return error;
  auto impl = std::make_shared<Impl>();
  impl->options = options;
  impl->handler = handler_;
  impl->board = board_;
  impl->listen_host = address->host;
  if (options.tls) {
    impl->tls = LoadTls(*options.tls, &error);
    if (!impl->tls) return error;
    impl->tls_loaded = Stamps(*options.tls);
    impl->tls_checked = std::chrono::steady_clock::now();
  }
  error_code ec;
  tcp::resolver resolver(impl->io);
  const auto results = resolver.resolve(address->host, std::to_string(address->port),
                                        tcp::resolver::numeric_service, ec);
  if (ec || results.empty()) {
    return "cannot listen on " + options.listen + ": cannot resolve \"" + address->host +
           "\": " + (ec ? ec.message() : "no address");
  }
  const tcp::endpoint endpoint = results.begin()->endpoint();
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) return "cannot listen on " + options.listen + ": " + ec.message();
  port_ = impl->acceptor.local_endpoint(ec).port();

  impl->pool = std::make_unique<net::thread_pool>(std::max(1, options.handler_threads));
  impl->Accept();
  impl->io_thread = std::thread([impl = impl.get()] {
    impl->io.run();
    impl->io_done.set_value();
  });
  if (board_ != nullptr) {
    // One waiter per collection wakes that collection's streams: no thread per stream.
    for (const char* collection : actors::StatusBoard::kCollections) {
      // The cursor is taken here, before Start() returns: a change published right after it
      // wakes the streams even when this thread has not run yet.
      impl->feed_threads.emplace_back(
          [impl = impl.get(), collection, cursor = board_->feed().version()]() mutable {
            std::vector<actors::Change> changes;
            while (!impl->stopping) {
              const auto read = impl->board->feed().Next(
                  collection, &cursor, std::chrono::steady_clock::now() + std::chrono::seconds(10),
                  impl->stopping, &changes);
              changes.clear();
              if (read == actors::ChangeFeed::Read::kBehind) cursor = impl->board->feed().version();
              if (read == actors::ChangeFeed::Read::kChanges ||
                  read == actors::ChangeFeed::Read::kBehind) {
                net::post(impl->io, [impl, collection] { impl->WakeWatchers(collection); });
              }
            }
          });
    }
  }
  impl->Log(
      options.name + ": listening on " + options.listen + " (port " + std::to_string(port_) +
      (options.tls ? ", TLS" : "") +
      (options.tls && !options.tls->client_ca_file.empty() ? " with client certificates" : "") +
      ")");
  impl_ = std::move(impl);
  return std::nullopt;
}

void HttpServer::Stop() {
  if (!impl_) return;
  Impl& impl = *impl_;
  impl.stopping = true;
  if (board_ != nullptr) board_->feed().WakeAll();
  for (auto& t : impl.feed_threads) t.join();
  impl.feed_threads.clear();
  // Streams end with their last chunk, everything else closes; what a client does not take
  // within the bound is cut (the io thread stops).
  net::post(impl.io, [&impl] { impl.StopAll(); });
  impl.work.reset();
  std::future<void> done = impl.io_done.get_future();
  if (done.wait_for(std::chrono::milliseconds(1500)) != std::future_status::ready) {
    impl.io.stop();
  }
  impl.io_thread.join();
  impl.pool->join();
  // What is left (a stalled write, a reply queued after the io thread stopped) is closed hard
  // here, and the io context runs once more so every handler completes and releases its
  // connection (each holds the impl).
  impl.io.restart();
  error_code ignored;
  impl.acceptor.close(ignored);
  impl.accept_retry.cancel();
  std::vector<std::shared_ptr<ConnectionBase>> open;
  for (auto& [id, weak] : impl.connections) {
    if (auto c = weak.lock()) open.push_back(std::move(c));
  }
  for (auto& c : open) c->Kill();
  open.clear();
  impl.io.run();
  impl_.reset();
  port_ = 0;
}

}  // namespace fleetwave::api
