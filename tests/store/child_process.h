// Test helpers for the store: a temporary state directory, and a forked child process that
// does store work and reports each acknowledged write to the parent over a pipe, so a test can
// kill it at a failpoint and then check that nothing acknowledged was lost.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace fleetwave::store::testing {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "fleetwave-store-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data()) != nullptr ? tmpl : "";
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string db() const { return path_ + "/state.db"; }

 private:
  std::string path_;
};

// The child's side: report one line to the parent (e.g. the key of an acknowledged write).
class Reporter {
 public:
  explicit Reporter(int fd) : fd_(fd) {}
  void Line(const std::string& text) const {
    const std::string line = text + "\n";
    [[maybe_unused]] ssize_t n = ::write(fd_, line.data(), line.size());
  }
  // Blocks until the parent calls Child::Release (or dies).
  void WaitForRelease(int release_fd) const {
    char c;
    [[maybe_unused]] ssize_t n = ::read(release_fd, &c, 1);
  }

 private:
  int fd_;
};

// A forked child running `body` with FLEETWAVE_FAILPOINT set to `failpoint` ("" = unset). The
// child never returns into the test: it _exit(0)s after body, or dies at the failpoint.
class Child {
 public:
  Child(const std::string& failpoint, std::function<void(const Reporter&, int release_fd)> body) {
    int report[2], release[2];
    if (::pipe(report) != 0 || ::pipe(release) != 0) {
      ADD_FAILURE() << "pipe failed";
      return;
    }
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(report[0]);
      ::close(release[1]);
      if (failpoint.empty()) {
        ::unsetenv("FLEETWAVE_FAILPOINT");
      } else {
        ::setenv("FLEETWAVE_FAILPOINT", failpoint.c_str(), 1);
      }
      body(Reporter(report[1]), release[0]);
      ::_exit(0);
    }
    ::close(report[1]);
    ::close(release[0]);
    report_fd_ = report[0];
    release_fd_ = release[1];
  }
  ~Child() { Wait(); }

  pid_t pid() const { return pid_; }

  // The next line the child reported, or "" at end of file (the child exited).
  std::string ReadLine() {
    std::string line;
    char c;
    while (::read(report_fd_, &c, 1) == 1) {
      if (c == '\n') return line;
      line += c;
    }
    return line;
  }
  // Every remaining line until the child exits.
  std::vector<std::string> ReadAll() {
    std::vector<std::string> out;
    for (std::string line = ReadLine(); !line.empty(); line = ReadLine()) out.push_back(line);
    return out;
  }
  void Release() {
    if (release_fd_ >= 0) ::close(release_fd_);
    release_fd_ = -1;
  }
  // Waits for the child; returns its exit code (128 + signal if killed by one).
  int Wait() {
    Release();
    if (pid_ > 0 && !waited_) {
      int status = 0;
      ::waitpid(pid_, &status, 0);
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      waited_ = true;
      ::close(report_fd_);
    }
    return exit_code_;
  }

 private:
  pid_t pid_ = 0;
  int report_fd_ = -1;
  int release_fd_ = -1;
  int exit_code_ = -1;
  bool waited_ = false;
};

}  // namespace fleetwave::store::testing
