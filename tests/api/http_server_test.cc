// HttpServer against hostile and old clients, on 127.0.0.1:0 (issue 30's reproductions): a
// slowloris of 200 connections, clients that hold /metrics without reading it, idle watch
// readers, a 20 MB body, HTTP/1.0, keep-alive and a Host that names another site. Client
// sockets bind to 127.0.0.2 where the test needs a second client address (all of 127.0.0.0/8
// is loopback). Every wait is bounded by a deadline on a condition.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "actors/status_board.h"
#include "api/api_routes.h"
#include "api/http_server.h"
#include "tests/api/api_test_client.h"
#include "tests/api/api_watch_client.h"

namespace fleetwave::api {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::HttpResult;
using testing::RawHttp;
using testing::WatchClient;
using Clock = std::chrono::steady_clock;

// A connected TCP socket from `source` (port chosen by the kernel) to 127.0.0.1:port; -1 when
// it cannot connect. `rcvbuf` > 0 shrinks the receive buffer (a client that reads nothing then
// backs the server's writes up quickly).
int Connect(int port, const char* source = "127.0.0.1", int rcvbuf = 0) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (rcvbuf > 0) ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
  sockaddr_in from{};
  from.sin_family = AF_INET;
  inet_pton(AF_INET, source, &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof(from)) != 0 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

// Whether the server closed `fd` (EOF or reset), waiting at most `within`.
bool ClosedByServer(int fd, milliseconds within) {
  const auto deadline = Clock::now() + within;
  char buf[4096];
  while (true) {
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(std::max<long long>(0, left))) <= 0) return false;
    const ssize_t n = ::recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) return true;
  }
}

// Reads what arrives on `fd` until the server closes it or the deadline passes.
std::string ReadToClose(int fd, milliseconds within = seconds(10)) {
  const auto deadline = Clock::now() + within;
  std::string out;
  char buf[65536];
  while (true) {
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
    pollfd p{fd, POLLIN, 0};
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0) break;
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

class HttpServerTest : public ::testing::Test {
 protected:
  void TearDown() override { server_.reset(); }

  // /healthz, /big (4 MiB, as a large /metrics scrape), /watch (a watch of the applications),
  // /echo (the request body's size).
  void Start(HttpServerOptions options = {}) {
    options.listen = "127.0.0.1:0";
    options.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu_);
      logs_.push_back(line);
    };
    board_.SetReady(true);
    server_ = std::make_unique<HttpServer>(
        [](const ApiRequest& r) {
          ApiResponse out;
          out.content_type = "text/plain";
          if (r.path == "/big") {
            out.body = std::string(4 << 20, 'm');
          } else if (r.path == "/watch") {
            out.watch = actors::StatusBoard::kApplications;
          } else if (r.path == "/echo") {
            out.body = std::to_string(r.body.size());
          } else {
            out.body = "ok\n";
          }
          return out;
        },
        &board_);
    const auto error = server_->Start(options);
    ASSERT_EQ(error, std::nullopt) << *error;
  }

  bool Logged(const std::string& part) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& l : logs_) {
      if (l.find(part) != std::string::npos) return true;
    }
    return false;
  }

  // GET /healthz from 127.0.0.1; the time it took, or nullopt when it was not a 200.
  std::optional<milliseconds> Probe() {
    const auto start = Clock::now();
    const HttpResult r = RawHttp(server_->port(),
                                 "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                 "Connection: close\r\n\r\n");
    if (r.status != 200) return std::nullopt;
    return std::chrono::duration_cast<milliseconds>(Clock::now() - start);
  }

  actors::StatusBoard board_;
  std::unique_ptr<HttpServer> server_;
  std::mutex mu_;
  std::vector<std::string> logs_;
};

