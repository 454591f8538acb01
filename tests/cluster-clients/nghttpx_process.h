// Starts nghttpx (Debian's nghttp2-proxy) as an HTTP/2 TLS reverse proxy in front of one
// kubesim, so the client's HTTP/2 path can be tested against a real HTTP/2 server: the
// frontend offers h2 by ALPN on a free port with a self-signed certificate for 127.0.0.1
// (made with the openssl CLI), the backend is kubesim over HTTP/1.1 + TLS (not verified).
// `Kill()` and `Restart()` simulate a broken connection: the restart reuses the port. Waits
// for readiness by connecting with a deadline (never a fixed sleep). The binary is
// $NGHTTPX, else nghttpx on PATH or /usr/sbin; when absent the tests fail with a reason.
// One thread; not thread-safe.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/free_port.h"

extern char** environ;

namespace fleetwave::clients::testing {

inline std::string FindNghttpx() {
  if (const char* env = std::getenv("NGHTTPX"); env && *env) return env;
  for (const char* p : {"/usr/sbin/nghttpx", "/usr/bin/nghttpx", "/usr/local/bin/nghttpx"})
    if (std::filesystem::exists(p)) return p;
  return "";
}

// Runs a program to completion; returns its exit status (-1 if it could not start).
inline int RunToCompletion(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  const int rc = ::posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

using test_ports::FreePort;

inline bool CanConnect(int port) {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(s);
  return ok;
}

class NghttpxProcess {
 public:
  // `backend_port`: kubesim's TLS port. Returns false with `error` set when it cannot start.
  bool Start(int backend_port, std::string* error) {
    binary_ = FindNghttpx();
    if (binary_.empty()) {
      *error = "nghttpx not found (apt-get install nghttp2-proxy, or set NGHTTPX)";
      return false;
    }
    dir_ = std::filesystem::temp_directory_path() /
           ("fw-nghttpx-" + std::to_string(::getpid()) + "-" + std::to_string(++counter_));
    std::filesystem::create_directories(dir_);
    key_ = (dir_ / "key.pem").string();
    cert_ = (dir_ / "cert.pem").string();
    if (RunToCompletion({"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                         "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj",
                         "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key_,
                         "-out", cert_}) != 0) {
      *error = "openssl could not make a test certificate";
      return false;
    }
    backend_port_ = backend_port;
    port_ = FreePort();
    return Launch(error);
  }

  // SIGKILL: the kernel closes every connection, as when a proxy or API server crashes.
  void Kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = 0;
  }

  // Starts again on the same port.
  bool Restart(std::string* error) {
    Kill();
    return Launch(error);
  }

  ~NghttpxProcess() {
    Kill();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  int port() const { return port_; }
  std::string base_url() const { return "https://127.0.0.1:" + std::to_string(port_); }
  // The frontend's certificate, to trust as the cluster's CA.
  std::string ca_pem() const {
    std::ifstream f(cert_);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  pid_t pid() const { return pid_; }
  // The access log so far, a line per finished request: "<r|.> METHOD PATH".
  std::vector<std::string> AccessLog() const {
    std::ifstream f(dir_ / "access.log");
    std::vector<std::string> lines;
    for (std::string line; std::getline(f, line);) lines.push_back(line);
    return lines;
  }

 private:
  bool Launch(std::string* error) {
    std::vector<std::string> args = {
        binary_, "--conf=/dev/null", "--frontend=127.0.0.1," + std::to_string(port_),
        "--backend=127.0.0.1," + std::to_string(backend_port_) + ";;tls", "--insecure", "--no-ocsp",
        "--workers=1", "--log-level=ERROR", "--errorlog-file=" + (dir_ / "error.log").string(),
        // Watches idle for minutes: no read timeout on the backend's streams.
        "--backend-read-timeout=1h",
        // Per request: "r" when its connection resumed a TLS session, "." after a full one.
        "--accesslog-file=" + (dir_ / "access.log").string(),
        "--accesslog-format=$ssl_session_reused $method $path", key_, cert_};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (::posix_spawn(&pid_, binary_.c_str(), nullptr, nullptr, argv.data(), environ) != 0) {
      pid_ = 0;
      *error = "cannot start nghttpx";
      return false;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!CanConnect(port_)) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = 0;
        *error = "nghttpx exited before it listened; see " + (dir_ / "error.log").string();
        return false;
      }
      if (std::chrono::steady_clock::now() > deadline) {
        *error = "nghttpx did not listen within 20 s";
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));  // polling interval
    }
    return true;
  }

  static inline int counter_ = 0;
  std::string binary_;
  pid_t pid_ = 0;
  int port_ = -1;
  int backend_port_ = -1;
  std::filesystem::path dir_;
  std::string key_, cert_;
};

}  // namespace fleetwave::clients::testing
