// Issue 30's reproductions against the API server with its default options, as the daemon runs
// it: a slowloris of 200 connections from one address (127.0.0.2) while another address probes
// /healthz; 20 watch readers that never read; a Host that names another site (DNS rebinding).
// With civetweb the probes were answered 0 of 5, the 17th watch was 503 and any Host was served.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/api/api_test_fixture.h"
#include "tests/api/api_watch_client.h"

namespace fleetwave::api::testing {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

class ApiHostileClientsTest : public ApiServerFixture {};

int ConnectFrom(int port, const char* source) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
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

TEST_F(ApiHostileClientsTest, SlowlorisOf200DelaysNoProbeByASecond) {
  Start();
  std::vector<int> slow;
  for (int i = 0; i < 200; ++i) {
    const int fd = ConnectFrom(server_->port(), "127.0.0.2");
    ASSERT_GE(fd, 0);
    slow.push_back(fd);
  }
  std::atomic<bool> done{false};
  std::thread dribble([&] {
    const std::string head = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
    size_t at = 0;
    while (!done) {
      for (int fd : slow) ::send(fd, head.data() + (at % head.size()), 1, MSG_NOSIGNAL);
      ++at;
      std::this_thread::sleep_for(milliseconds(300));  // the attack's pace
    }
  });
  int answered = 0;
  for (int i = 0; i < 5; ++i) {
    const auto start = Clock::now();
    const HttpResult r = Get("/healthz");
    const bool in_time = Clock::now() - start < milliseconds(1000);
    EXPECT_EQ(r.status, 200) << "probe " << i << ": " << r.error;
    EXPECT_TRUE(in_time) << "probe " << i;
    answered += r.status == 200 && in_time ? 1 : 0;
  }
  EXPECT_EQ(answered, 5);
  done = true;
  dribble.join();
  for (int fd : slow) ::close(fd);
}

TEST_F(ApiHostileClientsTest, IdleWatchReadersLeaveSlotsForOthers) {
  Start();
  std::vector<std::unique_ptr<WatchClient>> idle;
  for (int i = 0; i < 20; ++i) {
    idle.push_back(
        std::make_unique<WatchClient>(server_->port(), "/api/v1/applications?watch=1", 4096));
  }
  for (auto& w : idle) EXPECT_EQ(w->status(), 200);
  WatchClient fresh(server_->port(), "/api/v1/applications?watch=1");
  EXPECT_EQ(fresh.status(), 200);
  EXPECT_EQ(Get("/").status, 200);  // the web view
}

TEST_F(ApiHostileClientsTest, ForeignHostIsRefused) {
  Start();
  const HttpResult r = RawHttp(server_->port(),
                               "GET /api/v1/applicationsets HTTP/1.1\r\nHost: evil.example\r\n"
                               "Connection: close\r\n\r\n");
  EXPECT_EQ(r.status, 421) << r.error;
  EXPECT_EQ(r.body.find("guestbook"), std::string::npos) << r.body;
}

TEST_F(ApiHostileClientsTest, Http10IsAnsweredAsHttp10WithoutChunking) {
  Start();
  const int fd = ConnectFrom(server_->port(), "127.0.0.1");
  const std::string request = "GET /healthz HTTP/1.0\r\n\r\n";
  ASSERT_EQ(::send(fd, request.data(), request.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(request.size()));
  std::string got;
  char buf[4096];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) got.append(buf, static_cast<size_t>(n));
  ::close(fd);
  EXPECT_EQ(got.rfind("HTTP/1.0 200", 0), 0u) << got;
  EXPECT_EQ(got.find("chunked"), std::string::npos) << got;
}

}  // namespace
}  // namespace fleetwave::api::testing
