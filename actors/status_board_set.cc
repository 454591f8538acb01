// A set's JSON on the StatusBoard, kept in parts (status_board.h, SetJson): the head and each
// status.applicationStatus entry, compared and copied one part at a time, and the whole JSON
// assembled only when a reader asks for it.
#include <utility>

#include "actors/status_board.h"

namespace fleetwave::actors {
namespace {

using engine::Json;

// The array at status.applicationStatus, or nullptr.
const Json* ListOf(const Json& appset) {
  if (!appset.is_object()) return nullptr;
  const auto status = appset.find("status");
  if (status == appset.end() || !status->is_object()) return nullptr;
  const auto list = status->find("applicationStatus");
  return list != status->end() && list->is_array() ? &*list : nullptr;
}

const std::string& AppOf(const Json& entry) {
  static const std::string kNone;
  if (!entry.is_object()) return kNone;
  const auto app = entry.find("application");
  return app != entry.end() && app->is_string() ? app->get_ref<const std::string&>() : kNone;
}

// Whether `head` is `appset` without its status.applicationStatus (`split`), or all of it.
// Compares member by member: the list is never looked at.
bool HeadEquals(const Json& head, const Json& appset, bool split) {
  if (!split) return head == appset;
  if (!head.is_object() || head.size() != appset.size()) return false;
  for (auto it = appset.begin(); it != appset.end(); ++it) {
    const auto mine = head.find(it.key());
    if (mine == head.end()) return false;
    if (it.key() != "status") {
      if (!(*mine == it.value())) return false;
      continue;
    }
    const Json& status = it.value();
    if (!mine->is_object() || mine->size() + 1 != status.size()) return false;
    for (auto s = status.begin(); s != status.end(); ++s) {
      if (s.key() == "applicationStatus") continue;
      const auto field = mine->find(s.key());
      if (field == mine->end() || !(*field == s.value())) return false;
    }
  }
  return true;
}

Json HeadOf(const Json& appset, bool split) {
  if (!split) return appset;
  Json head = Json::object();
  for (auto it = appset.begin(); it != appset.end(); ++it) {
    if (it.key() != "status") {
      head[it.key()] = it.value();
      continue;
    }
    Json status = Json::object();
    for (auto s = it.value().begin(); s != it.value().end(); ++s) {
      if (s.key() != "applicationStatus") status[s.key()] = s.value();
    }
    head["status"] = std::move(status);
  }
  return head;
}

// Each part's share of the set's size (SetJson::bytes): a sum, so a publish adjusts it by what
// changed.
constexpr size_t kListBytes = 22;  // ,"applicationStatus":[]
size_t EntryBytes(const Json& entry) { return ApproximateJsonBytes(entry) + 1; }

}  // namespace

StatusBoard::SetDiff StatusBoard::SetJsonOf(const SetJsonPtr& before, const Json& appset,
                                            const std::vector<size_t>* changed) {
  SetDiff diff;
  const Json* list = ListOf(appset);
  const bool split = list != nullptr;

  const bool head_equal =
      before && before->has_list == split && HeadEquals(*before->head, appset, split);
  JsonPtr head = head_equal ? before->head : std::make_shared<const Json>(HeadOf(appset, split));
  diff.head_changed = !head_equal;

  // Entries in place: the one at the same index, reused when equal. Equal entries name the
  // same app; a changed one that names another app means the list changed shape.
  static const std::vector<JsonPtr> kNone;
  const std::vector<JsonPtr>& old = before ? *before->entries : kNone;
  const size_t n = split ? list->size() : 0;
  auto entries = std::make_shared<std::vector<JsonPtr>>();
  diff.reshaped = !before || old.size() != n;
  long long entry_bytes_delta = 0;
  // Entry i against the one published at i: reused when equal, else a new snapshot.
  auto compare = [&](size_t i) {
    const Json& e = (*list)[i];
    if (i < old.size() && *old[i] == e) return;
    auto fresh = std::make_shared<const Json>(e);
    if (!diff.reshaped) {
      const std::string& app = AppOf(e);
      if (app != AppOf(*old[i])) {
        diff.reshaped = true;
      } else {
        entry_bytes_delta +=
            static_cast<long long>(EntryBytes(e)) - static_cast<long long>(EntryBytes(*old[i]));
        diff.entries.push_back(SetDiff::Entry{app, old[i], fresh});
      }
    }
    (*entries)[i] = std::move(fresh);
  };
  if (changed != nullptr && !diff.reshaped && split && before->has_list) {
    // The publisher says which entries may differ: the others are the ones published.
    *entries = old;
    for (size_t i : *changed) {
      if (i < n) compare(i);
    }
  } else {
    entries->resize(n);
    for (size_t i = 0; i < n; ++i) {
      (*entries)[i] = i < old.size() ? old[i] : nullptr;
      compare(i);
    }
  }
  if (!diff.head_changed && !diff.reshaped && diff.entries.empty()) return diff;  // equal

  auto next = std::make_shared<SetJson>();
  next->has_list = split;
  if (diff.reshaped) {
    next->bytes = ApproximateJsonBytes(*head) + (split ? kListBytes : 0);
    for (const JsonPtr& e : *entries) next->bytes += EntryBytes(*e);
  } else {
    next->bytes = static_cast<size_t>(static_cast<long long>(before->bytes) + entry_bytes_delta);
    if (diff.head_changed) {
      next->bytes = next->bytes - ApproximateJsonBytes(*before->head) + ApproximateJsonBytes(*head);
    }
  }
  next->head = head;
  next->entries = entries;
  next->full = std::make_shared<const LazyJson>([head, entries, split] {
    Json full = *head;
    if (split) {
      Json list = Json::array();
      list.get_ref<Json::array_t&>().reserve(entries->size());
      for (const JsonPtr& e : *entries) list.push_back(*e);
      full["status"]["applicationStatus"] = std::move(list);
    }
    return full;
  });
  diff.next = std::move(next);
  return diff;
}

void StatusBoard::SetAppSetLocked(const std::string& name, const SetDiff& diff) {
  SetJsonPtr& slot = appsets_[name];
  feed_.Record(kAppSets, slot ? ChangeType::kModified : ChangeType::kAdded, name,
               FeedObject(diff.next->full), diff.next->bytes);
  slot = diff.next;
}

}  // namespace fleetwave::actors
