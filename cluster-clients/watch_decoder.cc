#include "cluster-clients/watch_decoder.h"

namespace fleetwave::clients {

void WatchDecoder::Overflow() {
  overflowed_ = true;
  std::string().swap(buffer_);  // give the memory back, not just the size
}

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
  buffer_.append(chunk);
  std::size_t start = 0;
  for (;;) {
    const std::size_t nl = buffer_.find('\n', start);
    if (nl == std::string::npos) break;
    if (nl - start > max_event_bytes_) {
      Overflow();
      return events;
    }
    std::string_view line(buffer_.data() + start, nl - start);
    start = nl + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.empty()) continue;
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
  buffer_.erase(0, start);
  if (buffer_.size() > max_event_bytes_) Overflow();
  return events;
}

}  // namespace fleetwave::clients
