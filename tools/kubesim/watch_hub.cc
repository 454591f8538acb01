#include "tools/kubesim/watch_hub.h"

#include <algorithm>

#include "tools/kubesim/conversion.h"
#include "tools/kubesim/table.h"

namespace fleetwave::kubesim {

const char* EventTypeName(EventType t) {
  switch (t) {
    case EventType::kAdded:
      return "ADDED";
    case EventType::kModified:
      return "MODIFIED";
    case EventType::kDeleted:
      return "DELETED";
  }
  return "ERROR";
}

WatchHub::WatchHub(std::size_t max_events, Duration window)
    : max_events_(max_events), window_(window) {}

std::string WatchHub::EventLine(const char* type, const Json& object) {
  Json e = {{"type", type}, {"object", object}};
  return e.dump() + "\n";
}

Json WatchHub::Present(const WatchFilter& filter, Json stored, TimePoint now) {
  const ResourceType& t = Resource(filter.resource);
  Json served = ToServedVersion(t, std::move(stored), filter.version);
  if (!filter.table) return served;
  Json meta = {{"resourceVersion", served["metadata"].value("resourceVersion", "")}};
  return ToTable(t, {served}, meta, now, filter.include_object);
}

bool WatchHub::Matches(const WatchFilter& f, ResourceId resource, const Json& object) {
  if (f.resource != resource) return false;
  if (!f.ns.empty()) {
    const auto& md = object["metadata"];
    if (!md.contains("namespace") || md["namespace"] != f.ns) return false;
  }
  return f.labels.Matches(object) && f.fields.Matches(object);
}

void WatchHub::Publish(EventType type, ResourceId resource, std::uint64_t rv, const Json& object,
                       const Json* previous, TimePoint now) {
  // Compaction is lazy (here and before a resume), so a simulator at rest need not wake
  // for it.
  Compact(now);
  if (max_events_ > 0) {
    history_.push_back({rv, now, type, resource, Json::to_cbor(object)});
    if (history_.size() > max_events_) {
      compacted_rv_ = history_.front().rv;
      history_.pop_front();
    }
  }
  // Copy: a sink may close its watch (and so mutate watches_) while we deliver.
  std::vector<std::pair<Watch, EventType>> targets;
  for (const auto& w : watches_) {
    bool now_matches = Matches(w.filter, resource, object);
    bool was_matching = type == EventType::kModified && previous
                            ? Matches(w.filter, resource, *previous)
                            : now_matches;
    if (now_matches && was_matching)
      targets.emplace_back(w, type);
    else if (now_matches)
      targets.emplace_back(w, EventType::kAdded);
    else if (was_matching)
      targets.emplace_back(w, EventType::kDeleted);
  }
  ++events_published_;
  // One serialisation per distinct form of the event, however many watchers share it: the
  // line depends only on the event type seen, the served version and the Table options.
  struct Form {
    EventType type;
    const WatchFilter* filter;
    std::string line;
  };
  std::vector<Form> forms;
  for (const auto& [w, t] : targets) {
    const Form* form = nullptr;
    for (const auto& f : forms)
      if (f.type == t && f.filter->version == w.filter.version &&
          f.filter->table == w.filter.table && f.filter->include_object == w.filter.include_object)
        form = &f;
    if (!form) {
      // An object leaving the selection is reported in its last matching form, at the new
      // resourceVersion.
      Json shown = t == EventType::kDeleted && type == EventType::kModified ? *previous : object;
      shown["metadata"]["resourceVersion"] = object["metadata"]["resourceVersion"];
      ++lines_serialised_;
      forms.push_back(
          {t, &w.filter, EventLine(EventTypeName(t), Present(w.filter, std::move(shown), now))});
      form = &forms.back();
    }
    ++lines_sent_;
    w.sink->Send(form->line);
  }
}

bool WatchHub::WantsPrevious(ResourceId resource) const {
  for (const auto& w : watches_)
    if (w.filter.resource == resource && (!w.filter.labels.empty() || !w.filter.fields.empty()))
      return true;
  return false;
}

bool WatchHub::Replay(std::uint64_t rv, const WatchFilter& filter, WatchSink& sink,
                      TimePoint now) const {
  if (rv < compacted_rv_) return false;
  for (const auto& e : history_) {
    if (e.rv <= rv || e.resource != filter.resource) continue;
    Json object = Json::from_cbor(e.object);
    if (!Matches(filter, e.resource, object)) continue;
    ++lines_serialised_;
    ++lines_sent_;
    sink.Send(EventLine(EventTypeName(e.type), Present(filter, std::move(object), now)));
  }
  return true;
}

std::uint64_t WatchHub::Add(WatchFilter filter, std::shared_ptr<WatchSink> sink) {
  std::uint64_t id = next_id_++;
  watches_.push_back({id, std::move(filter), std::move(sink)});
  return id;
}

void WatchHub::Remove(std::uint64_t id) {
  watches_.erase(
      std::remove_if(watches_.begin(), watches_.end(), [id](const Watch& w) { return w.id == id; }),
      watches_.end());
}

void WatchHub::Compact(TimePoint now) {
  while (!history_.empty() && now - history_.front().time > window_) {
    compacted_rv_ = history_.front().rv;
    history_.pop_front();
  }
}

void WatchHub::CompactAll(std::uint64_t current_rv) {
  compacted_rv_ = current_rv;
  history_.clear();
}

}  // namespace fleetwave::kubesim
