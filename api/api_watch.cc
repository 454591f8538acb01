#include "api/api_watch.h"

#include <vector>

namespace fleetwave::api {
namespace {

const std::string& BookmarkLine() {
  static const std::string line =
      "{\"type\":\"BOOKMARK\",\"object\":{\"initialEventsEnd\":true}}\n";
  return line;
}

}  // namespace

const char* WatchEndName(WatchEnd end) {
  switch (end) {
    case WatchEnd::kCancelled:
      return "server stopping";
    case WatchEnd::kBehind:
      return "reader too slow, dropped";
    case WatchEnd::kWriteFailed:
      return "client gone";
    case WatchEnd::kUnknown:
      return "unknown collection";
  }
  return "ended";
}

std::string WatchLine(const char* type, const engine::Json& object) {
  // Text that is not UTF-8 (a file error may quote such bytes) becomes U+FFFD, never a throw.
  std::string line = "{\"type\":\"";
  line += type;
  line += "\",\"object\":";
  line += object.dump(-1, ' ', false, engine::Json::error_handler_t::replace);
  line += "}\n";
  return line;
}

WatchEnd StreamWatch(const actors::StatusBoard& board, const std::string& collection,
                     const WatchOptions& options, const std::atomic<bool>& cancelled,
                     const std::function<bool(std::string_view)>& write) {
  uint64_t cursor = 0;
  std::optional<std::vector<actors::StatusBoard::JsonPtr>> items =
      board.Snapshot(collection, &cursor);
  if (!items) return WatchEnd::kUnknown;

  // Serialising happens here, on the watcher's own thread, never under the board's lock.
  std::string batch;
  auto flush = [&]() {
    if (batch.empty()) return true;
    const bool ok = write(batch);
    batch.clear();
    return ok;
  };
  auto add = [&](const std::string& line) {
    batch += line;
    return batch.size() < options.batch_bytes || flush();
  };
  for (const auto& item : *items) {
    if (item && !add(WatchLine("ADDED", *item))) return WatchEnd::kWriteFailed;
  }
  items.reset();
  if (!add(BookmarkLine()) || !flush()) return WatchEnd::kWriteFailed;

  std::vector<actors::Change> changes;
  while (true) {
    const auto deadline = std::chrono::steady_clock::now() + options.keepalive;
    switch (board.feed().Next(collection, &cursor, deadline, cancelled, &changes)) {
      case actors::ChangeFeed::Read::kCancelled:
        return WatchEnd::kCancelled;
      case actors::ChangeFeed::Read::kBehind:
        return WatchEnd::kBehind;
      case actors::ChangeFeed::Read::kTimedOut:
        // The keepalive: a proxy or browser sees the connection is alive, and a dead client is
        // found by the failing write within one interval.
        if (!write(BookmarkLine())) return WatchEnd::kWriteFailed;
        break;
      case actors::ChangeFeed::Read::kChanges:
        for (const actors::Change& c : changes) {
          if (c.object && !add(WatchLine(actors::ChangeTypeName(c.type), *c.object))) {
            return WatchEnd::kWriteFailed;
          }
        }
        changes.clear();
        if (!flush()) return WatchEnd::kWriteFailed;
        break;
    }
  }
}

}  // namespace fleetwave::api