// 200 connections from one address that send a header byte every few hundred ms: probes from
// another address are each answered within 1 s; the address holds at most its cap of
// connections (the rest are closed at once), and the slow ones are closed at the read timeout.
TEST_F(HttpServerTest, SlowlorisDelaysNoProbe) {
  HttpServerOptions options;
  options.read_timeout = milliseconds(2000);
  Start(options);
  std::vector<int> slow;
  for (int i = 0; i < 200; ++i) {
    const int fd = Connect(server_->port(), "127.0.0.2");
    ASSERT_GE(fd, 0) << "connection " << i;
    slow.push_back(fd);
  }
  std::atomic<bool> done{false};
  std::thread dribble([&] {
    const std::string head = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
    size_t at = 0;
    while (!done) {
      for (int fd : slow) ::send(fd, head.data() + (at % head.size()), 1, MSG_NOSIGNAL);
      ++at;
      // The attack's pace, not a synchronisation: one byte per connection every 300 ms.
      std::this_thread::sleep_for(milliseconds(300));
    }
  });
  for (int i = 0; i < 5; ++i) {
    const auto took = Probe();
    ASSERT_TRUE(took.has_value()) << "probe " << i;
    EXPECT_LT(*took, milliseconds(1000)) << "probe " << i;
  }
  // 64 are served (the cap per client address); the other 136 were closed at once.
  int closed_at_once = 0;
  for (int fd : slow) closed_at_once += ClosedByServer(fd, milliseconds(0)) ? 1 : 0;
  EXPECT_EQ(closed_at_once, 200 - options.max_connections_per_client);
  EXPECT_TRUE(Logged("connections from 127.0.0.2 refused"));
  // The held ones still dribbling are closed at the read timeout: well before 4 s.
  const auto start = Clock::now();
  int closed = 0;
  for (int fd : slow) closed += ClosedByServer(fd, seconds(4)) ? 1 : 0;
  EXPECT_EQ(closed, 200);
  EXPECT_LT(Clock::now() - start, seconds(4));
  done = true;
  dribble.join();
  for (int fd : slow) ::close(fd);
  EXPECT_TRUE(Probe().has_value());
}

