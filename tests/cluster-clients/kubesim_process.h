// Starts a kubesim for integration tests: TLS, port 0 (or --ports), its kubeconfig in a temp
// directory, and waits for its ready line (never a fixed sleep). The process is killed and
// reaped in the destructor. The binary is $KUBESIM, else the one built next to this test
// (<build>/tools/kubesim/kubesim); when neither exists the tests skip with a reason.
// One thread; not thread-safe.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

extern char** environ;

namespace fleetwave::clients::testing {

inline std::string FindKubesim() {
  if (const char* env = std::getenv("KUBESIM"); env && *env) return env;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  const auto candidate = exe.parent_path().parent_path() / "tools" / "kubesim" / "kubesim";
  return std::filesystem::exists(candidate) ? candidate.string() : "";
}

class KubesimProcess {
 public:
  // Returns false with `error` set when it could not start.
  bool Start(int clusters, std::vector<std::string> extra_args, std::string* error) {
    const std::string binary = FindKubesim();
    if (binary.empty()) {
      *error = "kubesim binary not found (set KUBESIM or build tools/kubesim)";
      return false;
    }
    dir_ = std::filesystem::temp_directory_path() /
           ("fw-kubesim-" + std::to_string(::getpid()) + "-" + std::to_string(++counter_));
    std::filesystem::create_directories(dir_);
    kubeconfig_ = (dir_ / "kubeconfig").string();
    std::vector<std::string> args = {
        binary,        "--clusters", std::to_string(clusters), "--listen",
        "127.0.0.1:0", "--tls",      "--kubeconfig-out",       kubeconfig_};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) {
      *error = "pipe failed";
      return false;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    const int rc = ::posix_spawn(&pid_, binary.c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(out[1]);
    if (rc != 0) {
      ::close(out[0]);
      *error = "cannot start kubesim";
      pid_ = 0;
      return false;
    }
    out_fd_ = out[0];
    // Wait for "kubesim ready: https://127.0.0.1:PORT ..." with a deadline.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    std::string text;
    while (text.find('\n') == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                            deadline - std::chrono::steady_clock::now())
                            .count();
      if (left <= 0) {
        *error = "kubesim did not print its ready line within 60 s";
        return false;
      }
      pollfd p{out_fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
      char buf[512];
      const ssize_t n = ::read(out_fd_, buf, sizeof buf);
      if (n <= 0) {
        *error = "kubesim exited before it was ready";
        return false;
      }
      text.append(buf, static_cast<size_t>(n));
    }
    const auto pos = text.find("kubesim ready: ");
    if (pos == std::string::npos) {
      *error = "unexpected first line from kubesim: " + text;
      return false;
    }
    const auto url_end = text.find(' ', pos + 15);
    base_url_ = text.substr(pos + 15, url_end - pos - 15);
    return true;
  }

  ~KubesimProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
    if (out_fd_ >= 0) ::close(out_fd_);
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  const std::string& kubeconfig() const { return kubeconfig_; }
  const std::string& base_url() const { return base_url_; }  // https://127.0.0.1:PORT
  const std::filesystem::path& dir() const { return dir_; }
  pid_t pid() const { return pid_; }

 private:
  static inline int counter_ = 0;
  pid_t pid_ = 0;
  int out_fd_ = -1;
  std::filesystem::path dir_;
  std::string kubeconfig_;
  std::string base_url_;
};

}  // namespace fleetwave::clients::testing
