// Decodes a Kubernetes watch stream: newline-delimited JSON events that arrive split at
// arbitrary chunk boundaries (one event over several chunks, several events in one chunk).
// Keeps the unfinished tail between chunks, at most `max_event_bytes` of it: a hostile server
// streaming a line without end (issue 30) overflows the decoder, which then drops what it
// holds and decodes nothing more. Not thread-safe: one per watch stream.
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
  static constexpr std::size_t kDefaultMaxEventBytes = 16u << 20;
  explicit WatchDecoder(std::size_t max_event_bytes = kDefaultMaxEventBytes)
      : max_event_bytes_(max_event_bytes) {}

  // Appends a chunk and returns the events it completed. A line that is not a watch event
  // becomes an ERROR event with a Status (reason "InvalidWatchEvent") so the caller restarts.
  std::vector<WatchEvent> Feed(std::string_view chunk);
  // Bytes buffered waiting for a newline.
  std::size_t pending() const { return buffer_.size(); }
  // Bytes the tail buffer holds allocated: released to at most 1 KiB once a line completes.
  std::size_t retained_bytes() const { return buffer_.capacity(); }
  // True once a line (one event) was longer than `max_event_bytes`: Feed returned the events
  // before it and returns nothing from then on; the buffer is released.
  bool overflowed() const { return overflowed_; }
  std::size_t max_event_bytes() const { return max_event_bytes_; }

 private:
  void Overflow();

  std::size_t max_event_bytes_;
  bool overflowed_ = false;
  std::string buffer_;
};

}  // namespace fleetwave::clients
