// One simulated cluster: its name and bearer token, its objects, its change feed and its
// resourceVersion counter. Every committed change goes through Commit/Erase so the
// resourceVersion, storage and watch fan-out stay consistent. Not thread-safe: io thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>

#include "tools/kubesim/clock.h"
#include "tools/kubesim/store.h"
#include "tools/kubesim/watch_hub.h"

namespace fleetwave::kubesim {

struct ClusterOptions {
  // Bounded so 2,000 busy clusters stay within memory (real watch caches keep ~100 per type).
  std::size_t history_events = 256;
  Duration history_window = std::chrono::minutes(5);
};

class Cluster {
 public:
  Cluster(int index, std::string token, std::uint64_t seed, const Clock& clock,
          const ClusterOptions& options);

  const std::string& name() const { return name_; }
  int index() const { return index_; }
  const std::string& token() const { return token_; }
  std::uint64_t resource_version() const { return rv_; }
  ObjectStore& store() { return store_; }
  const ObjectStore& store() const { return store_; }
  WatchHub& hub() { return hub_; }
  const Clock& clock() const { return clock_; }

  // Stores `object` (storage version) with a fresh resourceVersion, publishes the event and
  // returns the stored object.
  Json Commit(ResourceId resource, Json object, EventType type);
  // Removes an object for good and publishes DELETED with a fresh resourceVersion.
  Json Erase(ResourceId resource, Json object);

  std::string NewUid();
  std::string RandomSuffix(int n);
  // Something awaits the garbage collector / namespace controller.
  void MarkLifecyclePending() { lifecycle_pending_ = true; }
  bool TakeLifecyclePending() {
    bool p = lifecycle_pending_;
    lifecycle_pending_ = false;
    return p;
  }
  bool lifecycle_pending() const { return lifecycle_pending_; }
  void ExpireHistory() { hub_.CompactAll(rv_); }
  // Called with index() after every committed change (the simulator's scheduler listens, so
  // a written cluster gets a controller step and an unwritten one can sleep).
  void SetChangeListener(std::function<void(int)> listener) { on_change_ = std::move(listener); }

 private:
  int index_;
  std::string name_;
  std::string token_;
  const Clock& clock_;
  std::uint64_t rv_;
  ObjectStore store_;
  WatchHub hub_;
  std::mt19937_64 rng_;
  bool lifecycle_pending_ = false;
  std::function<void(int)> on_change_;
};

std::string NamespaceOf(const Json& object);
std::string NameOf(const Json& object);

}  // namespace fleetwave::kubesim
