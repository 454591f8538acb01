#include "actors/cluster_cache.h"

#include "engine/cluster_rules.h"
#include "engine/daemon_status.h"

namespace fleetwave::actors {

namespace {
clients::LivenessPolicy DownAfter(int down_after) {
  clients::LivenessPolicy p;
  p.down_after = down_after;
  return p;
}
}  // namespace

ClusterCache::ClusterCache(std::string cluster, int down_after)
    : ClusterCache(std::move(cluster), DownAfter(down_after)) {}

ClusterCache::ClusterCache(std::string cluster, clients::LivenessPolicy liveness,
                           std::uint64_t seed)
    : cluster_(std::move(cluster)), liveness_(liveness, seed) {}

namespace {
bool SameEntry(const LiveEntry& a, const LiveEntry& b) {
  return a.health == b.health && (a.object == b.object || *a.object == *b.object);
}
}  // namespace

bool ClusterCache::Upsert(const std::string& label, LiveEntry entry) {
  const engine::ObjectRef ref = entry.object->ref;
  if (auto it = label_of_.find(ref); it != label_of_.end() && it->second != label) {
    Remove(ref);
  }
  auto [held, added] = by_label_[label].try_emplace(ref);
  if (!added && SameEntry(held->second, entry)) return false;
  label_of_[ref] = label;
  held->second = std::move(entry);
  dirty_.insert(label);
  return true;
}

void ClusterCache::Remove(const engine::ObjectRef& ref) {
  auto it = label_of_.find(ref);
  if (it == label_of_.end()) return;
  const std::string label = it->second;
  label_of_.erase(it);
  auto entries = by_label_.find(label);
  if (entries != by_label_.end()) {
    entries->second.erase(ref);
    if (entries->second.empty()) by_label_.erase(entries);
  }
  dirty_.insert(label);
}

std::vector<LiveEntry> ClusterCache::Entries(const std::string& label) const {
  std::vector<LiveEntry> out;
  auto it = by_label_.find(label);
  if (it == by_label_.end()) return out;
  out.reserve(it->second.size());
  for (const auto& [ref, entry] : it->second) out.push_back(entry);
  return out;
}

bool ClusterCache::RecordSuccess() { return Record(clients::Result{}); }

bool ClusterCache::RecordFailure() {
  return Record(
      clients::ErrorResult(clients::Outcome::kTransient, clients::Problem::kConnection, "failure"));
}

bool ClusterCache::Record(const clients::Result& result, clients::SteadyTime now,
                          clients::Liveness::Source source) {
  return liveness_.Record(result, now, source);
}

void ClusterCache::WatchStarted(const std::string& key) { watches_.emplace(key, false); }
void ClusterCache::WatchSynced(const std::string& key) { watches_[key] = true; }
void ClusterCache::WatchDropped(const std::string& key) { watches_.erase(key); }

bool ClusterCache::synced() const {
  std::size_t listed = 0;
  for (const auto& [key, has_listed] : watches_) listed += has_listed ? 1 : 0;
  return engine::WatchesSynced(watches_.size(), listed);
}

ClusterUpdate ClusterCache::Status() const {
  ClusterUpdate u;
  u.cluster = cluster_;
  u.reachable = reachable();
  u.synced = synced();
  return u;
}

bool ClusterCache::StatusChanged() const {
  return engine::ClusterStatusToTell(reachable(), synced(), sent_reachable_, sent_synced_);
}

ClusterUpdate ClusterCache::Subscribe(const std::string& label, SubscriberId id) {
  if (labels_of_.empty()) {
    // Nobody heard the status so far; this answer tells the first subscriber.
    sent_reachable_ = reachable();
    sent_synced_ = synced();
  }
  subscribers_[label].insert(id);
  labels_of_[id].insert(label);
  ClusterUpdate u = Status();
  u.apps[label] = Entries(label);
  return u;
}

void ClusterCache::Unsubscribe(const std::string& label, SubscriberId id) {
  if (auto it = subscribers_.find(label); it != subscribers_.end()) {
    it->second.erase(id);
    if (it->second.empty()) subscribers_.erase(it);
  }
  if (auto it = labels_of_.find(id); it != labels_of_.end()) {
    it->second.erase(label);
    if (it->second.empty()) labels_of_.erase(it);
  }
}

void ClusterCache::RemoveSubscriber(SubscriberId id) {
  auto it = labels_of_.find(id);
  if (it == labels_of_.end()) return;
  const std::set<std::string> labels = it->second;
  for (const std::string& label : labels) Unsubscribe(label, id);
}

bool ClusterCache::HasPending() const {
  if (labels_of_.empty()) return false;
  if (StatusChanged()) return true;
  for (const std::string& label : dirty_) {
    if (subscribers_.count(label)) return true;
  }
  return false;
}

std::vector<std::pair<SubscriberId, ClusterUpdate>> ClusterCache::Flush() {
  std::vector<std::pair<SubscriberId, ClusterUpdate>> out;
  const bool status_changed = StatusChanged();
  const ClusterUpdate status = Status();
  for (const auto& [id, labels] : labels_of_) {
    ClusterUpdate u = status;
    for (const std::string& label : labels) {
      if (dirty_.count(label)) u.apps[label] = Entries(label);
    }
    if (status_changed || !u.apps.empty()) out.emplace_back(id, std::move(u));
  }
  dirty_.clear();
  sent_reachable_ = status.reachable;
  sent_synced_ = status.synced;
  return out;
}

}  // namespace fleetwave::actors
