// Feeds a cluster client's request and watch-restart reports into Metrics
// (fleetwave_cluster_requests_total, fleetwave_cluster_request_duration_seconds,
// fleetwave_watch_restarts_total).
//
// The layering keeps metrics/ from including cluster-clients/ (and cluster-clients/ from
// including metrics/), so the adapter is a template over the observer interface; the daemon,
// which sees both, instantiates it:
//   metrics::RequestObserverAdapter<clients::RequestObserver> observer(&metrics);
//   client_options.observer = &observer;
// `Interface` must declare the two pure virtual functions overridden below
// (request_observer_adapter_test.cc instantiates it with clients::RequestObserver).
//
// Thread-safety: as Metrics (any thread).
#pragma once

#include <string>

#include "metrics/metrics.h"

namespace fleetwave::metrics {

template <typename Interface>
class RequestObserverAdapter final : public Interface {
 public:
  // `metrics` must outlive the adapter.
  explicit RequestObserverAdapter(Metrics* metrics) : metrics_(metrics) {}

  void OnRequest(const std::string& cluster, const std::string& verb, int code,
                 double seconds) override {
    metrics_->ClusterRequest(cluster, verb, code, seconds);
  }
  void OnWatchRestart(const std::string& cluster, const std::string& resource) override {
    metrics_->WatchRestart(cluster, resource);
  }

 private:
  Metrics* metrics_;
};

}  // namespace fleetwave::metrics
