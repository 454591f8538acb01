#include "store/state_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

namespace fleetwave::store {

namespace {

namespace fs = std::filesystem;

// The pid holding an flock on the file `fd` refers to, from /proc/locks ("" if not found).
std::string FlockHolder(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return "";
  char id[64];
  std::snprintf(id, sizeof id, "%02x:%02x:%llu", major(st.st_dev), minor(st.st_dev),
                static_cast<unsigned long long>(st.st_ino));
  std::ifstream locks("/proc/locks");
  std::string line;
  while (std::getline(locks, line)) {
    // "1: FLOCK  ADVISORY  WRITE 11925 fe:00:10953153 0 EOF"
    char kind[16] = {}, mode[16] = {}, access[16] = {}, dev[64] = {};
    long pid = 0;
    if (std::sscanf(line.c_str(), "%*d: %15s %15s %15s %ld %63s", kind, mode, access, &pid, dev) ==
            5 &&
        std::string(kind) == "FLOCK" && std::string(dev) == id) {
      return std::to_string(pid);
    }
  }
  return "";
}

}  // namespace

std::string ResolveDatabasePath(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  if (ec) return path;
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(p, ec)); ++hops) {
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) break;
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  const fs::path resolved = fs::weakly_canonical(p, ec);
  return (ec ? p.lexically_normal() : resolved).string();
}

StateLock::~StateLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

StateLock::Acquired StateLock::Acquire(const std::string& dir) {
  Acquired out;
  const std::string path = dir + "/lock";
  // O_CLOEXEC: a child process (exec credential plugins) must not inherit the lock.
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    out.status = {Code::kIo, "cannot open " + path + ": " + std::strerror(errno)};
    return out;
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    std::string pid;
    if (err == EWOULDBLOCK) {
      char buf[32] = {};
      const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
      for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i) pid += buf[i];
    }
    ::close(fd);
    if (err == EWOULDBLOCK) {
      // The holder writes its pid right after locking; a racing reader may see it empty.
      out.status = {Code::kLocked, "another fleetwave holds " + path + " (pid " +
                                       (pid.empty() ? std::string("unknown") : pid) + ")"};
    } else {
      out.status = {Code::kIo, "cannot lock " + path + ": " + std::strerror(err)};
    }
    return out;
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    const int err = errno;
    ::close(fd);
    out.status = {Code::kIo, "cannot write " + path + ": " + std::strerror(err)};
    return out;
  }
  out.lock.reset(new StateLock(fd, path));
  return out;
}

}  // namespace fleetwave::store

namespace fleetwave::store {

StateLock::Acquired StateLock::AcquireDatabase(const std::string& configured,
                                               const std::string& resolved) {
  Acquired out;
  const std::string named =
      resolved == configured ? resolved : resolved + " (configured as " + configured + ")";
  const int fd = ::open(resolved.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    out.status = {Code::kIo,
                  "cannot open the state database " + named + ": " + std::strerror(errno)};
    return out;
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    const std::string pid = err == EWOULDBLOCK ? FlockHolder(fd) : "";
    ::close(fd);
    if (err == EWOULDBLOCK) {
      out.status = {Code::kLocked, "another fleetwave (pid " +
                                       (pid.empty() ? std::string("unknown") : pid) +
                                       ") holds the state database " + named};
    } else {
      out.status = {Code::kIo,
                    "cannot lock the state database " + named + ": " + std::strerror(err)};
    }
    return out;
  }
  out.lock.reset(new StateLock(fd, resolved));
  return out;
}

}  // namespace fleetwave::store
