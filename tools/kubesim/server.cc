#include "tools/kubesim/server.h"

#include <deque>
#include <iostream>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

namespace fleetwave::kubesim {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
using beast::error_code;

namespace {

// A slow watcher that lets this much pile up is cut off, as API servers drop slow watches.
constexpr std::size_t kMaxQueuedWatchBytes = 64 << 20;

template <class Stream>
class Session : public std::enable_shared_from_this<Session<Stream>> {
 public:
  template <class... Args>
  Session(Simulator& sim, int cluster, Duration bookmark_interval, Args&&... args)
      : stream_(std::forward<Args>(args)...),
        sim_(sim),
        cluster_(cluster),
        bookmark_interval_(bookmark_interval),
        watch_timer_(stream_.get_executor()),
        bookmark_timer_(stream_.get_executor()) {}

  void Start() {
    if constexpr (std::is_same_v<Stream, beast::tcp_stream>) {
      DoRead();
    } else {
      beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(30));
      stream_.async_handshake(ssl::stream_base::server,
                              [self = this->shared_from_this()](error_code ec) {
                                if (ec) return self->Close();
                                self->DoRead();
                              });
    }
  }

 private:
  // Delivers watch lines into the session; holds it weakly so a closed session is dropped.
  class Sink : public WatchSink {
   public:
    explicit Sink(std::weak_ptr<Session> s) : session_(std::move(s)) {}
    void Send(std::string line) override {
      if (auto s = session_.lock()) s->Enqueue(std::move(line));
    }

   private:
    std::weak_ptr<Session> session_;
  };

  void DoRead() {
    parser_.emplace();
    parser_->body_limit(256u << 20);
    parser_->header_limit(1u << 20);
    beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(600));
    http::async_read(
        stream_, buffer_, *parser_,
        [self = this->shared_from_this()](error_code ec, std::size_t) { self->OnRead(ec); });
  }

  void OnRead(error_code ec) {
    if (ec) return Close();
    auto req = parser_->release();
    HttpRequest r;
    r.method = std::string(req.method_string());
    r.target = std::string(req.target());
    r.content_type = std::string(req[http::field::content_type]);
    r.accept = std::string(req[http::field::accept]);
    r.authorization = std::string(req[http::field::authorization]);
    r.user_agent = std::string(req[http::field::user_agent]);
    r.body = std::move(req.body());
    Dispatch d = sim_.Handle(r, cluster_);
    if (d.watch) return StartWatch(*d.watch, req.version());
    auto res = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(d.response.status), req.version());
    res->set(http::field::server, "kubesim");
    res->set(http::field::content_type, d.response.content_type);
    res->set(http::field::cache_control, "no-cache, private");
    res->keep_alive(req.keep_alive());
    res->body() = std::move(d.response.body);
    res->prepare_payload();
    bool keep = req.keep_alive();
    http::async_write(stream_, *res,
                      [self = this->shared_from_this(), res, keep](error_code ec, std::size_t) {
                        if (ec || !keep) return self->Close();
                        self->DoRead();
                      });
  }

  void StartWatch(const WatchPlan& plan, unsigned version) {
    plan_ = plan;
    beast::get_lowest_layer(stream_).expires_never();
    auto res = std::make_shared<http::response<http::empty_body>>(http::status::ok, version);
    res->set(http::field::server, "kubesim");
    res->set(http::field::content_type, "application/json");
    res->set(http::field::cache_control, "no-cache, private");
    res->keep_alive(false);
    res->chunked(true);
    auto sr = std::make_shared<http::response_serializer<http::empty_body>>(*res);
    writing_ = true;
    http::async_write_header(
        stream_, *sr, [self = this->shared_from_this(), res, sr](error_code ec, std::size_t) {
          self->writing_ = false;
          if (ec) return self->Close();
          self->OpenWatch();
        });
  }

  void OpenWatch() {
    sink_ = std::make_shared<Sink>(this->weak_from_this());
    try {
      watch_id_ = sim_.OpenWatch(*plan_, sink_);
    } catch (const std::exception& e) {
      std::cerr << "kubesim: internal error opening a watch: " << e.what() << "\n";
      return Close();
    }
    if (watch_id_ == 0) return FinishWatch();
    int timeout = plan_->timeout_seconds > 0 ? plan_->timeout_seconds : 1800;
    watch_timer_.expires_after(std::chrono::seconds(timeout));
    watch_timer_.async_wait([self = this->shared_from_this()](error_code ec) {
      if (!ec) self->FinishWatch();
    });
    if (plan_->bookmarks) ScheduleBookmark();
    // Nothing more is expected from the client; a read completing means it hung up.
    stream_.async_read_some(net::buffer(probe_), [self = this->shared_from_this()](
                                                     error_code, std::size_t) { self->Close(); });
  }

  void ScheduleBookmark() {
    bookmark_timer_.expires_after(bookmark_interval_);
    bookmark_timer_.async_wait([self = this->shared_from_this()](error_code ec) {
      if (ec || self->closed_ || self->finishing_) return;
      self->Enqueue(self->sim_.BookmarkLine(*self->plan_));
      self->ScheduleBookmark();
    });
  }

  void Enqueue(std::string line) {
    if (closed_ || finishing_) return;
    queued_bytes_ += line.size();
    if (queued_bytes_ > kMaxQueuedWatchBytes) return Close();
    queue_.push_back(std::move(line));
    if (!writing_) WriteNext();
  }

  void WriteNext() {
    if (closed_) return;
    if (queue_.empty()) {
      if (!finishing_) return;
      writing_ = true;
      net::async_write(
          stream_, http::make_chunk_last(),
          [self = this->shared_from_this()](error_code, std::size_t) { self->Close(); });
      return;
    }
    // Everything queued goes out as one chunk: fewer writes under bursts.
    current_.clear();
    for (auto& l : queue_) current_ += l;
    queue_.clear();
    queued_bytes_ = 0;
    writing_ = true;
    net::async_write(stream_, http::make_chunk(net::buffer(current_)),
                     [self = this->shared_from_this()](error_code ec, std::size_t) {
                       self->writing_ = false;
                       if (ec) return self->Close();
                       self->WriteNext();
                     });
  }

  void FinishWatch() {
    if (closed_ || finishing_) return;
    UnregisterWatch();
    finishing_ = true;
    if (!writing_) WriteNext();
  }

  void UnregisterWatch() {
    if (watch_id_ != 0) sim_.CloseWatch(plan_->cluster, watch_id_);
    watch_id_ = 0;
    watch_timer_.cancel();
    bookmark_timer_.cancel();
  }

  void Close() {
    if (closed_) return;
    closed_ = true;
    UnregisterWatch();
    error_code ec;
    auto& sock = beast::get_lowest_layer(stream_).socket();
    sock.shutdown(tcp::socket::shutdown_both, ec);
    sock.close(ec);
  }

  Stream stream_;
  Simulator& sim_;
  int cluster_;
  Duration bookmark_interval_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<WatchPlan> plan_;
  std::shared_ptr<WatchSink> sink_;
  std::uint64_t watch_id_ = 0;
  net::steady_timer watch_timer_;
  net::steady_timer bookmark_timer_;
  std::deque<std::string> queue_;
  std::size_t queued_bytes_ = 0;
  std::string current_;
  char probe_[64];
  bool writing_ = false;
  bool finishing_ = false;
  bool closed_ = false;
};

}  // namespace

