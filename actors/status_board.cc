#include "actors/status_board.h"

#include <algorithm>
#include <utility>

#include "engine/progress/workload.h"

namespace fleetwave::actors {

void StatusBoard::PublishAppSet(const std::string& name, const engine::Json& appset,
                                std::map<std::string, engine::Json> applications) {
  std::vector<Incoming> apps;
  apps.reserve(applications.size());
  for (auto& [app, json] : applications) apps.push_back(Incoming{app, &json, false, nullptr});
  PublishSorted(name, appset, std::move(apps));
}

void StatusBoard::PublishReconcile(const std::string& name, const engine::Json& appset,
                                   std::vector<engine::Json> applications) {
  std::vector<Incoming> apps;
  apps.reserve(applications.size());
  for (auto& json : applications) {
    const engine::Json* app_name = engine::FieldAt(json, {"metadata", "name"});
    if (app_name == nullptr || !app_name->is_string()) continue;
    apps.push_back(Incoming{app_name->get_ref<const std::string&>(), &json, true, nullptr});
  }
  PublishIncoming(name, appset, std::move(apps));
}

namespace {

// The names of incoming apps, or a map's keys, for the engine's rules over names.
template <typename Apps>
std::vector<std::string_view> NamesOf(const Apps& apps) {
  std::vector<std::string_view> names;
  names.reserve(apps.size());
  for (const auto& app : apps) names.push_back(app.name);
  return names;
}

template <typename Map>
std::vector<std::string_view> KeysOf(const Map& map) {
  std::vector<std::string_view> keys;
  keys.reserve(map.size());
  for (const auto& [key, _] : map) keys.push_back(key);
  return keys;
}

const std::string* AppName(const engine::Json& app) {
  const engine::Json* name = engine::FieldAt(app, {"metadata", "name"});
  return name != nullptr && name->is_string() ? &name->get_ref<const std::string&>() : nullptr;
}

}  // namespace

void StatusBoard::PublishReconcile(const std::string& name, const engine::Json& appset,
                                   std::vector<JsonPtr> applications, const PublishOrigin* origin) {
  // The engine hands the set's apps in the same order every time, an unchanged one as the
  // same pointer. When the set's apps are still what this call published last time, only the
  // positions whose pointer differs are looked at: their names (which must be the same as
  // before, or the general path below runs) and contents. The other apps' JSON is not read.
  std::vector<Incoming> changed;
  bool positional = false;
  uint64_t version = 0;
  {
    std::vector<std::pair<size_t, JsonPtr>> differs;  // (index, the pointer published there)
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto s = set_apps_.find(name);
      positional = s != set_apps_.end() && s->second.last_input_version == s->second.version &&
                   s->second.last_input.size() == applications.size();
      if (positional) version = s->second.version;
      for (size_t i = 0; positional && i < applications.size(); ++i) {
        if (applications[i] == s->second.last_input[i]) continue;
        positional = applications[i] != nullptr;
        differs.emplace_back(i, s->second.last_input[i]);
      }
    }
    for (size_t j = 0; positional && j < differs.size(); ++j) {
      const JsonPtr& json = applications[differs[j].first];
      const std::string* now = AppName(*json);
      const std::string* was = AppName(*differs[j].second);
      positional = now != nullptr && was != nullptr && *now == *was;
      if (positional) changed.push_back(Incoming{*now, nullptr, false, json});
    }
  }
  // Someone else changed the set's apps meanwhile (rare): the general path below.
  if (positional &&
      PublishSorted(name, appset, std::move(changed), &version, &applications, origin))
    return;

  std::vector<Incoming> apps;
  apps.reserve(applications.size());
  bool clean = true;  // every app named, in strict name order: positions name apps
  for (auto& json : applications) {
    const std::string* app_name = json != nullptr ? AppName(*json) : nullptr;
    if (app_name == nullptr) {
      clean = false;
      continue;
    }
    if (!apps.empty() && !(apps.back().name < *app_name)) clean = false;
    apps.push_back(Incoming{*app_name, nullptr, false, json});
  }
  if (!clean) {
    PublishIncoming(name, appset, std::move(apps), origin);
    return;
  }
  PublishSorted(name, appset, std::move(apps), nullptr, &applications, origin);
}

