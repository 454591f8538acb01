// The command line's HTTP client (http_get.h) holds at most max_body_bytes of a body and
// max_line_bytes of a stream line: a server that sends more stops the transfer with
// NetError::kTooLarge (issue 30). The server is a plain socket on a thread that answers once.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "cluster-clients/http_get.h"

namespace fleetwave::clients {
namespace {

// Answers one connection with `head` and then `body_bytes` of 'x' (no newline), then closes.
class OneShotServer {
 public:
  OneShotServer(std::string head, std::size_t body_bytes) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    ::listen(fd_, 1);
    thread_ = std::thread([this, head = std::move(head), body_bytes] {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char buf[4096];
      [[maybe_unused]] ssize_t got = ::recv(c, buf, sizeof buf, 0);  // the request
      if (::send(c, head.data(), head.size(), MSG_NOSIGNAL) > 0) {
        const std::string chunk(64 << 10, 'x');
        for (std::size_t sent = 0; sent < body_bytes; sent += chunk.size())
          if (::send(c, chunk.data(), chunk.size(), MSG_NOSIGNAL) <= 0) break;  // client quit
      }
      ::close(c);
    });
  }
  ~OneShotServer() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/"; }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
};

TEST(HttpGetBounds, ABodyPastItsBoundStopsTheTransfer) {
  OneShotServer server("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", 8u << 20);
  SimpleRequest req;
  req.url = server.url();
  req.max_body_bytes = 1u << 20;
  const SimpleResponse r = HttpFetch(req);
  EXPECT_EQ(r.error, NetError::kTooLarge);
  EXPECT_EQ(r.error_message, "the response body exceeds 1048576 bytes");
  EXPECT_TRUE(r.body.empty());
}

TEST(HttpGetBounds, AStreamLinePastItsBoundStopsTheStream) {
  OneShotServer server("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", 8u << 20);
  SimpleRequest req;
  req.url = server.url();
  req.max_line_bytes = 1u << 20;
  int lines = 0;
  const SimpleResponse r = HttpStreamLines(req, [&](std::string_view) {
    ++lines;
    return true;
  });
  EXPECT_EQ(r.error, NetError::kTooLarge);
  EXPECT_EQ(r.error_message, "a line of the stream exceeds 1048576 bytes");
  EXPECT_EQ(lines, 0);
}

}  // namespace
}  // namespace fleetwave::clients
