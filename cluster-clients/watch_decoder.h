// Decodes a Kubernetes watch stream: newline-delimited JSON events that arrive split at
// arbitrary chunk boundaries (one event over several chunks, several events in one chunk).
// Keeps the unfinished tail between chunks. Not thread-safe: one per watch stream.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cluster-clients/result.h"

namespace fleetwave::clients {

struct WatchEvent {
  std::string type;  // ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
  Json object;       // the object, or a Status for ERROR
};

class WatchDecoder {
 public:
  // Appends a chunk and returns the events it completed. A line that is not a watch event
  // becomes an ERROR event with a Status (reason "InvalidWatchEvent") so the caller restarts.
  std::vector<WatchEvent> Feed(std::string_view chunk);
  // Bytes buffered waiting for a newline.
  std::size_t pending() const { return buffer_.size(); }

 private:
  std::string buffer_;
};

}  // namespace fleetwave::clients