void StatusBoard::PublishIncoming(const std::string& name, const engine::Json& appset,
                                  std::vector<Incoming> apps, const PublishOrigin* origin) {
  // Which apps are shown, in name order: engine::LastOfEachName (of equal names the last;
  // StatusBoardTest.PublishReconcileSortsAndLastDuplicateWins).
  const std::vector<size_t> shown = engine::LastOfEachName(NamesOf(apps));
  std::vector<Incoming> sorted;
  sorted.reserve(shown.size());
  for (size_t i : shown) sorted.push_back(std::move(apps[i]));
  PublishSorted(name, appset, std::move(sorted), nullptr, nullptr, origin);
}

bool StatusBoard::PublishSorted(const std::string& name, const engine::Json& appset,
                                std::vector<Incoming> apps, const uint64_t* partial,
                                std::vector<JsonPtr>* input, const PublishOrigin* origin) {
  // 1. Under the lock, only pointer copies: the set's current snapshots of the incoming names
  //    (a merge of two sorted lists), the names it published before and not now, its version.
  std::vector<JsonPtr> before(apps.size());
  std::vector<std::string> gone;
  SetJsonPtr old_set;
  uint64_t version = 0;  // 0: the set had no apps entry
  // The origin's changed entries, when the set's JSON is the one its previous publish made.
  const std::vector<size_t>* changed_entries = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (origin != nullptr && origin->source != 0 && origin->entry_positions != nullptr) {
      auto o = appset_origin_.find(name);
      if (o != appset_origin_.end() && o->second.first == origin->source &&
          o->second.second + 1 == origin->seq) {
        changed_entries = origin->entry_positions;
      }
    }
    if (auto s = set_apps_.find(name); s != set_apps_.end()) {
      version = s->second.version;
      if (partial != nullptr && *partial != version) return false;
      if (partial != nullptr) {  // only these apps; the others stay as they are
        for (size_t i = 0; i < apps.size(); ++i) {
          if (auto it = s->second.apps.find(apps[i].name); it != s->second.apps.end()) {
            before[i] = it->second;
          }
        }
      } else {
        auto it = s->second.apps.begin();
        const auto end = s->second.apps.end();
        for (size_t i = 0; i < apps.size(); ++i) {
          while (it != end && it->first < apps[i].name) ++it;
          if (it != end && it->first == apps[i].name) before[i] = (it++)->second;
        }
        gone = engine::AppsLeftOutOfPublish(KeysOf(s->second.apps), NamesOf(apps));
      }
    }
    if (auto s = appsets_.find(name); s != appsets_.end()) old_set = s->second;
  }

  // Moves app i's JSON into a snapshot; a name read from the JSON then points into it.
  auto snapshot = [&apps](size_t i) {
    if (apps[i].shared) return apps[i].shared;  // its name points into it already
    auto json = std::make_shared<const engine::Json>(std::move(*apps[i].json));
    if (apps[i].name_in_json) {
      apps[i].name = engine::FieldAt(*json, {"metadata", "name"})->get_ref<const std::string&>();
    }
    return json;
  };

  // 2. Without the lock: one comparison per app; only a changed app becomes a new snapshot.
  std::vector<std::pair<size_t, JsonPtr>> changed;  // (index into apps, new snapshot)
  for (size_t i = 0; i < apps.size(); ++i) {
    if (before[i] && (before[i] == apps[i].shared || *before[i] == apps[i].content())) continue;
    changed.emplace_back(i, snapshot(i));
  }
  // The set's JSON part by part: only changed entries are copied.
  SetDiff set_diff = SetJsonOf(old_set, appset, changed_entries);

  // 3. Under the lock: swap what changed, and the fleet view follows.
  std::map<std::string, std::vector<std::string>> previous_owners;  // set -> apps taken from it
  std::vector<std::string> touched;  // this set's apps that changed or went
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto s = set_apps_.find(name);
    const uint64_t current = s != set_apps_.end() ? s->second.version : 0;
    if (current != version && partial != nullptr) return false;  // nothing changed yet
    if (current != version) {
      // Someone changed this set's apps between 1 and 3 (rare: a publisher of the same set or a
      // set taking one of its names): what was compared may be stale, so redo the bookkeeping
      // against the current state. An app judged unchanged is published unless its snapshot is
      // still the one compared (StatusBoardTest.ConcurrentPublishersKeepEveryChange).
      gone.clear();
      if (s != set_apps_.end()) {
        gone = engine::AppsLeftOutOfPublish(KeysOf(s->second.apps), NamesOf(apps));
      }
      size_t next_changed = 0;
      std::vector<std::pair<size_t, JsonPtr>> all;
      for (size_t i = 0; i < apps.size(); ++i) {
        if (next_changed < changed.size() && changed[next_changed].first == i) {
          all.push_back(std::move(changed[next_changed++]));
          continue;
        }
        auto a = apps_.find(apps[i].name);
        if (a != apps_.end() && a->second.appset == name && a->second.json == before[i]) continue;
        all.emplace_back(i, snapshot(i));
      }
      changed = std::move(all);
      before.assign(apps.size(), nullptr);  // nothing known about the current snapshots
    }
    // Apps this set published before and not now go away (StatusBoardTest.PublishReplacesSetsApps),
    // unless another set took them meanwhile.
    for (const std::string& old : gone) {
      auto a = apps_.find(old);
      if (a == apps_.end() || engine::PublishTakesApp(a->second.appset, name)) continue;
      RecordLocked(kApplications, old, a->second.json, nullptr);
      DropAppLocked(old);
      touched.push_back(old);
    }
    for (auto& [i, json] : changed) {
      auto a = apps_.find(apps[i].name);
      JsonPtr was = a != apps_.end() ? a->second.json : nullptr;
      const std::string app(apps[i].name);
      if (a != apps_.end() && engine::PublishTakesApp(a->second.appset, name)) {  // it moves here
        previous_owners[a->second.appset].push_back(app);
        DropAppLocked(apps[i].name);
      }
      touched.push_back(app);
      if (was && was == before[i]) {
        feed_.Record(kApplications, ChangeType::kModified, app, json);  // compared in 2: differs
      } else {
        RecordLocked(kApplications, app, was, json);
      }
      SetAppLocked(name, app, std::move(json));
    }
    auto old = appsets_.find(name);
    const SetJsonPtr was_set = old != appsets_.end() ? old->second : nullptr;
    if (was_set != old_set) set_diff = SetJsonOf(was_set, appset);  // replaced since 1 (rare)
    if (set_diff.next) SetAppSetLocked(name, set_diff);
    appset_origin_[name] = origin != nullptr ? std::make_pair(origin->source, origin->seq)
                                             : std::make_pair(uint64_t{0}, uint64_t{0});
    // The rows and summaries of every set this publish changed.
    UpdateViewsLocked(name, touched, set_diff.next ? &set_diff : nullptr);
    for (const auto& [other, moved] : previous_owners) UpdateViewsLocked(other, moved, nullptr);
    if (input != nullptr) {
      // What the next publish compares its pointers with (PublishReconcile).
      SetApps& set = set_apps_[name];
      set.last_input = std::move(*input);
      set.last_input_version = set.version;
    }
    ++sequence_;
  }
  return true;
}

