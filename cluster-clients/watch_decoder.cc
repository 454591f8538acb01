#include "cluster-clients/watch_decoder.h"

namespace fleetwave::clients {

void WatchDecoder::Overflow() {
  overflowed_ = true;
  std::string().swap(buffer_);  // give the memory back, not just the size
}

namespace {

// What a decoder's tail buffer may keep once its line is decoded. A watch is idle most of its
// life, and one large event split over reads must not pin its size for the watch's lifetime:
// the buffers so kept were 7.8 MB of the daemon's heap at N=500 (1.6 KB per app, 8b67c0b).
constexpr std::size_t kRetainedTailBytes = 1024;

// One complete line (without its newline) as an event; a blank line is none.
void AppendEvent(std::string_view line, std::vector<WatchEvent>& events) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
  if (line.empty()) return;
  Json doc = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (doc.is_object() && doc["type"].is_string() && doc.contains("object")) {
    events.push_back({doc["type"].get<std::string>(), std::move(doc["object"])});
  } else {
    events.push_back({"ERROR",
                      {{"kind", "Status"},
                       {"status", "Failure"},
                       {"reason", "InvalidWatchEvent"},
                       {"message", "undecodable watch event"},
                       {"code", 500}}});
  }
}

}  // namespace

std::vector<WatchEvent> WatchDecoder::Feed(std::string_view chunk) {
  std::vector<WatchEvent> events;
  if (overflowed_) return events;
  // The tail so far plus this chunk, up to its first newline, is one line: refuse it before
  // copying when it is already too long.
  const std::size_t first_nl = chunk.find('\n');
  const std::size_t head = first_nl == std::string_view::npos ? chunk.size() : first_nl;
  if (buffer_.size() + head > max_event_bytes_) {
    Overflow();
    return events;
  }
  if (!buffer_.empty()) {
    if (first_nl == std::string_view::npos) {
      buffer_.append(chunk);
      return events;
    }
    buffer_.append(chunk.substr(0, first_nl));
    AppendEvent(buffer_, events);
    buffer_.clear();
    if (buffer_.capacity() > kRetainedTailBytes) std::string().swap(buffer_);
    chunk.remove_prefix(first_nl + 1);
  }
  // The chunk's complete lines are decoded where they are, without a copy.
  std::size_t start = 0;
  for (;;) {
    const std::size_t nl = chunk.find('\n', start);
    if (nl == std::string_view::npos) break;
    if (nl - start > max_event_bytes_) {
      Overflow();
      return events;
    }
    AppendEvent(chunk.substr(start, nl - start), events);
    start = nl + 1;
  }
  const std::string_view tail = chunk.substr(start);
  if (tail.size() > max_event_bytes_) {
    Overflow();
    return events;
  }
  buffer_.assign(tail);
  return events;
}

}  // namespace fleetwave::clients
