// Test helpers: a temporary directory, and a real git repository in it driven by the `git`
// command line (the same tool users commit with), so GitSource is tested against
// repositories it did not create itself.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace fleetwave::sources::testing {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "fleetwave-sources-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data()) != nullptr ? tmpl : "";
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline void WriteFile(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// Runs a shell command; returns its stdout without the trailing newline. Fails the test on a
// non-zero exit.
inline std::string Run(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "popen failed: " << command;
    return out;
  }
  char buf[512];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int status = ::pclose(pipe);
  EXPECT_EQ(status, 0) << command << "\n" << out;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

class GitRepo {
 public:
  explicit GitRepo(std::string dir) : dir_(std::move(dir)) { Git("init -q -b main"); }
  const std::string& dir() const { return dir_; }

  void Write(const std::string& rel, const std::string& text) {
    WriteFile(fs::path(dir_) / rel, text);
  }
  void Remove(const std::string& rel) { fs::remove(fs::path(dir_) / rel); }

  // Commits everything in the work tree; returns the new commit's full SHA.
  std::string Commit(const std::string& message) {
    Git("add -A");
    Git("commit -q --allow-empty -m '" + message + "'");
    return Git("rev-parse HEAD");
  }

  std::string Git(const std::string& args) {
    // Fixed identity and no user/system config, so the test does not depend on the host.
    return Run("GIT_CONFIG_NOSYSTEM=1 HOME=" + dir_ + " git -C '" + dir_ +
               "' -c user.name=test -c user.email=test@example.com -c commit.gpgsign=false " +
               args);
  }

 private:
  std::string dir_;
};

}  // namespace fleetwave::sources::testing