void StatusBoard::PublishApplication(const std::string& appset, const std::string& name,
                                     engine::Json application) {
  auto json = std::make_shared<const engine::Json>(std::move(application));
  std::lock_guard<std::mutex> lock(mu_);
  auto a = apps_.find(name);
  JsonPtr before = a != apps_.end() ? a->second.json : nullptr;
  std::optional<std::string> previous_owner;
  if (a != apps_.end() && engine::PublishTakesApp(a->second.appset, appset)) {
    previous_owner = a->second.appset;
    DropAppLocked(name);
  }
  RecordLocked(kApplications, name, before, json);
  SetAppLocked(appset, name, std::move(json));
  UpdateViewsLocked(appset, {name}, nullptr);
  if (previous_owner) UpdateViewsLocked(*previous_owner, {name}, nullptr);
  ++sequence_;
}

void StatusBoard::RemoveAppSet(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = set_apps_.find(name); it != set_apps_.end()) {
    for (const auto& [app, _] : it->second.apps) {
      auto a = apps_.find(app);
      if (a != apps_.end() && a->second.appset == name) {
        RecordLocked(kApplications, app, a->second.json, nullptr);
        apps_.erase(a);
      }
    }
    set_apps_.erase(it);
  }
  if (auto set = appsets_.find(name); set != appsets_.end()) {
    feed_.Record(kAppSets, ChangeType::kDeleted, name, FeedObject(set->second->full),
                 set->second->bytes);
    appsets_.erase(set);
    appset_origin_.erase(name);
  }
  DropViewsLocked(name);
  ++sequence_;
}