// Clients that ask for a large response and read none of it hold only their own sockets.
TEST_F(HttpServerTest, ClientsHoldingAResponseDelayNoOther) {
  Start();
  std::vector<int> holders;
  for (int i = 0; i < 4; ++i) {
    const int fd = Connect(server_->port(), "127.0.0.1", 4096);
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(SendAll(fd, "GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
    holders.push_back(fd);
  }
  // Each holder has its response pending (a byte of it has arrived): none is still queued.
  for (int fd : holders) {
    pollfd p{fd, POLLIN, 0};
    ASSERT_EQ(::poll(&p, 1, 5000), 1);
  }
  const auto start = Clock::now();
  const HttpResult r =
      RawHttp(server_->port(), "GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body.size(), size_t{4} << 20);
  EXPECT_LT(Clock::now() - start, seconds(1));
  for (int fd : holders) ::close(fd);
}

// 20 watches that never read do not stop a new watch from streaming; a stalled one is dropped
// at the write timeout, freeing its slot.
TEST_F(HttpServerTest, IdleWatchReadersHoldNoSlotOthersNeed) {
  HttpServerOptions options;
  options.write_timeout = milliseconds(1000);
  options.max_watches = 24;
  options.max_watches_per_client = 24;
  Start(options);
  std::vector<std::unique_ptr<WatchClient>> idle;
  for (int i = 0; i < 20; ++i) {
    idle.push_back(std::make_unique<WatchClient>(server_->port(), "/watch", 4096));
    ASSERT_EQ(idle.back()->status(), 200);
  }
  WatchClient reader(server_->port(), "/watch");
  ASSERT_EQ(reader.status(), 200);
  ASSERT_EQ(reader.NextLine(), "{\"type\":\"BOOKMARK\",\"object\":{\"initialEventsEnd\":true}}");
  // Changes large enough to fill every idle reader's socket: the reader keeps up.
  const std::string filler(32 * 1024, 'x');
  for (int i = 0; i < 100; ++i) {
    board_.PublishApplication("s", "app",
                              engine::Json{{"metadata", {{"name", "app"}}}, {"n", filler + "-"}});
    board_.PublishApplication("s", "app",
                              engine::Json{{"metadata", {{"name", "app"}}}, {"n", filler}});
    ASSERT_TRUE(reader.NextLine()) << i;
    ASSERT_TRUE(reader.NextLine()) << i;
  }
  // The stalled readers are dropped at the write timeout: their streams end and slots free.
  const auto deadline = Clock::now() + seconds(10);
  while (!Logged("dropped: the client read nothing") && Clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  EXPECT_TRUE(Logged("dropped: the client read nothing for 1000 ms"));
  int status = 0;
  std::vector<std::unique_ptr<WatchClient>> fresh;
  while (Clock::now() < deadline && fresh.size() < 20) {
    auto w = std::make_unique<WatchClient>(server_->port(), "/watch");
    status = w->status();
    if (status == 200) fresh.push_back(std::move(w));
  }
  EXPECT_EQ(fresh.size(), 20u) << "last status " << status;
}

// A 20 MB body is refused with 413 without the server reading it: from Content-Length at once,
// and a chunked one as soon as its total passes the limit.
TEST_F(HttpServerTest, TwentyMegabyteBodyIs413WithoutReadingIt) {
  HttpServerOptions options;
  options.max_body_bytes = 1 << 20;
  Start(options);
  {
    const int fd = Connect(server_->port());
    ASSERT_TRUE(SendAll(fd,
                        "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        "Content-Length: 20971520\r\n\r\n"));
    const std::string response = ReadToClose(fd);
    ::close(fd);
    EXPECT_EQ(response.rfind("HTTP/1.1 413 ", 0), 0u) << response;
  }
  {
    const int fd = Connect(server_->port());
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    ASSERT_TRUE(SendAll(fd,
                        "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        "Transfer-Encoding: chunked\r\n\r\n"));
    const std::string chunk = "10000\r\n" + std::string(0x10000, 'b') + "\r\n";
    size_t sent = 0;
    while (sent < (size_t{20} << 20) && SendAll(fd, chunk)) sent += 0x10000;
    const std::string response = ReadToClose(fd);
    ::close(fd);
    EXPECT_EQ(response.rfind("HTTP/1.1 413 ", 0), 0u) << response.substr(0, 200);
    EXPECT_LT(sent, size_t{20} << 20) << "the server read the whole body";
  }
  {
    // A client that sends its body without waiting (no Expect: 100-continue) still reads the
    // 413: the server discards some of the body before it closes, instead of resetting the
    // connection over unread data (a reset makes the client's kernel drop the response).
    const int fd = Connect(server_->port());
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    std::thread sender([fd] {
      SendAll(fd, "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 20971520\r\n\r\n" +
                      std::string(256 * 1024, 'd'));
    });
    sender.join();
    const std::string response = ReadToClose(fd);
    ::close(fd);
    EXPECT_EQ(response.rfind("HTTP/1.1 413 ", 0), 0u) << response.substr(0, 200);
  }
  // Within the limit the body arrives whole.
  const HttpResult r = RawHttp(server_->port(),
                               "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                               "Content-Length: 1048576\r\n\r\n" +
                                   std::string(1 << 20, 'c'));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "1048576");
}

// A head over the header limit is 431.
TEST_F(HttpServerTest, OversizedHeaderIs431) {
  Start();
  const HttpResult r =
      RawHttp(server_->port(), "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " +
                                   std::string(20 * 1024, 'h') + "\r\n\r\n");
  EXPECT_EQ(r.status, 431) << r.error;
}

// HTTP/1.0 gets Content-Length answers and a close-delimited watch, never chunking.
TEST_F(HttpServerTest, Http10IsAnsweredWithoutChunking) {
  Start();
  const HttpResult r = RawHttp(server_->port(), "GET /healthz HTTP/1.0\r\n\r\n");
  EXPECT_EQ(r.status, 200) << r.error;
  EXPECT_EQ(r.header("content-length"), "3");
  EXPECT_EQ(r.header("transfer-encoding"), "");
  EXPECT_EQ(r.body, "ok\n");

  const int fd = Connect(server_->port());
  ASSERT_TRUE(SendAll(fd, "GET /watch HTTP/1.0\r\n\r\n"));
  std::string got;
  const auto deadline = Clock::now() + seconds(5);
  while (got.find("initialEventsEnd") == std::string::npos && Clock::now() < deadline) {
    char buf[4096];
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) == 1) {
      const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
      if (n <= 0) break;
      got.append(buf, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  EXPECT_EQ(got.rfind("HTTP/1.0 200 OK\r\n", 0), 0u) << got;
  EXPECT_EQ(got.find("chunked"), std::string::npos) << got;
  EXPECT_NE(got.find("\r\n\r\n{\"type\":\"BOOKMARK\""), std::string::npos) << got;
}

// HTTP/1.1 keeps the connection for the next request.
TEST_F(HttpServerTest, Http11KeepsTheConnectionAlive) {
  Start();
  const int fd = Connect(server_->port());
  ASSERT_TRUE(SendAll(fd,
                      "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                      "GET /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                      "Content-Length: 5\r\n\r\nhello"));
  const std::string both = ReadToClose(fd);
  ::close(fd);
  EXPECT_EQ(both.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << both;
  EXPECT_NE(both.find("ok\nHTTP/1.1 200 OK\r\n"), std::string::npos) << both;
  EXPECT_EQ(both.substr(both.size() - 1), "5");
}

// A Host that names another site (DNS rebinding) is 421; addresses, localhost and the
// allow-list are served.
TEST_F(HttpServerTest, WrongHostIs421) {
  HttpServerOptions options;
  options.allowed_hosts = {"fleetwave.example.com"};
  Start(options);
  auto get = [&](const std::string& host) {
    return RawHttp(server_->port(),
                   "GET /healthz HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
  };
  const HttpResult evil = get("rebind.attacker.example:" + std::to_string(server_->port()));
  EXPECT_EQ(evil.status, 421);
  EXPECT_NE(evil.body.find("Host \\\"rebind.attacker.example:"), std::string::npos) << evil.body;
  EXPECT_NE(evil.body.find("listen.allowedHosts"), std::string::npos) << evil.body;
  EXPECT_TRUE(Logged("refused (421)"));
  for (const std::string host : {"127.0.0.1", "127.0.0.1:8089", "localhost:8089", "[::1]:8089",
                                 "FleetWave.example.com", "fleetwave.example.com:443"}) {
    EXPECT_EQ(get(host).status, 200) << host;
  }
}

TEST(HostAllowedTest, Rules) {
  const std::vector<std::string> none;
  EXPECT_TRUE(HostAllowed("", "127.0.0.1", none));  // HTTP/1.0 without Host
  EXPECT_TRUE(HostAllowed("10.1.2.3:8089", "0.0.0.0", none));
  EXPECT_TRUE(HostAllowed("[fe80::1]", "0.0.0.0", none));
  EXPECT_TRUE(HostAllowed("app.localhost", "127.0.0.1", none));
  EXPECT_TRUE(HostAllowed("fleet.internal:8089", "fleet.internal", none));
  EXPECT_TRUE(HostAllowed("fleet.internal.", "fleet.internal", none));
  EXPECT_FALSE(HostAllowed("fleet.internal", "0.0.0.0", none));
  EXPECT_FALSE(HostAllowed("[not-an-address]", "0.0.0.0", none));
  EXPECT_FALSE(HostAllowed("localhost.attacker.example", "127.0.0.1", none));
  EXPECT_TRUE(HostAllowed("anything.example", "0.0.0.0", {"*"}));
}

// Stop() ends every connection, streams with their last chunk, within 2 s.
TEST_F(HttpServerTest, StopEndsEveryConnectionWithinTwoSeconds) {
  Start();
  WatchClient watching(server_->port(), "/watch");
  ASSERT_EQ(watching.status(), 200);
  WatchClient stalled(server_->port(), "/watch", 4096);
  ASSERT_EQ(stalled.status(), 200);
  const int idle = Connect(server_->port());
  const int holder = Connect(server_->port(), "127.0.0.1", 4096);
  ASSERT_TRUE(SendAll(holder, "GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  pollfd p{holder, POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 5000), 1);
  const auto start = Clock::now();
  server_->Stop();
  EXPECT_LT(Clock::now() - start, seconds(2));
  EXPECT_EQ(server_->port(), 0);
  while (watching.NextLine(seconds(5))) {
  }
  EXPECT_TRUE(watching.ended());
  EXPECT_TRUE(watching.clean_end());
  EXPECT_TRUE(ClosedByServer(idle, seconds(1)));
  EXPECT_TRUE(ClosedByServer(holder, seconds(1)));
  ::close(idle);
  ::close(holder);
}

}  // namespace
}  // namespace fleetwave::api
