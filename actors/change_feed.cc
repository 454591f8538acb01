#include "actors/change_feed.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace fleetwave::actors {

const char* ChangeTypeName(ChangeType type) {
  switch (type) {
    case ChangeType::kAdded:
      return "ADDED";
    case ChangeType::kModified:
      return "MODIFIED";
    case ChangeType::kDeleted:
      return "DELETED";
  }
  return "MODIFIED";
}

size_t ApproximateJsonBytes(const engine::Json& json) {
  switch (json.type()) {
    case engine::Json::value_t::object: {
      size_t n = 2 + (json.empty() ? 0 : json.size() - 1);  // braces, commas
      for (const auto& [key, value] : json.items())
        n += key.size() + 3 + ApproximateJsonBytes(value);
      return n;
    }
    case engine::Json::value_t::array: {
      size_t n = 2 + (json.empty() ? 0 : json.size() - 1);
      for (const auto& value : json) n += ApproximateJsonBytes(value);
      return n;
    }
    case engine::Json::value_t::string:
      return json.get_ref<const std::string&>().size() + 2;
    case engine::Json::value_t::boolean:
      return json.get<bool>() ? 4 : 5;
    case engine::Json::value_t::null:
    case engine::Json::value_t::discarded:
      return 4;
    default:
      return 8;  // a number
  }
}

const std::shared_ptr<const engine::Json>& LazyJson::Get() const {
  std::call_once(once_, [this] {
    json_ = std::make_shared<const engine::Json>(build_());
    build_ = nullptr;  // what it captured (the set's parts) is no longer needed
  });
  return json_;
}

const std::shared_ptr<const engine::Json>& FeedObject::shared() const {
  return lazy_ ? lazy_->Get() : json_;
}

ChangeFeed::ChangeFeed(size_t capacity, std::map<std::string, size_t> capacities,
                       size_t byte_budget)
    : capacity_(capacity > 0 ? capacity : 1),
      capacities_(std::move(capacities)),
      byte_budget_(byte_budget) {}

uint64_t ChangeFeed::Record(const std::string& collection, ChangeType type, std::string name,
                            FeedObject object, size_t bytes) {
  uint64_t version = 0;
  Ring* held = nullptr;
  {
    // Nobody watches the collection: count the change and keep nothing (nor measure it: a lazy
    // set JSON stays unbuilt). A reader from before it is behind. Callers record one change at
    // a time (the StatusBoard under its lock), so a Hold taken between this check and the push
    // below belongs to a snapshot taken after this change.
    std::lock_guard<std::mutex> lock(mu_);
    if (holds_.find(collection) == holds_.end()) {
      version = ++version_;
      Ring& ring = rings_[collection];
      ring.changes.clear();
      ring.bytes = 0;
      ring.dropped_through = version;
    }
  }
  // Nor wake anyone: a reader of an unwatched collection is a doorbell with no stream behind it
  // (the API's one waiter per collection), and waking it for every change of a rollout nobody
  // watches cost the daemon 5 % of its CPU at N=1,000 (docs/benchmarks.md). It learns that it
  // is behind at its next wake-up: a change while watched, its deadline or WakeAll().
  if (version != 0) return version;
  if (bytes == kMeasure) bytes = object ? ApproximateJsonBytes(*object) : 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    version = ++version_;
    Ring& ring = rings_[collection];
    held = &ring;
    ++notifications_;
    ring.changes.push_back(Change{version, type, std::move(name), std::move(object), bytes});
    ring.bytes += bytes;
    const auto bound = capacities_.find(collection);
    const size_t capacity =
        bound != capacities_.end() ? std::max<size_t>(bound->second, 1) : capacity_;
    // The ring never grows past its bounds: the oldest change goes (the newest always stays, so
    // a watcher that keeps up sees even a change larger than the budget), and a reader that had
    // not read it learns so from dropped_through (ChangeFeedTest.SlowReaderFallsBehind...,
    // ChangeFeedTest.RingIsBoundedByBytes).
    while (ring.changes.size() > capacity ||
           (ring.changes.size() > 1 && ring.bytes > byte_budget_)) {
      ring.dropped_through = ring.changes.front().version;
      ring.bytes -= ring.changes.front().bytes;
      ring.changes.pop_front();
    }
  }
  held->changed.notify_all();  // this collection's readers only; rings are never erased
  return version;
}

ChangeFeed::Hold::Hold(const ChangeFeed& feed, std::string collection)
    : feed_(feed), collection_(std::move(collection)) {
  std::lock_guard<std::mutex> lock(feed_.mu_);
  ++feed_.holds_[collection_];
}

ChangeFeed::Hold::~Hold() {
  std::lock_guard<std::mutex> lock(feed_.mu_);
  const auto held = feed_.holds_.find(collection_);
  if (held == feed_.holds_.end() || --held->second > 0) return;
  feed_.holds_.erase(held);
  // The last watcher left: what it had not read, nobody will.
  if (const auto ring = feed_.rings_.find(collection_); ring != feed_.rings_.end()) {
    if (!ring->second.changes.empty()) {
      ring->second.dropped_through = ring->second.changes.back().version;
    }
    std::deque<Change>().swap(ring->second.changes);  // its blocks too, not just the objects
    ring->second.bytes = 0;
  }
}

size_t ChangeFeed::Kept(const std::string& collection) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto ring = rings_.find(collection);
  return ring == rings_.end() ? 0 : ring->second.changes.size();
}

uint64_t ChangeFeed::version() const {
  std::lock_guard<std::mutex> lock(mu_);
  return version_;
}

ChangeFeed::Read ChangeFeed::Next(const std::string& collection, uint64_t* cursor,
                                  std::chrono::steady_clock::time_point deadline,
                                  const std::atomic<bool>& cancelled,
                                  std::vector<Change>* out) const {
  std::unique_lock<std::mutex> lock(mu_);
  Ring& ring = rings_[collection];  // made here if no change came yet: its readers wait on it
  while (true) {
    if (cancelled.load()) return Read::kCancelled;
    if (ring.dropped_through > *cursor) return Read::kBehind;
    if (!ring.changes.empty() && ring.changes.back().version > *cursor) {
      // Changes are in version order: copy the tail after the cursor (pointers only; the
      // caller serialises after the lock is released).
      auto first = ring.changes.end();
      while (first != ring.changes.begin() && std::prev(first)->version > *cursor) --first;
      out->assign(first, ring.changes.end());
      *cursor = out->back().version;
      return Read::kChanges;
    }
    if (ring.changed.wait_until(lock, deadline) == std::cv_status::timeout) {
      if (cancelled.load()) return Read::kCancelled;
      return Read::kTimedOut;
    }
  }
}

void ChangeFeed::WakeAll() const {
  // Taking the lock orders this wake after any reader's check of its flag: a reader that has
  // checked is already waiting and gets the notify (no lost wake-up).
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [collection, ring] : rings_) ring.changed.notify_all();
}

uint64_t ChangeFeed::notifications() const {
  std::lock_guard<std::mutex> lock(mu_);
  return notifications_;
}

}  // namespace fleetwave::actors
