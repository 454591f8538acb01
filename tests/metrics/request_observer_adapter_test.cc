// The adapter turns cluster-clients' RequestObserver reports into the request and watch metrics.
#include "metrics/request_observer_adapter.h"

#include <gtest/gtest.h>

#include "cluster-clients/request_observer.h"
#include "tests/metrics/exposition.h"

namespace fleetwave::metrics {
namespace {

TEST(RequestObserverAdapterTest, ReportsBecomeRequestAndWatchMetrics) {
  Metrics m;
  RequestObserverAdapter<clients::RequestObserver> adapter(&m);
  clients::RequestObserver* observer = &adapter;  // as ClientOptions holds it
  observer->OnRequest("east", "GET", 200, 0.03);
  observer->OnRequest("east", "GET", 200, 0.07);
  observer->OnRequest("east", "PATCH", 0, 30);
  observer->OnWatchRestart("east", "deployments");
  const auto all = testing::ParseSamples(m.Text());
  auto ok = testing::Find(all, "fleetwave_cluster_requests_total",
                          {{"cluster", "east"}, {"verb", "GET"}, {"code", "2xx"}});
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0].value, 2);
  EXPECT_EQ(testing::Find(all, "fleetwave_cluster_requests_total", {{"code", "error"}}).size(), 1u);
  auto sum =
      testing::Find(all, "fleetwave_cluster_request_duration_seconds_sum", {{"verb", "GET"}});
  ASSERT_EQ(sum.size(), 1u);
  EXPECT_DOUBLE_EQ(sum[0].value, 0.1);
  auto watch = testing::Find(all, "fleetwave_watch_restarts_total",
                             {{"cluster", "east"}, {"resource", "deployments"}});
  ASSERT_EQ(watch.size(), 1u);
  EXPECT_EQ(watch[0].value, 1);
}

}  // namespace
}  // namespace fleetwave::metrics
