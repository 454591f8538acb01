#include "tools/kubesim/server.h"

#include <deque>
#include <functional>
#include <iostream>
#include <unordered_map>

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
// What a watch keeps of its write buffer between events.
constexpr std::size_t kKeptChunkBytes = 16 << 10;

// The open watch streams per cluster, so a dropWatches or down fault can end them all.
class WatchRegistry {
 public:
  void Add(int cluster, std::uint64_t id, std::function<void()> finish) {
    watches_[cluster][id] = std::move(finish);
  }
  void Remove(int cluster, std::uint64_t id) {
    auto it = watches_.find(cluster);
    if (it == watches_.end()) return;
    it->second.erase(id);
    if (it->second.empty()) watches_.erase(it);
  }
  // Ends every watch of `cluster` the way an API server ends a watch: a clean end of stream.
  void Drop(int cluster) {
    auto it = watches_.find(cluster);
    if (it == watches_.end()) return;
    auto finishers = std::move(it->second);  // finishing unregisters: iterate a copy
    watches_.erase(it);
    for (auto& [id, finish] : finishers) finish();
  }

 private:
  std::unordered_map<int, std::unordered_map<std::uint64_t, std::function<void()>>> watches_;
};

template <class Stream>
class Session : public std::enable_shared_from_this<Session<Stream>> {
 public:
  template <class... Args>
  Session(Simulator& sim, WatchRegistry& registry, int cluster, Duration bookmark_interval,
          Args&&... args)
      : stream_(std::forward<Args>(args)...),
        sim_(sim),
        registry_(registry),
        cluster_(cluster),
        bookmark_interval_(bookmark_interval),
        watch_timer_(stream_.get_executor()),
        bookmark_timer_(stream_.get_executor()),
        fault_timer_(stream_.get_executor()),
        delay_timer_(stream_.get_executor()) {}