void StatusBoard::SetAppLocked(const std::string& appset, std::string_view app, JsonPtr json) {
  SetApps& set = set_apps_[appset];
  set.version = ++last_set_version_;
  auto s = set.apps.find(app);
  if (s == set.apps.end()) s = set.apps.emplace(std::string(app), nullptr).first;
  s->second = json;
  auto a = apps_.find(app);
  if (a == apps_.end()) a = apps_.emplace(std::string(app), AppEntry{}).first;
  a->second = AppEntry{appset, std::move(json)};
}

// Removes an app from its current owner's list (the caller re-adds it elsewhere or erases it).
void StatusBoard::DropAppLocked(std::string_view app) {
  auto a = apps_.find(app);
  if (a == apps_.end()) return;
  if (auto s = set_apps_.find(a->second.appset); s != set_apps_.end()) {
    if (auto e = s->second.apps.find(app); e != s->second.apps.end()) s->second.apps.erase(e);
    s->second.version = ++last_set_version_;
  }
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
  readiness_ = Readiness{ready, std::move(reason)};
  ++sequence_;
}

void StatusBoard::SetStoreProblem(const std::string& database, std::optional<std::string> error) {
  std::lock_guard<std::mutex> lock(mu_);
  store_database_ = database;
  store_problem_ = std::move(error);
  ++sequence_;
}

void StatusBoard::SetStoredRecordProblem(const std::string& where,
                                         std::optional<std::string> error) {
  std::lock_guard<std::mutex> lock(mu_);
  if (error) {
    record_problems_[where] = std::move(*error);
  } else {
    record_problems_.erase(where);
  }
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
  SetJsonPtr set;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = appsets_.find(name);
    if (it == appsets_.end()) return nullptr;
    set = it->second;
  }
  return set->full->Get();  // assembled outside the lock, once per version
}

std::vector<StatusBoard::JsonPtr> StatusBoard::AppSets() const {
  std::vector<SetJsonPtr> sets;
  {
    std::lock_guard<std::mutex> lock(mu_);
    sets.reserve(appsets_.size());
    for (const auto& [_, set] : appsets_) sets.push_back(set);
  }
  std::vector<JsonPtr> out;
  out.reserve(sets.size());
  for (const SetJsonPtr& set : sets) out.push_back(set->full->Get());
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
  out.reserve(it->second.apps.size());
  for (const auto& [_, json] : it->second.apps) out.push_back(json);
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
  return engine::PublishedFileStatuses(files_, record_problems_, store_database_, store_problem_);
}

Readiness StatusBoard::readiness() const {
  std::lock_guard<std::mutex> lock(mu_);
  return engine::ReadinessOf(readiness_.ready, readiness_.reason, store_problem_);
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

std::optional<std::vector<FeedObject>> StatusBoard::Snapshot(const std::string& collection,
                                                             uint64_t* version) const {
  // Under the board's lock no change can be recorded (publishers record while holding it), so
  // the items and the feed's version describe the same moment (StatusBoardFeedTest.*). A set's
  // JSON is assembled by whoever reads it, after the lock.
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<FeedObject> out;
  if (collection == kAppSets) {
    for (const auto& [_, set] : appsets_) out.emplace_back(set->full);
  } else if (collection == kApplications) {
    for (const auto& [_, entry] : apps_) out.push_back(entry.json);
  } else if (collection == kRows) {
    for (const auto& [_, row] : rows_) out.push_back(row.json);
  } else if (collection == kSummaries) {
    for (const auto& [_, json] : summaries_) out.push_back(json);
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
