// Minimal loopback HTTP for the metrics tests: a GET over a plain socket (no client library in
// this layer) and a free port to give a child process.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "tests/free_port.h"

namespace fleetwave::metrics::testing {

struct HttpResponse {
  int status = 0;  // 0: no connection or no parseable status line
  std::string body;
};

// GET http://127.0.0.1:port/path with HTTP/1.0 (the server closes after the response).
inline HttpResponse HttpGet(int port, const std::string& path) {
  HttpResponse out;
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return out;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string raw;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::string req = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (write(fd, req.data(), req.size()) == static_cast<ssize_t>(req.size())) {
      char buf[8192];
      ssize_t n;
      while ((n = read(fd, buf, sizeof buf)) > 0) raw.append(buf, static_cast<size_t>(n));
    }
  }
  close(fd);
  // "HTTP/1.x 200 OK\r\n...\r\n\r\nbody"
  if (raw.rfind("HTTP/1.", 0) == 0 && raw.size() > 12) out.status = std::atoi(raw.c_str() + 9);
  const auto split = raw.find("\r\n\r\n");
  if (split != std::string::npos) out.body = raw.substr(split + 4);
  return out;
}

using test_ports::FreePort;

}  // namespace fleetwave::metrics::testing
