// The StatusBoard's fleet view: each set's rows and summary, kept current with what the set
// publishes (status_board.h), one changed app at a time. Kept apart from the publishing code it
// follows.
#include <algorithm>
#include <utility>

#include "actors/status_board.h"
#include "engine/appset/appset_summary.h"
#include "engine/appset/board_entries.h"
#include "engine/progress/workload.h"
#include "engine/rollingsync/rollback_summary.h"

namespace fleetwave::actors {
namespace {

using engine::Json;

const std::string& EntryApp(const Json& entry) {
  static const std::string kNone;
  if (!entry.is_object()) return kNone;
  const auto app = entry.find("application");
  return app != entry.end() && app->is_string() ? app->get_ref<const std::string&>() : kNone;
}

// What a summary's JSON costs a watcher, near enough for the feed's byte budget: its fixed
// part, the strips and the attention rows.
size_t SummaryBytes(const engine::AppSetSummary& s) {
  size_t n = 700 + s.name.size() + s.rollout_message.size() + 200 * s.steps.size();
  for (const engine::StepSummary& step : s.steps) n += step.strip.size();
  for (const engine::AppRow& row : s.attention) {
    n += 120 + row.name.size() + row.appset.size() + row.cluster.size() + row.health.size() +
         row.sync.size() + row.rollout.size() + row.operation.size() + row.message.size();
    for (const auto& [k, v] : row.labels) n += k.size() + v.size() + 6;
  }
  // The analysis' measurements (issue 29): about 80 bytes each, plus the query.
  if (const engine::Json* m = engine::FieldAt(s.analysis, {"measurements"})) n += 80 * m->size();
  if (const engine::Json* q = engine::FieldAt(s.analysis, {"query"}))
    n += q->is_string() ? q->get<std::string>().size() : 0;
  // A rollback (issue 29): its fixed part and the few apps it names, with their messages.
  if (s.rollback.is_object()) n += 400 + 200 * engine::kRollbackNamedApps;
  return n;
}

}  // namespace

void StatusBoard::UpdateViewsLocked(const std::string& appset,
                                    const std::vector<std::string>& touched, const SetDiff* set) {
  const auto set_json = appsets_.find(appset);
  const auto owned = set_apps_.find(appset);
  if (set_json == appsets_.end() && owned == set_apps_.end()) {
    DropViewsLocked(appset);
    return;
  }
  auto [view, created] = views_.try_emplace(appset);
  SetView& v = view->second;
  if (!created && touched.empty() && set == nullptr) return;  // nothing of this set changed

  // The set-level part: the summary's head and the facts every row depends on.
  static const Json kNoSet = Json::object();
  const Json& head = set_json != appsets_.end() ? *set_json->second->head : kNoSet;
  bool every_row = created;
  if (created || (set != nullptr && set->head_changed)) {
    v.summary.SetAppSet(head);
    engine::RowFacts facts = engine::RowFactsOf(head);
    if (!v.has_facts || !(facts == v.facts)) every_row = true;
    v.facts = std::move(facts);
    v.has_facts = true;
  }

  // The apps whose rows may have changed: the touched ones and those whose entry changed.
  std::vector<std::string> names = touched;
  if (set != nullptr && set->next) {
    if (set->reshaped) {
      const std::vector<JsonPtr>& entries = *set->next->entries;
      std::vector<std::string_view> apps;
      apps.reserve(entries.size());
      for (const JsonPtr& e : entries) apps.push_back(EntryApp(*e));
      std::map<std::string, JsonPtr, std::less<>> entry_of;
      for (auto& [app, i] : engine::EntryOfEachApp(apps)) entry_of.emplace(app, entries[i]);
      for (const auto& [app, _] : v.entry_of) names.push_back(app);
      for (const auto& [app, _] : entry_of) names.push_back(app);
      v.entry_of = std::move(entry_of);
    } else {
      for (const SetDiff::Entry& e : set->entries) {
        if (e.app.empty()) continue;
        // The entry of an app that is listed twice is the last one's: replaced only if it was
        // this one (each entry is its own snapshot, so pointers tell them apart).
        auto it = v.entry_of.find(e.app);
        if (it != v.entry_of.end() && it->second == e.before) it->second = e.after;
        names.push_back(e.app);
      }
    }
  }
  std::set<std::string>& set_rows = set_rows_[appset];
  if (every_row) {
    names.clear();
    if (owned != set_apps_.end()) {
      for (const auto& [app, _] : owned->second.apps) names.push_back(app);
    }
    names.insert(names.end(), set_rows.begin(), set_rows.end());
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());

  for (const std::string& name : names) {
    std::optional<engine::AppRow> row;
    if (owned != set_apps_.end()) {
      if (auto app = owned->second.apps.find(name);
          app != owned->second.apps.end() && app->second) {
        const auto entry = v.entry_of.find(name);
        row = engine::AppRowOf(*app->second,
                               entry != v.entry_of.end() ? entry->second.get() : nullptr, v.facts,
                               appset);
      }
    }
    auto r = rows_.find(name);
    const bool mine = r != rows_.end() && r->second.row->appset == appset;
    if (!row) {
      if (mine) {
        RecordLocked(kRows, name, r->second.json, nullptr);
        rows_.erase(r);
      }
      set_rows.erase(name);
      v.summary.Remove(name);
      continue;
    }
    if (mine && *r->second.row == *row) continue;
    auto shared = std::make_shared<const engine::AppRow>(std::move(*row));
    auto json = std::make_shared<const Json>(engine::AppRowJson(*shared));
    if (r != rows_.end() && !mine) {  // the app moved here; its old set's view drops it itself
      if (auto other = set_rows_.find(r->second.row->appset); other != set_rows_.end()) {
        other->second.erase(name);
      }
    }
    RecordLocked(kRows, name, r != rows_.end() ? r->second.json : nullptr, json);
    v.summary.Put(shared);
    set_rows.insert(name);
    rows_.insert_or_assign(name, Row{std::move(shared), std::move(json)});
  }

  // The summary: counters and strips as they are now, published when they differ.
  auto summary = std::make_shared<engine::AppSetSummary>(engine::BoardSummaryOf(v.summary, appset));
  if (v.published && *v.published == *summary) return;
  const bool existed = v.published != nullptr;
  v.published = summary;
  FeedObject json(std::make_shared<const LazyJson>(
      [summary = v.published] { return engine::SummaryJson(*summary); }));
  feed_.Record(kSummaries, existed ? ChangeType::kModified : ChangeType::kAdded, appset, json,
               SummaryBytes(*summary));
  summaries_[appset] = std::move(json);
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
  auto view = views_.find(appset);
  if (auto summary = summaries_.find(appset); summary != summaries_.end()) {
    const size_t bytes =
        view != views_.end() && view->second.published ? SummaryBytes(*view->second.published) : 0;
    feed_.Record(kSummaries, ChangeType::kDeleted, appset, summary->second, bytes);
    summaries_.erase(summary);
  }
  if (view != views_.end()) views_.erase(view);
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
  FeedObject summary;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = summaries_.find(appset);
    if (it == summaries_.end()) return nullptr;
    summary = it->second;
  }
  return summary.shared();  // built outside the lock, once per version
}

std::vector<StatusBoard::JsonPtr> StatusBoard::Summaries() const {
  std::vector<FeedObject> summaries;
  {
    std::lock_guard<std::mutex> lock(mu_);
    summaries.reserve(summaries_.size());
    for (const auto& [_, json] : summaries_) summaries.push_back(json);
  }
  std::vector<JsonPtr> out;
  out.reserve(summaries.size());
  for (const FeedObject& json : summaries) out.push_back(json.shared());
  return out;
}

}  // namespace fleetwave::actors
