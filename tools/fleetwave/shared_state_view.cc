#include "tools/fleetwave/shared_state_view.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "engine/appset/shared_appset_view.h"
#include "store/state.h"

namespace fleetwave::cli {

SharedStateView::SharedStateView(actors::StatusBoard& board,
                                 std::map<std::string, engine::Json> specs,
                                 std::function<void(const std::string&)> log)
    : board_(board), specs_(std::move(specs)), log_(std::move(log)) {}

void SharedStateView::OnChange(const store::EtcdPrefixWatch::Change& change) {
  std::lock_guard<std::mutex> lock(mu_);
  std::set<std::string> touched;
  if (change.reset) {
    for (const auto& [key, entry] : entries_) {
      if (auto set = store::keys::AppSetOfKey(key)) touched.insert(*set);
    }
    entries_ = *change.entries;
    for (const auto& [key, entry] : entries_) {
      if (auto set = store::keys::AppSetOfKey(key)) touched.insert(*set);
    }
  } else {
    for (const std::string& key : change.keys) {
      auto now = change.entries->find(key);
      if (now == change.entries->end()) {
        entries_.erase(key);
      } else {
        entries_[key] = now->second;
      }
      if (auto set = store::keys::AppSetOfKey(key)) touched.insert(*set);
    }
  }
  revision_.store(change.revision);
  if (!active_.load()) return;
  for (const std::string& set : touched) PublishLocked(set);
}

void SharedStateView::SetActive(bool active) {
  std::lock_guard<std::mutex> lock(mu_);
  if (active_.exchange(active) == active || !active) return;
  // What the board holds now is a former term's (or nothing): every set afresh.
  std::set<std::string> sets;
  for (const auto& [key, entry] : entries_) {
    if (auto set = store::keys::AppSetOfKey(key)) sets.insert(*set);
  }
  for (const auto& json : board_.AppSets()) {
    const auto name = json->find("metadata");
    if (name == json->end() || !name->is_object()) continue;
    const std::string set = name->value("name", "");
    if (!set.empty() && sets.count(set) == 0) board_.RemoveAppSet(set);
  }
  shown_.clear();
  for (const std::string& set : sets) PublishLocked(set);
}

void SharedStateView::PublishLocked(const std::string& appset) {
  const std::string prefix = store::keys::AppSetPrefix(appset);
  std::vector<store::Entry> records;
  int64_t highest = 0;
  for (auto it = entries_.lower_bound(prefix);
       it != entries_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    records.push_back(it->second);
    highest = std::max(highest, it->second.revision);
  }
  if (records.empty()) {
    // Every record went: the leader deleted the set.
    if (shown_.erase(appset) > 0) board_.RemoveAppSet(appset);
    return;
  }
  store::Loaded<store::AppSetRecords> loaded =
      store::AppSetRecordsOf(appset, records, revision_.load());
  if (!loaded.ok()) {
    // The last good view stays shown; the leader's own decoding reports the record too.
    if (problems_[appset] != loaded.status.message && log_) {
      log_("standby: appset=" + appset + " cannot be shown from the shared state: " +
           loaded.status.message + "; its last good view stays");
    }
    problems_[appset] = loaded.status.message;
    return;
  }
  problems_.erase(appset);
  engine::StoredAppSetParts parts;
  parts.name = appset;
  parts.revision = highest;
  for (auto& [app, record] : loaded.value.statuses) parts.statuses[app] = std::move(record.value);
  for (auto& [app, record] : loaded.value.specs) parts.specs[app] = std::move(record.value);
  for (auto& [app, record] : loaded.value.operations) {
    parts.operations[app] = std::move(record.value);
  }
  if (loaded.value.conditions) parts.conditions = std::move(loaded.value.conditions->value);
  if (loaded.value.rollout) parts.rollout = std::move(loaded.value.rollout->value);
  static const engine::Json kNoSpec;
  auto spec = specs_.find(appset);
  engine::Issues issues;
  engine::SharedAppSetView view =
      engine::SharedAppSetViewOf(parts, spec != specs_.end() ? spec->second : kNoSpec, issues);
  if (!issues.empty() && log_) {
    log_("standby: appset=" + appset + ": " + engine::FormatIssue(issues.front()) +
         (issues.size() > 1 ? " (and " + std::to_string(issues.size() - 1) + " more)" : ""));
  }
  board_.PublishReconcile(appset, view.appset, std::move(view.applications));
  shown_.insert(appset);
}

}  // namespace fleetwave::cli
