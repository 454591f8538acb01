#include "metrics/workload_series.h"

#include <string_view>

#include <prometheus/client_metric.h>
#include <prometheus/metric_type.h>

namespace fleetwave::metrics {

void WorkloadSeries::Set(const std::string& cluster, const std::string& ns, const std::string& kind,
                         const std::string& name, const std::string& reason, bool exceeded) {
  std::lock_guard<std::mutex> lock(mu_);
  // Found without a copy: a reason is new only a handful of times in the daemon's life.
  const std::string_view wanted = reason.empty() ? std::string_view("Unknown") : reason;
  auto known = reasons_.find(wanted);
  if (known == reasons_.end()) known = reasons_.emplace(wanted).first;
  const std::string* r = &*known;
  clusters_[cluster].insert_or_assign(Key{ns, kind, name}, State{r, exceeded});
}

void WorkloadSeries::Erase(const std::string& cluster, const std::string& ns,
                           const std::string& kind, const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto c = clusters_.find(cluster);
  if (c == clusters_.end()) return;
  c->second.erase(Key{ns, kind, name});
  if (c->second.empty()) clusters_.erase(c);
}

void WorkloadSeries::EraseCluster(const std::string& cluster) {
  std::lock_guard<std::mutex> lock(mu_);
  clusters_.erase(cluster);
}

std::size_t WorkloadSeries::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::size_t n = 0;
  for (const auto& [cluster, workloads] : clusters_) n += workloads.size();
  return n;
}

std::vector<prometheus::MetricFamily> WorkloadSeries::Collect() const {
  // Names, help texts and label names as metrics.cc registered these families when they were
  // prometheus-cpp Gauges (the product's contract, /work/shared/spec/product.md).
  prometheus::MetricFamily exceeded{"fleetwave_workload_progress_deadline_exceeded",
                                    "1 when the workload's progress deadline is exceeded, else 0.",
                                    prometheus::MetricType::Gauge,
                                    {}};
  prometheus::MetricFamily progressing{
      "fleetwave_workload_progressing",
      "State set: the reason of each workload's Progressing condition (value 1).",
      prometheus::MetricType::Gauge,
      {}};
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [cluster, workloads] : clusters_) {
      for (const auto& [key, state] : workloads) {
        const auto& [ns, kind, name] = key;
        // Labels sorted by name, as prometheus-cpp renders them.
        prometheus::ClientMetric e;
        e.label = {{"cluster", cluster}, {"kind", kind}, {"name", name}, {"namespace", ns}};
        e.gauge.value = state.exceeded ? 1 : 0;
        prometheus::ClientMetric p;
        p.label = e.label;
        p.label.push_back({"reason", *state.reason});
        p.gauge.value = 1;
        exceeded.metric.push_back(std::move(e));
        progressing.metric.push_back(std::move(p));
      }
    }
  }
  std::vector<prometheus::MetricFamily> out;
  if (!exceeded.metric.empty()) out.push_back(std::move(exceeded));
  if (!progressing.metric.empty()) out.push_back(std::move(progressing));
  return out;
}

}  // namespace fleetwave::metrics
