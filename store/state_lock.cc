#include "store/state_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace fleetwave::store {

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
