// The StatusBoard's change feed, which the API's `?watch=1` streams read: every change to one of
// the board's collections ("applicationsets", "applications", "clusters", "workloads") becomes a
// Change with a version one higher than the last, kept in a bounded ring per collection.
//
// A reader takes a collection's snapshot together with the feed version it is current at
// (StatusBoard::Snapshot), then asks Next() for the changes after that version. The feed never
// waits for a reader: when a collection's ring has dropped changes a reader has not read yet, the
// reader is told kBehind and must start over from a fresh snapshot (the API ends its stream).
// So a slow or stuck client costs a publisher one notify, never a wait on a socket
// (ChangeFeedTest.SlowReaderFallsBehindWithoutBlockingRecord).
//
// Thread-safety: every method may be called from any thread. Record() takes the feed's own
// mutex briefly; the StatusBoard calls it while holding its lock (lock order: board, then feed),
// which is what makes a snapshot and its version consistent.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/yaml_json.h"

namespace fleetwave::actors {

enum class ChangeType { kAdded, kModified, kDeleted };

// "ADDED", "MODIFIED", "DELETED": the watch line's "type".
const char* ChangeTypeName(ChangeType type);

struct Change {
  uint64_t version = 0;
  ChangeType type = ChangeType::kAdded;
  std::string name;
  // The object as the collection's list serves it; for kDeleted the last one published.
  std::shared_ptr<const engine::Json> object;
};

class ChangeFeed {
 public:
  using JsonPtr = std::shared_ptr<const engine::Json>;

  // `capacity` bounds each collection's ring (the changes a reader may lag behind by);
  // `capacities` sets another bound for some collections by name.
  explicit ChangeFeed(size_t capacity, std::map<std::string, size_t> capacities = {});
  ChangeFeed(const ChangeFeed&) = delete;
  ChangeFeed& operator=(const ChangeFeed&) = delete;

  // Appends one change, wakes every waiting reader and returns the change's version.
  uint64_t Record(const std::string& collection, ChangeType type, std::string name, JsonPtr object);

  // The version of the last change recorded (0 before the first).
  uint64_t version() const;

  enum class Read {
    kChanges,    // `out` holds the collection's changes after the cursor, oldest first
    kTimedOut,   // the deadline passed with no change (the API writes a keepalive)
    kBehind,     // changes after the cursor were dropped from the ring: start over
    kCancelled,  // `cancelled` was set (the server is stopping)
  };

  // Waits until `collection` has changes after `*cursor`, the deadline passes or `cancelled` is
  // set (checked whenever the reader wakes; WakeAll() wakes it). On kChanges, `*cursor` moves to
  // the last change returned.
  Read Next(const std::string& collection, uint64_t* cursor,
            std::chrono::steady_clock::time_point deadline, const std::atomic<bool>& cancelled,
            std::vector<Change>* out) const;

  // Wakes every reader, so one whose `cancelled` flag was just set returns now.
  void WakeAll() const;

 private:
  struct Ring {
    std::deque<Change> changes;
    uint64_t dropped_through = 0;  // the version of the newest change evicted
  };

  const size_t capacity_;
  const std::map<std::string, size_t> capacities_;
  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  std::map<std::string, Ring> rings_;
  uint64_t version_ = 0;
};

}  // namespace fleetwave::actors
