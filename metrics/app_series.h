// The per-app series of every ApplicationSet, kept in a table of their own and rendered at
// scrape time (a prometheus::Collectable), instead of one prometheus-cpp Gauge per series:
//   fleetwave_application_health{appset,application,cluster,health}        state set
//   fleetwave_application_rollout_status{appset,application,status}          state set
//   fleetwave_application_sync_status{appset,application,cluster,status}     state set
// prometheus-cpp deletes a series by a linear scan of its family (Family::Remove), so keeping
// 20,000 apps' states there made every state change cost O(series) (docs/benchmarks.md, the
// initial rollout at N=2,000). Here a change is a map update, and a publish costs per changed
// app: an Application that comes again as the same shared pointer (the engine's memo reuses it
// while nothing it shows changed) is not read again, and an app whose status entry shows the
// same status and transition time as last time changes nothing. The exposition is the same as
// the Gauge families gave (tests/metrics/app_series_exposition_test.cc).
//
// Thread-safety: every method may be called from any thread (one mutex of its own, so a scrape
// never waits for Metrics' lock).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include "engine/time.h"
#include "engine/yaml_json.h"

namespace fleetwave::metrics {

// Which entries a publish changed, as its publisher says (actors::PublishOrigin's fields):
// `positions` (ascending) are the only entries that may differ from the same source's publish
// seq - 1; null: any may.
struct ChangedEntries {
  uint64_t source = 0;
  uint64_t seq = 0;
  const std::vector<std::size_t>* positions = nullptr;
  // The same source's calls with the same non-zero version pass the same `clusters` map: an
  // Application that comes again as the same pointer keeps the cluster it resolved to.
  uint64_t clusters_version = 0;
};

// What a publish's entries say of the whole set, from what each entry's slot read.
struct EntriesSummary {
  std::optional<engine::Time> latest_transition;  // the latest lastTransitionTime, if any
  // Entries whose message reports a failed app (engine::IsFailedAppMessage), by their `step`.
  std::map<std::string, long long> failures_by_step;
};

class AppSeries : public prometheus::Collectable {
 public:
  // Makes the set's per-app series those of this publish: `entries` the status's
  // applicationStatus (not an array reads as none), `applications` the Argo Applications,
  // `clusters` the resolved kubeconfig context per app (metrics.h, AppSetObserved). Returns
  // what the entries say of the set (EntriesSummary).
  // With `changed` from the source whose previous publish this table took, only the named
  // entries are read; the others keep what they read last time.
  EntriesSummary Observe(const std::string& appset, const engine::Json& entries,
                         const std::vector<std::shared_ptr<const engine::Json>>& applications,
                         const std::map<std::string, std::string>& clusters,
                         const ChangedEntries* changed = nullptr);
  // Every series of the set goes.
  void Erase(const std::string& appset);

  // The three families, in the order above, each only when it has a series (as prometheus-cpp
  // leaves out an empty family); a family's series sorted by (appset, application).
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  // One app's labels. `rollout` is empty without an entry; `health`/`sync` are empty without an
  // Application. Both point at constant strings (the states' closed sets).
  struct App {
    std::string_view rollout;
    std::string cluster;
    std::string_view health;
    std::string_view sync;
    uint64_t entry_seen = 0;  // the last Observe call that saw its entry / its Application
    uint64_t app_seen = 0;
  };
  using Apps = std::map<std::string, App, std::less<>>;
  // Publish i's entry / Application at position i, as the previous publish left it: what it
  // read from the JSON, so an equal one costs string comparisons and an unchanged pointer none.
  struct EntrySlot {
    Apps::iterator app;  // valid while `named`
    bool named = false;
    std::string status;  // the raw strings the entry had, and what they read as
    std::string_view rollout;
    std::string transition;
    std::optional<engine::Time> transition_time;
    bool failed = false;  // the message reports a failed app (a prefix: no copy kept)
    std::string step;     // while `failed`: the entry's step
  };
  struct AppSlot {
    std::shared_ptr<const engine::Json> json;  // held so that the pointer cannot be reused
    Apps::iterator app;                        // valid while `named`
    bool named = false;
    std::string destination;  // spec.destination.name, else .server
    std::string cluster;      // what `destination` resolved to, valid while `resolved`
    bool resolved = false;
    std::string_view health;
    std::string_view sync;
  };
  struct Set {
    Apps apps;
    std::vector<EntrySlot> entries;
    std::vector<AppSlot> applications;
    std::size_t with_rollout = 0;  // apps with an entry / with an Application
    std::size_t with_app = 0;
    uint64_t calls = 0;
    uint64_t origin_source = 0;  // the publish the entries were last read from (ChangedEntries)
    uint64_t origin_seq = 0;
    uint64_t clusters_source = 0;  // the map the slots' clusters were resolved with
    uint64_t clusters_version = 0;
  };

  mutable std::mutex mu_;
  std::map<std::string, Set, std::less<>> sets_;
};

}  // namespace fleetwave::metrics
