// The per-workload series, kept in a table of their own and rendered at scrape time (a
// prometheus::Collectable), instead of prometheus-cpp Gauges:
//   fleetwave_workload_progress_deadline_exceeded{cluster,namespace,kind,name}  gauge 0/1
//   fleetwave_workload_progressing{cluster,namespace,kind,name,reason}          state set
// Every Deployment an app owns is a workload here, so at fleet scale there are as many as apps.
// As Gauges each held two series with their label maps (about 5 KB per workload, the largest
// metrics holder in the heap profile at N=500 / M=5,000, docs/benchmarks.md), and every change
// of reason deleted a series by a linear scan of its family (prometheus-cpp's Family::Remove)
// under the metrics lock: O(workloads) per Deployment condition change during a rollout. Here a
// workload is one map entry and a change is a map update. The exposition is the one the Gauge
// families gave (tests/metrics/workload_series_test.cc).
//
// Thread-safety: every method may be called from any thread (one mutex of its own).
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

namespace fleetwave::metrics {

class WorkloadSeries : public prometheus::Collectable {
 public:
  // The workload's state; an empty reason reads as "Unknown".
  void Set(const std::string& cluster, const std::string& ns, const std::string& kind,
           const std::string& name, const std::string& reason, bool exceeded);
  void Erase(const std::string& cluster, const std::string& ns, const std::string& kind,
             const std::string& name);
  // Every workload of the cluster goes.
  void EraseCluster(const std::string& cluster);

  // The two families, in the order above, each only when it has a series (as prometheus-cpp
  // leaves out an empty family), sorted by cluster, namespace, kind and name.
  std::vector<prometheus::MetricFamily> Collect() const override;

  std::size_t size() const;

 private:
  using Key = std::tuple<std::string, std::string, std::string>;  // namespace, kind, name
  struct State {
    const std::string* reason;  // into reasons_: a handful of distinct values, kept once
    bool exceeded;
  };
  mutable std::mutex mu_;
  std::set<std::string, std::less<>> reasons_;
  std::map<std::string, std::map<Key, State>> clusters_;
};

}  // namespace fleetwave::metrics
