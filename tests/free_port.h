// Test helper: a loopback TCP port nobody listens on now, for a child process (etcd, nghttpx,
// a test server) to bind next.
//
// Picked outside the kernel's ephemeral range (32768-60999 by default). A port from that range
// - the kernel's pick for port 0 - can become the local port of any outgoing connection of a
// test running beside this one before the child binds it; the child then fails to start, and
// a cluster of three that looked ready with two members loses its quorum at the first kill.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>

namespace fleetwave::test_ports {

inline int FreePort() {
  // Per process and per call, so two tests picking at once rarely try the same ports.
  static unsigned seed = static_cast<unsigned>(::getpid()) * 2654435761u;
  for (int attempt = 0; attempt < 200; ++attempt) {
    seed = seed * 1103515245u + 12345u;
    const int port = 20000 + static_cast<int>((seed >> 8) % 12000);
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port));
    const bool free = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
    ::close(fd);
    if (free) return port;
  }
  return 0;
}

}  // namespace fleetwave::test_ports
