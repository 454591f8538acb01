// A minimal HTTP/1.1 client over a plain socket for the API server tests: one request per
// connection (the server closes after each response), a receive timeout so a broken server fails
// the test instead of hanging it, and the raw request under the test's control (exact headers,
// Content-Length lies, chunked bodies).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cctype>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace fleetwave::api::testing {

struct HttpResult {
  int status = 0;                              // 0: no parsable response (see error)
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
  std::string error;

  std::string header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? "" : it->second;
  }
};

// Sends `raw` as the whole request to 127.0.0.1:port and reads the response to EOF.
inline HttpResult RawHttp(int port, const std::string& raw) {
  HttpResult out;
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) {
    out.error = "socket failed";
    return out;
  }
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    out.error = "connect failed";
    return out;
  }
  size_t sent = 0;
  while (sent < raw.size()) {
    const ssize_t n = ::send(fd, raw.data() + sent, raw.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  std::string response;
  char buf[16384];
  while (true) {
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    response.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  const size_t end = response.find("\r\n\r\n");
  if (end == std::string::npos ||
      (response.compare(0, 9, "HTTP/1.1 ") != 0 && response.compare(0, 9, "HTTP/1.0 ") != 0)) {
    out.error = "no HTTP response: " + response;
    return out;
  }
  out.status = std::stoi(response.substr(9, 3));
  size_t line = response.find("\r\n") + 2;
  while (line < end) {
    const size_t eol = response.find("\r\n", line);
    const std::string h = response.substr(line, eol - line);
    const size_t colon = h.find(':');
    if (colon != std::string::npos) {
      std::string name = h.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      size_t v = colon + 1;
      while (v < h.size() && h[v] == ' ') ++v;
      out.headers[name] = h.substr(v);
    }
    line = eol + 2;
  }
  out.body = response.substr(end + 4);
  return out;
}

inline HttpResult Http(int port, const std::string& method, const std::string& path,
                       const std::vector<std::pair<std::string, std::string>>& headers = {},
                       const std::string& body = "") {
  std::string raw = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  for (const auto& [name, value] : headers) raw += name + ": " + value + "\r\n";
  if (!body.empty() || method == "POST")
    raw += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  raw += "\r\n" + body;
  return RawHttp(port, raw);
}

}  // namespace fleetwave::api::testing
