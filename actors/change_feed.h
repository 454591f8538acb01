// The StatusBoard's change feed, which the API's `?watch=1` streams read: every change to one of
// the board's collections ("applicationsets", "applications", "clusters", "workloads") becomes a
// Change with a version one higher than the last, kept in a ring per collection that is bounded
// by bytes (what its changes would cost a watcher to receive, ApproximateJsonBytes) and by a
// count.
//
// A reader takes a collection's snapshot together with the feed version it is current at
// (StatusBoard::Snapshot), then asks Next() for the changes after that version. The feed never
// waits for a reader: when a collection's ring has dropped changes a reader has not read yet, the
// reader is told kBehind and must start over from a fresh snapshot (the API ends its stream).
// So a slow or stuck client costs a publisher one notify, never a wait on a socket
// (ChangeFeedTest.SlowReaderFallsBehindWithoutBlockingRecord).
//
// A collection keeps changes only while a watcher holds it (ChangeFeed::Hold, taken by each watch
// stream before its snapshot): an unwatched collection counts its changes (versions still grow)
// but keeps none, so a daemon nobody watches holds no superseded Applications, rows or sets -
// after a rollout of 5,000 apps those filled the 16,384-change rings, about 60 KB per app
// (docs/architecture.md, "Memory budget"). The last hold to go drops its collection's ring.
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
#include <functional>
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

// The serialised size of `json` (its dump()) up to string escapes, from one walk without
// allocating: what the feed counts against its byte budget.
size_t ApproximateJsonBytes(const engine::Json& json);

// A JSON value built at most once, when first read (then kept): a set's JSON is assembled from
// its parts only if a reader asks for it, not on every publish.
class LazyJson {
 public:
  explicit LazyJson(std::function<engine::Json()> build) : build_(std::move(build)) {}
  LazyJson(const LazyJson&) = delete;
  LazyJson& operator=(const LazyJson&) = delete;
  // Builds on the first call (concurrent callers wait for that one) and drops the builder.
  const std::shared_ptr<const engine::Json>& Get() const;

 private:
  mutable std::once_flag once_;
  mutable std::shared_ptr<const engine::Json> json_;
  mutable std::function<engine::Json()> build_;
};

// An object as a collection serves it: a snapshot, or one built when first read (LazyJson).
// Reads like a pointer to the JSON; null for none.
class FeedObject {
 public:
  FeedObject() = default;
  // NOLINTNEXTLINE(google-explicit-constructor): most objects are snapshots already.
  FeedObject(std::shared_ptr<const engine::Json> json) : json_(std::move(json)) {}
  explicit FeedObject(std::shared_ptr<const LazyJson> lazy) : lazy_(std::move(lazy)) {}

  explicit operator bool() const { return json_ != nullptr || lazy_ != nullptr; }
  // The JSON (built now if it is lazy and nobody read it yet). REQUIRES: not null.
  const engine::Json& operator*() const { return *shared(); }
  const engine::Json* operator->() const { return shared().get(); }
  const std::shared_ptr<const engine::Json>& shared() const;

 private:
  std::shared_ptr<const engine::Json> json_;
  std::shared_ptr<const LazyJson> lazy_;
};

struct Change {
  uint64_t version = 0;
  ChangeType type = ChangeType::kAdded;
  std::string name;
  // The object as the collection's list serves it; for kDeleted the last one published.
  FeedObject object;
  size_t bytes = 0;  // what it counts against its ring's byte budget
};

class ChangeFeed {
 public:
  using JsonPtr = std::shared_ptr<const engine::Json>;

  // What a collection's ring keeps by default: how far behind (in bytes of changes) a watcher
  // may fall before it is told to start over.
  static constexpr size_t kDefaultByteBudget = 64 << 20;
  // Measure the object (Record's default): ApproximateJsonBytes of a built object.
  static constexpr size_t kMeasure = static_cast<size_t>(-1);

  // Each collection's ring holds at most `capacity` changes and, past its newest change, at
  // most `byte_budget` bytes of them; `capacities` sets another count for some collections.
  explicit ChangeFeed(size_t capacity, std::map<std::string, size_t> capacities = {},
                      size_t byte_budget = kDefaultByteBudget);
  ChangeFeed(const ChangeFeed&) = delete;
  ChangeFeed& operator=(const ChangeFeed&) = delete;

  // Appends one change of `bytes` (kMeasure: measured now, which builds a lazy object), evicts
  // the oldest changes past the bounds, wakes the collection's waiting readers and returns its
  // version. A change of a collection nobody holds is only counted: it wakes nobody.
  uint64_t Record(const std::string& collection, ChangeType type, std::string name,
                  FeedObject object, size_t bytes = kMeasure);

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
  // the last change returned. Changes of an unheld collection do not wake a waiting reader: it
  // sees kBehind when it next wakes (deadline, WakeAll, a change recorded while held).
  Read Next(const std::string& collection, uint64_t* cursor,
            std::chrono::steady_clock::time_point deadline, const std::atomic<bool>& cancelled,
            std::vector<Change>* out) const;

  // Wakes every reader, so one whose `cancelled` flag was just set returns now.
  void WakeAll() const;

  // A watch stream's claim on a collection's changes: while one is alive, the collection's
  // changes are kept (within the bounds) for Next(). Take it before the snapshot the stream
  // starts from; changes recorded while no hold was alive are gone (a reader whose cursor is
  // before them is kBehind).
  class Hold {
   public:
    Hold(const ChangeFeed& feed, std::string collection);
    ~Hold();
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;

   private:
    const ChangeFeed& feed_;
    const std::string collection_;
  };

  // The changes a collection keeps now (what its ring holds; tests).
  size_t Kept(const std::string& collection) const;
  // How many changes woke their collection's readers (tests: an unwatched one wakes nobody).
  uint64_t notifications() const;

 private:
  struct Ring {
    std::deque<Change> changes;
    size_t bytes = 0;                 // of `changes`
    uint64_t dropped_through = 0;     // the version of the newest change evicted
    std::condition_variable changed;  // the collection's waiting readers
  };

  const size_t capacity_;
  const std::map<std::string, size_t> capacities_;
  const size_t byte_budget_;
  mutable std::mutex mu_;
  // Mutable: a Hold (taken through the const feed a reader has) empties its collection's ring
  // when it is the last to go, and a reader makes the ring it waits on. Never erased (a reader
  // may wait on its condition variable).
  mutable std::map<std::string, Ring> rings_;
  mutable std::map<std::string, size_t> holds_;  // live Holds per collection
  uint64_t version_ = 0;
  uint64_t notifications_ = 0;
};

}  // namespace fleetwave::actors
