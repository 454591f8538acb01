#include "tools/fleetwave/input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>

namespace fleetwave::cli {
namespace {

std::string OverLimit(const std::string& name, const std::string& size, std::size_t max) {
  return name + ": " + size + " bytes, over limits.maxFileBytes (" + std::to_string(max) +
         "); refused (raise limits.maxFileBytes in fleetwave.yaml if the file is meant to be "
         "this large)";
}

// Reads at most max + 1 bytes from `fd` (the one byte more tells a file that grew past the
// limit after fstat).
std::optional<std::string> ReadBounded(int fd, const std::string& name, std::size_t max,
                                       std::string* error) {
  std::string text;
  char buffer[65536];
  for (;;) {
    const std::size_t want = std::min(sizeof buffer, max + 1 - text.size());
    const ssize_t n = read(fd, buffer, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = name + ": " + std::strerror(errno);
      return std::nullopt;
    }
    if (n == 0) return text;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > max) {
      *error = OverLimit(name, "more than " + std::to_string(max), max);
      return std::nullopt;
    }
  }
}

}  // namespace

std::string InputName(const std::string& path) { return path == "-" ? "<stdin>" : path; }

std::optional<std::string> ReadInput(const std::string& path, std::string* error,
                                     const ReadOptions& options) {
  const std::string name = options.name.empty() ? InputName(path) : options.name;
  if (path == "-") {
    // Through std::cin (tests and callers may have replaced its buffer), bounded the same way.
    std::string text;
    char buffer[65536];
    while (std::cin.read(buffer, sizeof buffer) || std::cin.gcount() > 0) {
      text.append(buffer, static_cast<std::size_t>(std::cin.gcount()));
      if (text.size() > options.max_bytes) {
        *error =
            OverLimit(name, "more than " + std::to_string(options.max_bytes), options.max_bytes);
        return std::nullopt;
      }
    }
    std::cin.clear();
    return text;
  }
  int flags = O_RDONLY | O_CLOEXEC;
  // Non-blocking so that a fifo put in place after the directory was listed fails fstat's
  // check below instead of blocking the open.
  if (options.regular_only) flags |= O_NOFOLLOW | O_NONBLOCK;
  const int fd = open(path.c_str(), flags);
  if (fd < 0) {
    *error = name + ": " +
             (errno == ELOOP && options.regular_only ? std::string("a symlink; refused")
                                                     : std::string(std::strerror(errno)));
    return std::nullopt;
  }
  struct stat st {};
  std::optional<std::string> text;
  if (fstat(fd, &st) != 0) {
    *error = name + ": " + std::strerror(errno);
  } else if (options.regular_only && !S_ISREG(st.st_mode)) {
    *error = name + ": not a regular file; ignored";
  } else if (S_ISREG(st.st_mode) && static_cast<unsigned long long>(st.st_size) >
                                        static_cast<unsigned long long>(options.max_bytes)) {
    *error = OverLimit(name, std::to_string(st.st_size), options.max_bytes);
  } else {
    if (options.regular_only) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    text = ReadBounded(fd, name, options.max_bytes, error);
  }
  close(fd);
  return text;
}

engine::LoadedDocuments ReadDocuments(const std::string& path, const ReadOptions& options) {
  std::string error;
  std::optional<std::string> text = ReadInput(path, &error, options);
  if (!text) {
    engine::LoadedDocuments failed;
    failed.issues.push_back({"", {}, "", error});
    return failed;
  }
  return engine::LoadYamlDocuments(*text, options.name.empty() ? InputName(path) : options.name,
                                   options.limits);
}

}  // namespace fleetwave::cli
