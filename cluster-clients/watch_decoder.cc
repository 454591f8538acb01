#include "cluster-clients/watch_decoder.h"

namespace fleetwave::clients {

std::vector<WatchEvent> WatchDecoder::Feed(std::string_view chunk) {
  std::vector<WatchEvent> events;
  buffer_.append(chunk);
  std::size_t start = 0;
  for (;;) {
    const std::size_t nl = buffer_.find('\n', start);
    if (nl == std::string::npos) break;
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
  return events;
}

}  // namespace fleetwave::clients