  // A refused connection: reset at once (RST, not an orderly close), as a dead server's
  // port does.
  void Reset() {
    closed_ = true;
    UnregisterWatch();
    error_code ec;
    auto& sock = beast::get_lowest_layer(stream_).socket();
    sock.set_option(net::socket_base::linger(true, 0), ec);
    sock.close(ec);
  }

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
      if (auto s = session_.lock()) s->Deliver(std::move(line));
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
    auto r = std::make_shared<HttpRequest>();
    r->method = std::string(req.method_string());
    r->target = std::string(req.target());
    r->content_type = std::string(req[http::field::content_type]);
    r->accept = std::string(req[http::field::accept]);
    r->authorization = std::string(req[http::field::authorization]);
    r->user_agent = std::string(req[http::field::user_agent]);
    r->body = std::move(req.body());
    // Faults of the addressed cluster apply before the simulator sees the request; the admin
    // API (/kubesim/...) is never faulty.
    int cluster = ControlPlane::ClusterOf(r->target, cluster_, sim_.cluster_count());
    FaultAction fault = cluster >= 0 ? sim_.control().faults().Decide(cluster) : FaultAction{};
    if (fault.kind == FaultAction::kReset) return Reset();
    if (fault.kind == FaultAction::kHang) {
      // Accept, never answer: only the client hanging up (or its timeout) ends this.
      return stream_.async_read_some(
          net::buffer(probe_),
          [self = this->shared_from_this()](error_code, std::size_t) { self->Close(); });
    }
    unsigned version = req.version();
    bool keep = req.keep_alive();
    if (fault.latency_ms > 0) {
      // An async timer, so a slow cluster never delays the others on the one io thread.
      fault_timer_.expires_after(std::chrono::milliseconds(fault.latency_ms));
      return fault_timer_.async_wait(
          [self = this->shared_from_this(), r, version, keep, fault](error_code ec) {
            if (ec) return self->Close();
            self->Respond(*r, version, keep, fault);
          });
    }
    Respond(*r, version, keep, fault);
  }

  void Respond(const HttpRequest& r, unsigned version, bool keep_alive, const FaultAction& fault) {
    if (closed_) return;
    if (fault.kind == FaultAction::kRespond) {
      auto res = std::make_shared<http::response<http::string_body>>(
          static_cast<http::status>(fault.status), version);
      res->set(http::field::server, "kubesim");
      res->set(http::field::content_type, "application/json");
      if (fault.status == 429)
        res->set(http::field::retry_after, std::to_string(fault.retry_after));
      res->keep_alive(keep_alive);
      res->body() = fault.body;
      res->prepare_payload();
      return http::async_write(
          stream_, *res,
          [self = this->shared_from_this(), res, keep_alive](error_code ec, std::size_t) {
            if (ec || !keep_alive) return self->Close();
            self->DoRead();
          });
    }
    Dispatch d = sim_.Handle(r, cluster_);
    if (d.watch) return StartWatch(*d.watch, version, keep_alive);
    auto res = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(d.response.status), version);
    res->set(http::field::server, "kubesim");
    res->set(http::field::content_type, d.response.content_type);
    res->set(http::field::cache_control, "no-cache, private");
    res->keep_alive(keep_alive);
    res->body() = std::move(d.response.body);
    res->prepare_payload();
    bool keep = keep_alive;
    http::async_write(stream_, *res,
                      [self = this->shared_from_this(), res, keep](error_code ec, std::size_t) {
                        if (ec || !keep) return self->Close();
                        self->DoRead();
                      });
  }

  void StartWatch(const WatchPlan& plan, unsigned version, bool keep_alive) {
    plan_ = plan;
    watch_keep_alive_ = keep_alive;
    beast::get_lowest_layer(stream_).expires_never();
    auto res = std::make_shared<http::response<http::empty_body>>(http::status::ok, version);
    res->set(http::field::server, "kubesim");
    res->set(http::field::content_type, "application/json");
    res->set(http::field::cache_control, "no-cache, private");
    // As an API server: the stream ends with its last chunk and the connection stays open
    // for the next request, so re-opening a watch needs no new TCP or TLS handshake.
    res->keep_alive(keep_alive);
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
    registry_.Add(plan_->cluster, watch_id_, [weak = this->weak_from_this()] {
      if (auto self = weak.lock()) self->FinishWatch();
    });
    int timeout = plan_->timeout_seconds > 0 ? plan_->timeout_seconds : 1800;
    watch_timer_.expires_after(std::chrono::seconds(timeout));
    watch_timer_.async_wait([self = this->shared_from_this()](error_code ec) {
      if (!ec) self->FinishWatch();
    });
    if (plan_->bookmarks) ScheduleBookmark();
    // Nothing is expected from the client until the watch ends: a read failing means it hung
    // up; bytes arriving are its next request, kept in buffer_ for the parser.
    probing_ = true;
    stream_.async_read_some(buffer_.prepare(4096),
                            [self = this->shared_from_this()](error_code ec, std::size_t n) {
                              self->probing_ = false;
                              if (ec) return self->Close();
                              self->buffer_.commit(n);
                              if (self->watch_over_) self->NextRequest();
                            });
  }

  void ScheduleBookmark() {
    bookmark_timer_.expires_after(bookmark_interval_);
    bookmark_timer_.async_wait([self = this->shared_from_this()](error_code ec) {
      if (ec || self->closed_ || self->finishing_) return;
      ++self->sim_.server_counter("bookmarks");
      self->Enqueue(self->sim_.BookmarkLine(*self->plan_));
      self->ScheduleBookmark();
    });
  }

  // Watch lines pass here first: a cluster with watchDelayMs holds each line back that long
  // (in order) on a timer, so other clusters' watches are not delayed.
  void Deliver(std::string line) {
    int delay = plan_ ? sim_.control().faults().WatchDelayMs(plan_->cluster) : 0;
    if (delay <= 0 && delayed_.empty()) return Enqueue(std::move(line));
    delayed_.emplace_back(std::chrono::steady_clock::now() + std::chrono::milliseconds(delay),
                          std::move(line));
    if (!delay_armed_) ArmDelay();
  }

  void ArmDelay() {
    if (delayed_.empty() || closed_) return;
    delay_armed_ = true;
    delay_timer_.expires_at(delayed_.front().first);
    delay_timer_.async_wait([self = this->shared_from_this()](error_code ec) {
      self->delay_armed_ = false;
      if (ec || self->closed_) return;
      auto now = std::chrono::steady_clock::now();
      while (!self->delayed_.empty() && self->delayed_.front().first <= now) {
        std::string line = std::move(self->delayed_.front().second);
        self->delayed_.pop_front();
        self->Enqueue(std::move(line));
      }
      self->ArmDelay();
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
      net::async_write(stream_, http::make_chunk_last(),
                       [self = this->shared_from_this()](error_code ec, std::size_t) {
                         self->writing_ = false;
                         if (ec || !self->watch_keep_alive_) return self->Close();
                         self->watch_over_ = true;
                         // The probe read still pending delivers the next request (or the
                         // hang-up); if it already brought bytes, parse them now.
                         if (!self->probing_) self->NextRequest();
                       });
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
                       // A burst (the initial ADDED list) must not leave every idle watch
                       // holding its size.
                       if (self->current_.capacity() > kKeptChunkBytes)
                         std::string().swap(self->current_);
                       if (ec) return self->Close();
                       self->WriteNext();
                     });
  }

  // The watch is over and its connection kept: back to reading requests.
  void NextRequest() {
    if (closed_) return;
    watch_over_ = false;
    finishing_ = false;
    plan_.reset();
    sink_.reset();
    delay_timer_.cancel();
    delayed_.clear();
    queue_.clear();
    queued_bytes_ = 0;
    DoRead();
  }

  void FinishWatch() {
    if (closed_ || finishing_) return;
    UnregisterWatch();
    finishing_ = true;
    if (!writing_) WriteNext();
  }

  void UnregisterWatch() {
    if (watch_id_ != 0) {
      sim_.CloseWatch(plan_->cluster, watch_id_);
      registry_.Remove(plan_->cluster, watch_id_);
    }
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
  WatchRegistry& registry_;
  int cluster_;
  Duration bookmark_interval_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<WatchPlan> plan_;
  std::shared_ptr<WatchSink> sink_;
  std::uint64_t watch_id_ = 0;
  net::steady_timer watch_timer_;
  net::steady_timer bookmark_timer_;
  net::steady_timer fault_timer_;  // injected latency
  net::steady_timer delay_timer_;  // injected watch delay
  std::deque<std::pair<std::chrono::steady_clock::time_point, std::string>> delayed_;
  bool delay_armed_ = false;
  std::deque<std::string> queue_;
  std::size_t queued_bytes_ = 0;
  std::string current_;
  char probe_[64];
  bool probing_ = false;           // the read that notices a hang-up during a watch is pending
  bool watch_keep_alive_ = false;  // the watch's connection stays open after its last chunk
  bool watch_over_ = false;        // its last chunk is written; the next request may follow
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
          if (!ec && cluster >= 0 && sim.control().faults().Down(cluster)) {
            // A down cluster refuses: reset whatever slipped in before its listener closed.
            socket.set_option(net::socket_base::linger(true, 0), ec);
            socket.close(ec);
          } else if (!ec) {
            socket.set_option(tcp::no_delay(true), ec);
            socket.set_option(net::socket_base::keep_alive(true), ec);
            if (tls_context) {
              std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(
                  sim, watches, cluster, options.bookmark_interval, std::move(socket), *tls_context)
                  ->Start();
            } else {
              std::make_shared<Session<beast::tcp_stream>>(
                  sim, watches, cluster, options.bookmark_interval, std::move(socket))
                  ->Start();
            }
          }
          if (ec != net::error::operation_aborted) Accept(acceptor, cluster);
        });
  }

  // With --ports, a down cluster's listener is closed (connection refused) and reopened on
  // the same port once the fault is cleared.
  void ScheduleFaultSync() {
    fault_timer.expires_after(std::chrono::milliseconds(20));
    fault_timer.async_wait([this](error_code ec) {
      if (ec) return;
      SyncListeners();
      ScheduleFaultSync();
    });
  }

  void SyncListeners() {
    FaultTable& faults = sim.control().faults();
    if (!options.per_cluster_ports || (faults.empty() && closed_listeners == 0)) return;
    for (int i = 0; i < static_cast<int>(acceptors.size()); ++i) {
      auto& a = acceptors[i];
      bool down = faults.Down(i);
      error_code ec;
      if (down && a->is_open()) {
        a->close(ec);
        ++closed_listeners;
      } else if (!down && !a->is_open()) {
        a->open(endpoints[i].protocol(), ec);
        if (!ec) a->set_option(net::socket_base::reuse_address(true), ec);
        if (!ec) a->bind(endpoints[i], ec);
        if (!ec) a->listen(net::socket_base::max_listen_connections, ec);
        if (ec) {
          a->close(ec);  // try again on the next sync
          continue;
        }
        --closed_listeners;
        Accept(a, i);
      }
    }
  }

  // The controllers' timer sleeps until the simulator has work: the next tick while some
  // cluster is active, else the earliest due time of a settled one, else until a write
  // wakes it (Wake). So a fleet at rest costs no timer wake-ups.
  void ScheduleTick() {
    std::optional<std::chrono::steady_clock::duration> delay;
    if (sim.busy()) {
      delay = std::chrono::milliseconds(sim.options().tick_ms);
    } else if (auto due = sim.NextDue()) {
      delay = std::max(Duration::zero(), *due - sim.clock().Now());
    }
    if (!delay) {
      tick_armed = false;
      return;
    }
    ArmTick(std::chrono::steady_clock::now() + *delay);
  }

  void ArmTick(std::chrono::steady_clock::time_point at) {
    tick_armed = true;
    tick_at = at;
    tick_timer.expires_at(at);  // cancels a pending wait (which then returns on its error)
    tick_timer.async_wait([this](error_code ec) {
      if (ec) return;
      ++sim.server_counter("timer_wakeups");
      sim.Tick();
      ScheduleTick();
    });
  }

  // A write gave a sleeping simulator work: tick within --tick-ms.
  void Wake() {
    auto at = std::chrono::steady_clock::now() + std::chrono::milliseconds(sim.options().tick_ms);
    if (!tick_armed || tick_at > at) ArmTick(at);
  }

  Simulator& sim;
  ServerOptions options;
  // One thread: the simulator is single-threaded by design.
  net::io_context io{1};
  std::optional<ssl::context> tls_context;
  std::vector<std::shared_ptr<tcp::acceptor>> acceptors;
  std::vector<tcp::endpoint> endpoints;  // bound address of each acceptor
  int closed_listeners = 0;
  WatchRegistry watches;
  net::signal_set signals;
  net::steady_timer tick_timer;
  bool tick_armed = false;
  std::chrono::steady_clock::time_point tick_at{};
  net::steady_timer fault_timer{io};
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
    s.endpoints.push_back(acceptor->local_endpoint());
    s.acceptors.push_back(acceptor);
    s.Accept(acceptor, s.options.per_cluster_ports ? i : -1);
  }
  s.signals.async_wait([&s](error_code, int) { s.io.stop(); });
  s.sim.control().SetWatchDropper([&s](int cluster) { s.watches.Drop(cluster); });
  s.ScheduleFaultSync();
  // With a manual clock, controllers step only when the clock is advanced.
  if (!s.sim.clock().manual()) {
    s.sim.SetWakeListener([&s] { s.Wake(); });
    s.ScheduleTick();
  }
  return true;
}

void Server::Run() { impl_->io.run(); }

}  // namespace fleetwave::kubesim
