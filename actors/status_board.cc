#include "actors/status_board.h"

#include <utility>

namespace fleetwave::actors {

void StatusBoard::PublishAppSet(const std::string& name, engine::Json appset,
                                std::map<std::string, engine::Json> applications) {
  // The JSON moves into shared snapshots before the lock: readers wait only for pointer swaps.
  auto set_json = std::make_shared<const engine::Json>(std::move(appset));
  std::vector<std::pair<std::string, JsonPtr>> apps;
  apps.reserve(applications.size());
  for (auto& [app, json] : applications) {
    apps.emplace_back(app, std::make_shared<const engine::Json>(std::move(json)));
  }
  std::set<std::string> names;
  for (const auto& [app, _] : apps) names.insert(app);

  std::lock_guard<std::mutex> lock(mu_);
  // Apps this set published before and not now go away (StatusBoardTest.PublishReplacesSetsApps).
  if (auto it = set_apps_.find(name); it != set_apps_.end()) {
    for (const std::string& old : it->second) {
      if (names.count(old) == 0) {
        auto a = apps_.find(old);
        if (a != apps_.end() && a->second.appset == name) {
          RecordLocked(kApplications, old, a->second.json, nullptr);
          apps_.erase(a);
        }
      }
    }
  }
  for (auto& [app, json] : apps) {
    auto a = apps_.find(app);
    JsonPtr before = a != apps_.end() ? a->second.json : nullptr;
    if (a != apps_.end() && a->second.appset != name) DropAppLocked(app);  // moves between sets
    RecordLocked(kApplications, app, before, json);
    apps_[app] = AppEntry{name, std::move(json)};
  }
  set_apps_[name] = std::move(names);
  auto old_set = appsets_.find(name);
  RecordLocked(kAppSets, name, old_set != appsets_.end() ? old_set->second : nullptr, set_json);
  appsets_[name] = std::move(set_json);
  ++sequence_;
}

void StatusBoard::PublishApplication(const std::string& appset, const std::string& name,
                                     engine::Json application) {
  auto json = std::make_shared<const engine::Json>(std::move(application));
  std::lock_guard<std::mutex> lock(mu_);
  auto a = apps_.find(name);
  JsonPtr before = a != apps_.end() ? a->second.json : nullptr;
  if (a != apps_.end() && a->second.appset != appset) DropAppLocked(name);
  RecordLocked(kApplications, name, before, json);
  apps_[name] = AppEntry{appset, std::move(json)};
  set_apps_[appset].insert(name);
  ++sequence_;
}

void StatusBoard::RemoveAppSet(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = set_apps_.find(name); it != set_apps_.end()) {
    for (const std::string& app : it->second) {
      auto a = apps_.find(app);
      if (a != apps_.end() && a->second.appset == name) {
        RecordLocked(kApplications, app, a->second.json, nullptr);
        apps_.erase(a);
      }
    }
    set_apps_.erase(it);
  }
  if (auto set = appsets_.find(name); set != appsets_.end()) {
    RecordLocked(kAppSets, name, set->second, nullptr);
    appsets_.erase(set);
  }
  ++sequence_;
}

// Removes an app from its current owner's list (the caller re-adds it elsewhere or erases it).
void StatusBoard::DropAppLocked(const std::string& app) {
  auto a = apps_.find(app);
  if (a == apps_.end()) return;
  if (auto s = set_apps_.find(a->second.appset); s != set_apps_.end()) s->second.erase(app);
  apps_.erase(a);
}

void StatusBoard::PublishCluster(ClusterStatus cluster) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string name = cluster.name;
  auto old = clusters_.find(name);
  RecordLocked(kClusters, name,
               old != clusters_.end()
                   ? std::make_shared<const engine::Json>(ClusterJson(old->second))
                   : nullptr,
               std::make_shared<const engine::Json>(ClusterJson(cluster)));
  clusters_[name] = std::move(cluster);
  ++sequence_;
}

void StatusBoard::RemoveCluster(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto old = clusters_.find(name); old != clusters_.end()) {
    RecordLocked(kClusters, name, std::make_shared<const engine::Json>(ClusterJson(old->second)),
                 nullptr);
    clusters_.erase(old);
  }
  ++sequence_;
}

void StatusBoard::SetFileStatus(const std::string& file, std::optional<std::string> error) {
  std::lock_guard<std::mutex> lock(mu_);
  files_[file] = std::move(error);
  ++sequence_;
}

void StatusBoard::RemoveFile(const std::string& file) {
  std::lock_guard<std::mutex> lock(mu_);
  files_.erase(file);
  ++sequence_;
}

void StatusBoard::SetReady(bool ready, std::string reason) {
  std::lock_guard<std::mutex> lock(mu_);
  readiness_ = Readiness{ready, ready ? std::string() : std::move(reason)};
  ++sequence_;
}