struct Server::Impl {
  Impl(Simulator& s, ServerOptions o)
      : sim(s), options(std::move(o)), signals(io, SIGINT, SIGTERM), tick_timer(io) {}

  void Accept(std::shared_ptr<tcp::acceptor> acceptor, int cluster) {
    acceptor->async_accept(
        net::make_strand(io), [this, acceptor, cluster](error_code ec, tcp::socket socket) {
          if (!ec) {
            socket.set_option(tcp::no_delay(true), ec);
            socket.set_option(net::socket_base::keep_alive(true), ec);
            if (tls_context) {
              std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(
                  sim, cluster, options.bookmark_interval, std::move(socket), *tls_context)
                  ->Start();
            } else {
              std::make_shared<Session<beast::tcp_stream>>(sim, cluster, options.bookmark_interval,
                                                           std::move(socket))
                  ->Start();
            }
          }
          if (ec != net::error::operation_aborted) Accept(acceptor, cluster);
        });
  }

  void ScheduleTick() {
    tick_timer.expires_after(std::chrono::milliseconds(sim.options().tick_ms));
    tick_timer.async_wait([this](error_code ec) {
      if (ec) return;
      sim.Tick();
      ScheduleTick();
    });
  }

  Simulator& sim;
  ServerOptions options;
  // One thread: the simulator is single-threaded by design.
  net::io_context io{1};
  std::optional<ssl::context> tls_context;
  std::vector<std::shared_ptr<tcp::acceptor>> acceptors;
  net::signal_set signals;
  net::steady_timer tick_timer;
};

Server::Server(Simulator& simulator, ServerOptions options)
    : impl_(std::make_unique<Impl>(simulator, std::move(options))) {}

Server::~Server() = default;

bool Server::Start(std::vector<std::uint16_t>* ports, std::string* error) {
  Impl& s = *impl_;
  if (s.options.tls) {
    s.tls_context.emplace(ssl::context::tls_server);
    error_code ec;
    s.tls_context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                               ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                               ssl::context::no_tlsv1_1);
    std::string chain = s.options.tls->cert_pem + s.options.tls->ca_pem;
    s.tls_context->use_certificate_chain(net::buffer(chain), ec);
    if (!ec)
      s.tls_context->use_private_key(net::buffer(s.options.tls->key_pem), ssl::context::pem, ec);
    if (ec) {
      *error = "TLS setup failed: " + ec.message();
      return false;
    }
  }
  error_code ec;
  auto address = net::ip::make_address(s.options.host, ec);
  if (ec) {
    *error = "invalid listen address " + s.options.host;
    return false;
  }
  int listeners = s.options.per_cluster_ports ? s.sim.cluster_count() : 1;
  for (int i = 0; i < listeners; ++i) {
    std::uint16_t port = s.options.port == 0 ? 0 : static_cast<std::uint16_t>(s.options.port + i);
    auto acceptor = std::make_shared<tcp::acceptor>(s.io);
    tcp::endpoint ep(address, port);
    acceptor->open(ep.protocol(), ec);
    if (!ec) acceptor->set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor->bind(ep, ec);
    if (!ec) acceptor->listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
      *error =
          "cannot listen on " + s.options.host + ":" + std::to_string(port) + ": " + ec.message();
      return false;
    }
    ports->push_back(acceptor->local_endpoint().port());
    s.acceptors.push_back(acceptor);
    s.Accept(acceptor, s.options.per_cluster_ports ? i : -1);
  }
  s.signals.async_wait([&s](error_code, int) { s.io.stop(); });
  // With a manual clock, controllers step only when the clock is advanced.
  if (!s.sim.clock().manual()) s.ScheduleTick();
  return true;
}

void Server::Run() { impl_->io.run(); }

}  // namespace fleetwave::kubesim
