#include "metrics/app_series.h"

#include <array>

#include <prometheus/client_metric.h>
#include <prometheus/metric_type.h>

#include "engine/progress/workload.h"
#include "engine/rollingsync/max_failures.h"

namespace fleetwave::metrics {
namespace {

using engine::Json;

// `value` when it is one of `allowed`, else `fallback`: label values stay a closed set, and the
// result points at a constant (an app's labels are string_views of these).
template <std::size_t N>
std::string_view OneOf(std::string_view value, const std::array<std::string_view, N>& allowed,
                       std::string_view fallback) {
  for (std::string_view a : allowed) {
    if (value == a) return a;
  }
  return fallback;
}
std::string_view HealthState(std::string_view s) {
  static constexpr std::array<std::string_view, 6> kHealth{"Healthy",   "Progressing", "Degraded",
                                                           "Suspended", "Missing",     "Unknown"};
  return OneOf(s, kHealth, "Unknown");
}
std::string_view SyncState(std::string_view s) {
  static constexpr std::array<std::string_view, 3> kSync{"Synced", "OutOfSync", "Unknown"};
  return OneOf(s, kSync, "Unknown");
}
std::string_view RolloutState(std::string_view s) {
  static constexpr std::array<std::string_view, 4> kRollout{"Waiting", "Pending", "Progressing",
                                                            "Healthy"};
  return OneOf(s, kRollout, "Unknown");
}

// The string at `path`, or "" (a malformed field reads as absent), without a copy.
const std::string& StringRef(const Json& object, std::initializer_list<std::string_view> path) {
  static const std::string empty;
  const Json* v = engine::FieldAt(object, path);
  return v != nullptr && v->is_string() ? v->get_ref<const std::string&>() : empty;
}

// clusters.find(name) for names that come in sorted order, as the engine sorts its
// Applications: one string comparison per app instead of a tree search. Any other order is
// still answered right, by a search.
class SortedLookup {
 public:
  explicit SortedLookup(const std::map<std::string, std::string>& map)
      : map_(map), next_(map.begin()) {}

  const std::string* Find(const std::string& name) {
    if (next_ != map_.end() && next_->first == name) return &(next_++)->second;
    if (map_.empty()) return nullptr;
    auto it = next_ != map_.end() && next_->first < name ? map_.lower_bound(name) : map_.find(name);
    if (it == map_.end() || it->first != name) return nullptr;
    next_ = std::next(it);
    return &it->second;
  }

