// One cluster's change feed: a bounded history of events (for watches that resume from a
// resourceVersion) and the set of open watches each event fans out to. Events older than the
// retained window are compacted away, after which resuming from them yields 410 Expired, as
// etcd compaction does behind a real API server. Not thread-safe: io thread only.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/kubesim/clock.h"
#include "tools/kubesim/resources.h"
#include "tools/kubesim/selectors.h"

namespace fleetwave::kubesim {

using Json = nlohmann::json;

enum class EventType : std::uint8_t { kAdded, kModified, kDeleted };
const char* EventTypeName(EventType t);

// Where a watch's lines go (an HTTP response stream). Send may be called re-entrantly from
// any mutation; implementations queue.
class WatchSink {
 public:
  virtual ~WatchSink() = default;
  virtual void Send(std::string line) = 0;
};

struct WatchFilter {
  ResourceId resource = 0;
  std::string version;  // served version the watcher asked for
  std::string ns;       // "" = all namespaces
  LabelSelector labels;
  FieldSelector fields;
  bool table = false;           // events carry Table rows (kubectl get -w)
  bool include_object = false;  // Table rows carry whole objects, not metadata
};

class WatchHub {
 public:
  WatchHub(std::size_t max_events, Duration window);

  // Records an event and delivers it to matching watches. `previous` (the object before a
  // MODIFIED, when known) turns selector transitions into ADDED/DELETED as API servers do.
  void Publish(EventType type, ResourceId resource, std::uint64_t rv, const Json& object,
               const Json* previous, TimePoint now);
  // Whether Publish needs the previous object: some watch on `resource` filters.
  bool WantsPrevious(ResourceId resource) const;
  // Replays events after `rv` that match `filter` to `sink`. Returns false (sending nothing)
  // when `rv` is older than the retained history.
  bool Replay(std::uint64_t rv, const WatchFilter& filter, WatchSink& sink, TimePoint now) const;
  std::uint64_t Add(WatchFilter filter, std::shared_ptr<WatchSink> sink);
  void Remove(std::uint64_t id);
  // Drops events older than the window (and beyond the size bound).
  void Compact(TimePoint now);
  // Forgets all history: every resourceVersion before `current_rv` expires.
  void CompactAll(std::uint64_t current_rv);
  std::uint64_t compacted_rv() const { return compacted_rv_; }
  std::size_t watch_count() const { return watches_.size(); }
  // Work counters for GET /kubesim/stats.
  std::uint64_t events_published() const { return events_published_; }
  std::uint64_t lines_serialised() const { return lines_serialised_; }
  std::uint64_t lines_sent() const { return lines_sent_; }

  // The JSON line for one event.
  static std::string EventLine(const char* type, const Json& object);
  // A stored object as `filter`'s watcher sees it: served version, maybe a Table row.
  static Json Present(const WatchFilter& filter, Json stored, TimePoint now);

 private:
  struct Event {
    std::uint64_t rv;
    TimePoint time;
    EventType type;
    ResourceId resource;
    std::vector<std::uint8_t> object;  // CBOR, storage version
  };
  struct Watch {
    std::uint64_t id;
    WatchFilter filter;
    std::shared_ptr<WatchSink> sink;
  };
  static bool Matches(const WatchFilter& f, ResourceId resource, const Json& object);

  std::size_t max_events_;
  Duration window_;
  std::deque<Event> history_;
  std::uint64_t compacted_rv_ = 0;
  std::vector<Watch> watches_;
  std::uint64_t next_id_ = 1;
  std::uint64_t events_published_ = 0;
  mutable std::uint64_t lines_serialised_ = 0;
  mutable std::uint64_t lines_sent_ = 0;
};

}  // namespace fleetwave::kubesim