void StatusBoard::PublishWorkload(engine::Json workload) {
  auto field = [&workload](const char* key) {
    const auto it = workload.find(key);
    return it != workload.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  auto key = std::make_tuple(field("cluster"), field("namespace"), field("kind"), field("name"));
  auto json = std::make_shared<const engine::Json>(std::move(workload));
  std::lock_guard<std::mutex> lock(mu_);
  auto old = workloads_.find(key);
  RecordLocked(kWorkloads, WorkloadName(key), old != workloads_.end() ? old->second : nullptr,
               json);
  workloads_[std::move(key)] = std::move(json);
  ++sequence_;
}

void StatusBoard::RemoveWorkload(const std::string& cluster, const std::string& ns,
                                 const std::string& kind, const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto old = workloads_.find(std::make_tuple(cluster, ns, kind, name));
      old != workloads_.end()) {
    RecordLocked(kWorkloads, WorkloadName(old->first), old->second, nullptr);
    workloads_.erase(old);
  }
  ++sequence_;
}

void StatusBoard::RemoveWorkloadsOf(const std::string& cluster) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = workloads_.begin(); it != workloads_.end();) {
    if (std::get<0>(it->first) != cluster) {
      ++it;
      continue;
    }
    RecordLocked(kWorkloads, WorkloadName(it->first), it->second, nullptr);
    it = workloads_.erase(it);
  }
  ++sequence_;
}

std::vector<StatusBoard::JsonPtr> StatusBoard::Workloads() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<JsonPtr> out;
  out.reserve(workloads_.size());
  for (const auto& [_, json] : workloads_) out.push_back(json);
  return out;
}

StatusBoard::JsonPtr StatusBoard::AppSet(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = appsets_.find(name);
  return it == appsets_.end() ? nullptr : it->second;
}

std::vector<StatusBoard::JsonPtr> StatusBoard::AppSets() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<JsonPtr> out;
  out.reserve(appsets_.size());
  for (const auto& [_, json] : appsets_) out.push_back(json);
  return out;
}

StatusBoard::JsonPtr StatusBoard::Application(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = apps_.find(name);
  return it == apps_.end() ? nullptr : it->second.json;
}

std::vector<StatusBoard::JsonPtr> StatusBoard::Applications() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<JsonPtr> out;
  out.reserve(apps_.size());
  for (const auto& [_, entry] : apps_) out.push_back(entry.json);
  return out;
}

std::vector<StatusBoard::JsonPtr> StatusBoard::ApplicationsOf(const std::string& appset) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<JsonPtr> out;
  auto it = set_apps_.find(appset);
  if (it == set_apps_.end()) return out;
  out.reserve(it->second.size());
  for (const std::string& app : it->second) {
    if (auto a = apps_.find(app); a != apps_.end()) out.push_back(a->second.json);
  }
  return out;
}

std::optional<std::string> StatusBoard::ApplicationOwner(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = apps_.find(name);
  if (it == apps_.end()) return std::nullopt;
  return it->second.appset;
}

std::optional<ClusterStatus> StatusBoard::Cluster(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = clusters_.find(name);
  if (it == clusters_.end()) return std::nullopt;
  return it->second;
}

std::vector<ClusterStatus> StatusBoard::Clusters() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ClusterStatus> out;
  out.reserve(clusters_.size());
  for (const auto& [_, c] : clusters_) out.push_back(c);
  return out;
}

std::map<std::string, std::optional<std::string>> StatusBoard::Files() const {
  std::lock_guard<std::mutex> lock(mu_);
  return files_;
}

Readiness StatusBoard::readiness() const {
  std::lock_guard<std::mutex> lock(mu_);
  return readiness_;
}

uint64_t StatusBoard::sequence() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sequence_;
}

void StatusBoard::RecordLocked(const char* collection, const std::string& name,
                               const JsonPtr& before, const JsonPtr& after) {
  if (!before && !after) return;
  if (before && after && (before == after || *before == *after)) return;
  const ChangeType type = !before  ? ChangeType::kAdded
                          : !after ? ChangeType::kDeleted
                                   : ChangeType::kModified;
  feed_.Record(collection, type, name, after ? after : before);
}

std::optional<std::vector<StatusBoard::JsonPtr>> StatusBoard::Snapshot(
    const std::string& collection, uint64_t* version) const {
  // Under the board's lock no change can be recorded (publishers record while holding it), so
  // the items and the feed's version describe the same moment (StatusBoardFeedTest.*).
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<JsonPtr> out;
  if (collection == kAppSets) {
    for (const auto& [_, json] : appsets_) out.push_back(json);
  } else if (collection == kApplications) {
    for (const auto& [_, entry] : apps_) out.push_back(entry.json);
  } else if (collection == kWorkloads) {
    for (const auto& [_, json] : workloads_) out.push_back(json);
  } else if (collection == kClusters) {
    for (const auto& [_, c] : clusters_)
      out.push_back(std::make_shared<const engine::Json>(ClusterJson(c)));
  } else {
    return std::nullopt;
  }
  *version = feed_.version();
  return out;
}

std::string StatusBoard::WorkloadName(const WorkloadKey& key) {
  return std::get<0>(key) + "/" + std::get<1>(key) + "/" + std::get<2>(key) + "/" +
         std::get<3>(key);
}

engine::Json ClusterJson(const ClusterStatus& c) {
  return engine::Json{{"name", c.name}, {"server", c.server}, {"up", c.up}, {"synced", c.synced}};
}

}  // namespace fleetwave::actors