 private:
  const std::map<std::string, std::string>& map_;
  std::map<std::string, std::string>::const_iterator next_;
};

prometheus::ClientMetric Series(std::initializer_list<std::pair<const char*, std::string_view>>
                                    labels /* sorted by name, as prometheus-cpp renders them */) {
  prometheus::ClientMetric m;
  m.label.reserve(labels.size());
  for (const auto& [name, value] : labels) m.label.push_back({name, std::string(value)});
  m.gauge.value = 1;
  return m;
}

}  // namespace

EntriesSummary AppSeries::Observe(const std::string& appset, const Json& entries,
                                  const std::vector<std::shared_ptr<const Json>>& applications,
                                  const std::map<std::string, std::string>& clusters,
                                  const ChangedEntries* changed) {
  std::lock_guard<std::mutex> lock(mu_);
  Set& s = sets_.try_emplace(appset).first->second;
  const uint64_t call = ++s.calls;
  const std::size_t n = entries.is_array() ? entries.size() : 0;
  // Only the named entries, when the slots hold what that source's previous publish had.
  bool hinted = changed != nullptr && changed->source != 0 && changed->positions != nullptr &&
                s.origin_source == changed->source && s.origin_seq + 1 == changed->seq &&
                s.entries.size() == n;
  if (changed != nullptr) {
    s.origin_source = changed->source;
    s.origin_seq = changed->seq;
  } else {
    s.origin_source = s.origin_seq = 0;
  }
  // Every position is applied in order, changed or not, so that of equal names the last wins
  // as it always did; an unchanged one costs comparisons of what its slot read last time.
  std::size_t entries_seen = 0;  // distinct apps, to know whether any went away
  std::size_t apps_seen = 0;

  EntriesSummary summary;
  s.entries.resize(n);
  // Reads entry i into its slot; false when it names another app than its slot did (the
  // list changed shape: a hinted publish then reads every entry).
  auto read_entry = [&](std::size_t i) {
    const Json& e = entries[i];
    EntrySlot& slot = s.entries[i];
    // Every entry's failure counts, named or not (as the set's failure count always did).
    slot.failed = engine::IsFailedAppMessage(StringRef(e, {"message"}));
    if (slot.failed) slot.step = StringRef(e, {"step"});
    const std::string& name = StringRef(e, {"application"});
    if (name.empty()) {
      const bool was_named = slot.named;
      slot.named = false;
      return !(hinted && was_named);
    }
    const std::string& status = StringRef(e, {"status"});
    const std::string& when = StringRef(e, {"lastTransitionTime"});
    const bool same_app = slot.named && slot.app->first == name;
    if (!same_app && hinted) return false;
    if (!same_app) {
      slot.app = s.apps.try_emplace(name).first;
      slot.named = true;
    }
    if (!same_app || slot.status != status) {
      slot.status = status;
      slot.rollout = RolloutState(status);
    }
    if (!same_app || slot.transition != when) {
      slot.transition = when;
      slot.transition_time = engine::ParseRfc3339(when);
    }
    App& a = slot.app->second;
    if (a.rollout.empty()) ++s.with_rollout;
    a.rollout = slot.rollout;
    if (a.entry_seen != call) {
      a.entry_seen = call;
      ++entries_seen;
    }
    return true;
  };
  if (hinted) {
    for (std::size_t i : *changed->positions) {
      if (i < n && !read_entry(i)) {
        hinted = false;  // every entry below, as without a hint
        break;
      }
    }
  }
  if (!hinted) {
    for (std::size_t i = 0; i < n; ++i) read_entry(i);
  }
  // The latest transition and the failures over the slots (what each read last): no JSON is
  // read here, so a publish that changed one entry does not read a thousand.
  std::optional<engine::Time>& latest = summary.latest_transition;
  for (const EntrySlot& slot : s.entries) {
    if (slot.named && slot.transition_time && (!latest || *slot.transition_time > *latest)) {
      latest = slot.transition_time;
    }
    if (slot.failed) ++summary.failures_by_step[slot.step];
  }

  // The same map as the slots were resolved with: an unchanged Application keeps its cluster
  // (no lookup: walking a 1,000-app map per publish was 5 % of a rollout's CPU at N=1,000).
  const bool same_clusters =
      changed != nullptr && changed->source != 0 && changed->clusters_version != 0 &&
      s.clusters_source == changed->source && s.clusters_version == changed->clusters_version;
  s.clusters_source = changed != nullptr ? changed->source : 0;
  s.clusters_version = changed != nullptr ? changed->clusters_version : 0;
  SortedLookup resolved(clusters);
  s.applications.resize(applications.size());
  for (std::size_t i = 0; i < applications.size(); ++i) {
    const std::shared_ptr<const Json>& json = applications[i];
    AppSlot& slot = s.applications[i];
    if (json == nullptr) {
      slot = AppSlot{};
      continue;
    }
    // A pointer without an owner (AppSetObserved's borrowed values) may be reused for another
    // value next time: only an owned one is trusted to mean "unchanged".
    const bool owned = json.use_count() > 0;
    if (!owned || slot.json != json) {
      slot.json = owned ? json : nullptr;
      const std::string& name = StringRef(*json, {"metadata", "name"});
      if (name.empty()) {
        slot.named = false;
        continue;
      }
      if (!slot.named || slot.app->first != name) {
        slot.app = s.apps.try_emplace(name).first;
        slot.named = true;
      }
      const std::string& destination = StringRef(*json, {"spec", "destination", "name"});
      slot.destination =
          destination.empty() ? StringRef(*json, {"spec", "destination", "server"}) : destination;
      slot.health = HealthState(StringRef(*json, {"status", "health", "status"}));
      slot.sync = SyncState(StringRef(*json, {"status", "sync", "status"}));
      slot.resolved = false;
    }
    if (!slot.named) continue;
    // The resolved context may change while the Application stays the same (a kubeconfig
    // change): looked up again whenever the map may differ.
    if (!same_clusters || !slot.resolved) {
      const std::string* given = resolved.Find(slot.app->first);
      slot.cluster = given != nullptr && !given->empty() ? *given : slot.destination;
      slot.resolved = true;
    }
    const std::string& cluster = slot.cluster;
    App& a = slot.app->second;
    if (a.health.empty()) ++s.with_app;
    if (a.cluster != cluster) a.cluster = cluster;
    a.health = slot.health;
    a.sync = slot.sync;
    if (a.app_seen != call) {
      a.app_seen = call;
      ++apps_seen;
    }
  }

  // Apps whose entry or Application went: only then a pass over the set's apps. No slot refers
  // to an app erased here (every slot was visited above and names an app seen in this call).
  // A hinted publish read only its changed entries, whose apps are the ones their slots named:
  // no app's entry went.
  if ((!hinted && entries_seen < s.with_rollout) || apps_seen < s.with_app) {
    for (auto it = s.apps.begin(); it != s.apps.end();) {
      App& a = it->second;
      if (!hinted && !a.rollout.empty() && a.entry_seen != call) {
        a.rollout = {};
        --s.with_rollout;
      }
      if (!a.health.empty() && a.app_seen != call) {
        a = App{a.rollout, {}, {}, {}, a.entry_seen, a.app_seen};
        --s.with_app;
      }
      it = a.rollout.empty() && a.health.empty() ? s.apps.erase(it) : std::next(it);
    }
  }
  return summary;
}

void AppSeries::Erase(const std::string& appset) {
  std::lock_guard<std::mutex> lock(mu_);
  sets_.erase(appset);
}

std::vector<prometheus::MetricFamily> AppSeries::Collect() const {
  // Names, help texts and label names as metrics.cc registered these families when they were
  // prometheus-cpp Gauges (the product's contract, /work/shared/spec/product.md).
  prometheus::MetricFamily health{"fleetwave_application_health",
                                  "State set: the health of each Application (value 1).",
                                  prometheus::MetricType::Gauge,
                                  {}};
  prometheus::MetricFamily rollout{"fleetwave_application_rollout_status",
                                   "State set: each Application's RollingSync status (value 1).",
                                   prometheus::MetricType::Gauge,
                                   {}};
  prometheus::MetricFamily sync{"fleetwave_application_sync_status",
                                "State set: the sync status of each Application (value 1).",
                                prometheus::MetricType::Gauge,
                                {}};
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [appset, s] : sets_) {
      for (const auto& [app, a] : s.apps) {
        if (!a.rollout.empty()) {
          rollout.metric.push_back(
              Series({{"application", app}, {"appset", appset}, {"status", a.rollout}}));
        }
        if (!a.health.empty()) {
          health.metric.push_back(Series({{"application", app},
                                          {"appset", appset},
                                          {"cluster", a.cluster},
                                          {"health", a.health}}));
          sync.metric.push_back(Series({{"application", app},
                                        {"appset", appset},
                                        {"cluster", a.cluster},
                                        {"status", a.sync}}));
        }
      }
    }
  }
  std::vector<prometheus::MetricFamily> out;
  for (auto* f : {&health, &rollout, &sync}) {
    if (!f->metric.empty()) out.push_back(std::move(*f));
  }
  return out;
}

}  // namespace fleetwave::metrics
