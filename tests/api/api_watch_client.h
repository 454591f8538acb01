// A streaming HTTP/1.1 client for the API's ?watch=1 tests: sends one GET, then hands out the
// chunked body's lines as they arrive, each read bounded by a deadline (a broken server fails
// the test instead of hanging it). It can also stop reading on purpose (a slow reader), with a
// small receive buffer so the server's writes back up quickly.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <optional>
#include <string>

namespace fleetwave::api::testing {

class WatchClient {
 public:
  using Clock = std::chrono::steady_clock;

  // `rcvbuf` > 0 sets SO_RCVBUF before connecting (turning off the kernel's autotuning).
  WatchClient(int port, const std::string& path, int rcvbuf = 0) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return;
    if (rcvbuf > 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      ::close(fd_);
      fd_ = -1;
      return;
    }
    const std::string request =
        "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    ::send(fd_, request.data(), request.size(), MSG_NOSIGNAL);
  }
  ~WatchClient() { Close(); }
  WatchClient(const WatchClient&) = delete;
  WatchClient& operator=(const WatchClient&) = delete;

  bool connected() const { return fd_ >= 0; }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  // The response head (status line and headers), once it has arrived; "" before the deadline
  // passes without it.
  std::string Head(std::chrono::milliseconds within = std::chrono::seconds(10)) {
    const auto deadline = Clock::now() + within;
    while (!head_done_ && Pump(deadline)) {
    }
    return head_;
  }
  int status() { return Head().size() > 12 ? std::stoi(head_.substr(9, 3)) : 0; }
  // A header's value (name lower-case), "" when absent.
  std::string header(const std::string& lower_name) {
    const std::string head = Head();
    size_t line = head.find("\r\n");
    while (line != std::string::npos && line + 2 < head.size()) {
      const size_t eol = head.find("\r\n", line + 2);
      const std::string h = head.substr(line + 2, eol - line - 2);
      const size_t colon = h.find(':');
      std::string name = h.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (colon != std::string::npos && name == lower_name) {
        size_t v = colon + 1;
        while (v < h.size() && h[v] == ' ') ++v;
        return h.substr(v);
      }
      line = eol;
    }
    return "";
  }

  // The next line of the body without its newline; nullopt at the end of the stream or when the
  // deadline passes first (ended() tells which).
  std::optional<std::string> NextLine(std::chrono::milliseconds within = std::chrono::seconds(10)) {
    const auto deadline = Clock::now() + within;
    while (true) {
      const size_t nl = body_.find('\n');
      if (nl != std::string::npos) {
        std::string line = body_.substr(0, nl);
        body_.erase(0, nl + 1);
        return line;
      }
      if (ended_ || !Pump(deadline)) return std::nullopt;
    }
  }

  // True once the server closed the connection; `clean` whether the last chunk came first.
  bool ended() const { return ended_; }
  bool clean_end() const { return last_chunk_; }

 private:
  // Reads once (waiting until the deadline); false when nothing more can come by then.
  bool Pump(Clock::time_point deadline) {
    if (fd_ < 0 || ended_) return false;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) <= 0) return false;
    char buf[65536];
    const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
    if (n <= 0) {
      ended_ = true;
      return false;
    }
    raw_.append(buf, static_cast<size_t>(n));
    Decode();
    return true;
  }

  void Decode() {
    if (!head_done_) {
      const size_t end = raw_.find("\r\n\r\n");
      if (end == std::string::npos) return;
      head_ = raw_.substr(0, end + 2);
      raw_.erase(0, end + 4);
      head_done_ = true;
      std::string lower = head_;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      chunked_ = lower.find("transfer-encoding: chunked") != std::string::npos;
    }
    if (!chunked_) {
      body_ += raw_;
      raw_.clear();
      return;
    }
    while (!last_chunk_) {
      const size_t eol = raw_.find("\r\n");
      if (eol == std::string::npos) return;
      const size_t size = std::stoul(raw_.substr(0, eol), nullptr, 16);
      if (raw_.size() < eol + 2 + size + 2) return;
      body_ += raw_.substr(eol + 2, size);
      raw_.erase(0, eol + 2 + size + 2);
      if (size == 0) last_chunk_ = true;
    }
  }

  int fd_ = -1;
  std::string raw_;
  std::string head_;
  std::string body_;
  bool head_done_ = false;
  bool chunked_ = false;
  bool last_chunk_ = false;
  bool ended_ = false;
};

}  // namespace fleetwave::api::testing
