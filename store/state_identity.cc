#include "store/state_identity.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace fleetwave::store {
namespace {

namespace fs = std::filesystem;

// The identity is a short token: anything else in the file is not one.
bool IsIdentity(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

Status WriteAll(int fd, const std::string& text, const std::string& path) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return {Code::kIo, "cannot write " + path + ": " + std::strerror(errno)};
    done += static_cast<size_t>(n);
  }
  return {};
}

}  // namespace

std::string MarkerPath(const std::string& db_path) {
  fs::path dir = fs::path(db_path).parent_path();
  if (dir.empty()) dir = ".";
  return (dir / "state-id").string();
}

Marker ReadMarker(const std::string& path) {
  Marker out;
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return out;
  out.exists = true;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    out.status = {Code::kIo, "cannot read " + path + ": " + std::strerror(errno)};
    return out;
  }
  std::string text;
  std::getline(in, text, '\0');
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r')) {
    text.pop_back();
  }
  if (IsIdentity(text)) out.identity = text;
  return out;
}

Status WriteMarker(const std::string& path, const std::string& identity) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return {Code::kIo, "cannot create " + tmp + ": " + std::strerror(errno)};
  Status written = WriteAll(fd, identity + "\n", tmp);
  if (written.ok() && ::fsync(fd) != 0) {
    written = {Code::kIo, "cannot sync " + tmp + ": " + std::strerror(errno)};
  }
  ::close(fd);
  if (!written.ok()) return written;
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    return {Code::kIo, "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno)};
  }
  // The rename is durable once the directory is synced.
  std::string dir = fs::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return {};
}

std::string NewIdentity() {
  std::random_device rd;  // /dev/urandom on Linux
  std::ostringstream out;
  for (int i = 0; i < 4; ++i) {
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(rd()));
    out << buf;
  }
  return out.str();
}

IdentityDecision DecideIdentity(const std::string& db_path, const std::string& marker_path,
                                const Marker& marker, const std::optional<std::string>& db_identity,
                                const std::string& db_state, bool accept_empty_state) {
  IdentityDecision d;
  using Action = IdentityDecision::Action;
  if (!marker.exists) {
    if (db_identity) {
      d.action = Action::kWriteMarker;
      d.note = marker_path + " was missing; rewritten from " + db_path + " (identity " +
               *db_identity + ")";
    } else {
      d.action = Action::kCreate;
    }
    return d;
  }
  if (!marker.identity.empty() && db_identity && *db_identity == marker.identity) return d;
  const std::string marker_state = marker.identity.empty()
                                       ? std::string("holds no identity")
                                       : "says this state directory had the database with "
                                         "identity " +
                                             marker.identity;
  if (accept_empty_state) {
    d.action = Action::kCreate;
    d.note = "--accept-empty-state: " + db_path + " " + db_state + " and " + marker_path + " " +
             marker_state + "; starting with this database as the state (a new identity)";
    return d;
  }
  d.action = Action::kRefuse;
  d.status = {Code::kIdentity,
              db_path + " " + db_state + ", but " + marker_path + " " + marker_state +
                  ": the state database vanished, was emptied or was replaced, and starting "
                  "fresh would forget pauses, skips, pinned revisions and pending deletions. "
                  "Nothing was started. Restore the database from a backup, or start once with "
                  "`fleetwave run --accept-empty-state` to accept it as it is (docs/guide.md, "
                  "\"The state database is corrupt or was emptied\")"};
  return d;
}

}  // namespace fleetwave::store
