// The StatusBoard's fleet view: each set's rows and summary, derived from what the set published
// (status_board.h). Kept apart from the publishing code it follows.
#include <utility>

#include "actors/status_board.h"
#include "engine/appset_summary.h"

namespace fleetwave::actors {

void StatusBoard::RefreshViews(const std::string& appset) {
  // 1. Under the lock, pointers only: the set's JSON, its apps, its version and its old rows.
  JsonPtr set_json;
  uint64_t version = 0;
  std::vector<JsonPtr> apps;
  std::map<std::string, Row, std::less<>> old_rows;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto set = appsets_.find(appset);
    auto owned = set_apps_.find(appset);
    if (set == appsets_.end() && owned == set_apps_.end()) {
      DropViewsLocked(appset);
      return;
    }
    if (set != appsets_.end()) set_json = set->second;
    if (owned != set_apps_.end()) {
      version = owned->second.version;
      apps.reserve(owned->second.apps.size());
      for (const auto& [_, json] : owned->second.apps) apps.push_back(json);
    }
    if (auto names = set_rows_.find(appset); names != set_rows_.end()) {
      for (const std::string& name : names->second) {
        if (auto r = rows_.find(name); r != rows_.end()) old_rows.emplace(name, r->second);
      }
    }
  }

  // 2. Without the lock: the rows (a new snapshot only for a row that changed) and the summary.
  static const engine::Json kNoSet = engine::Json::object();
  const engine::Json& set = set_json ? *set_json : kNoSet;
  std::vector<const engine::Json*> pointers;
  pointers.reserve(apps.size());
  for (const JsonPtr& app : apps) pointers.push_back(app.get());
  std::vector<engine::AppRow> rows = engine::AppRowsOf(set, pointers);
  for (engine::AppRow& row : rows) row.appset = appset;  // the owner as the board knows it
  engine::Json summary_json = engine::SummaryJson(engine::Summarize(set, rows, kSummaryAttention));
  summary_json["metadata"]["name"] = appset;
  std::vector<std::pair<std::string, Row>> next;
  next.reserve(rows.size());
  for (engine::AppRow& row : rows) {
    if (auto old = old_rows.find(row.name); old != old_rows.end() && *old->second.row == row) {
      next.emplace_back(row.name, old->second);
      continue;
    }
    auto json = std::make_shared<const engine::Json>(engine::AppRowJson(row));
    std::string name = row.name;
    next.emplace_back(std::move(name),
                      Row{std::make_shared<const engine::AppRow>(std::move(row)), std::move(json)});
  }

  // 3. Under the lock: commit unless the set changed since 1 (its later change derives again).
  std::lock_guard<std::mutex> lock(mu_);
  auto current_set = appsets_.find(appset);
  auto owned = set_apps_.find(appset);
  const JsonPtr now_set = current_set != appsets_.end() ? current_set->second : nullptr;
  const uint64_t now_version = owned != set_apps_.end() ? owned->second.version : 0;
  if (now_set != set_json || now_version != version) return;

  std::set<std::string>& names = set_rows_[appset];
  std::set<std::string> next_names;
  for (auto& [name, row] : next) next_names.insert(name);
  for (const std::string& name : names) {
    if (next_names.count(name)) continue;
    auto r = rows_.find(name);
    if (r == rows_.end() || r->second.row->appset != appset) continue;  // moved to another set
    RecordLocked(kRows, name, r->second.json, nullptr);
    rows_.erase(r);
  }
  for (auto& [name, row] : next) {
    auto r = rows_.find(name);
    JsonPtr before = r != rows_.end() ? r->second.json : nullptr;
    RecordLocked(kRows, name, before, row.json);
    if (r != rows_.end() && r->second.row->appset != appset) {
      if (auto other = set_rows_.find(r->second.row->appset); other != set_rows_.end()) {
        other->second.erase(name);
      }
    }
    rows_.insert_or_assign(name, std::move(row));
  }
  names = std::move(next_names);

  auto summary = summaries_.find(appset);
  JsonPtr before = summary != summaries_.end() ? summary->second : nullptr;
  if (!before || !(*before == summary_json)) {
    auto json = std::make_shared<const engine::Json>(std::move(summary_json));
    RecordLocked(kSummaries, appset, before, json);
    summaries_[appset] = std::move(json);
  }
  ++sequence_;
}

void StatusBoard::DropViewsLocked(const std::string& appset) {
  if (auto names = set_rows_.find(appset); names != set_rows_.end()) {
    for (const std::string& name : names->second) {
      auto r = rows_.find(name);
      if (r == rows_.end() || r->second.row->appset != appset) continue;
      RecordLocked(kRows, name, r->second.json, nullptr);
      rows_.erase(r);
    }
    set_rows_.erase(names);
  }
  if (auto summary = summaries_.find(appset); summary != summaries_.end()) {
    RecordLocked(kSummaries, appset, summary->second, nullptr);
    summaries_.erase(summary);
  }
}

std::vector<StatusBoard::Row> StatusBoard::Rows() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Row> out;
  out.reserve(rows_.size());
  for (const auto& [_, row] : rows_) out.push_back(row);
  return out;
}

std::vector<StatusBoard::Row> StatusBoard::RowsOf(const std::string& appset) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Row> out;
  auto names = set_rows_.find(appset);
  if (names == set_rows_.end()) return out;
  out.reserve(names->second.size());
  for (const std::string& name : names->second) {
    if (auto r = rows_.find(name); r != rows_.end()) out.push_back(r->second);
  }
  return out;
}

StatusBoard::JsonPtr StatusBoard::Summary(const std::string& appset) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = summaries_.find(appset);
  return it == summaries_.end() ? nullptr : it->second;
}

std::vector<StatusBoard::JsonPtr> StatusBoard::Summaries() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<JsonPtr> out;
  out.reserve(summaries_.size());
  for (const auto& [_, json] : summaries_) out.push_back(json);
  return out;
}

}  // namespace fleetwave::actors
