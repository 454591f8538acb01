// fleetwave_cluster_connections_opened_total, fleetwave_cluster_connections_open and
// fleetwave_cluster_responses_total{protocol} (issue 26): absent until the daemon names where
// its transport's counters come from, then read from it at every scrape.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "metrics/metrics.h"
#include "tests/metrics/exposition.h"

namespace fleetwave::metrics {
namespace {

double Sample(const Metrics& m, const std::string& name,
              const std::map<std::string, std::string>& labels = {}) {
  const auto samples = testing::Find(testing::ParseSamples(m.Text()), name, labels);
  return samples.size() == 1 ? samples.front().value : -1;
}

TEST(ConnectionMetricsTest, AbsentWithoutASource) {
  Metrics m;
  EXPECT_EQ(m.Text().find("fleetwave_cluster_connections"), std::string::npos);
  EXPECT_EQ(m.Text().find("fleetwave_cluster_responses_total"), std::string::npos);
}

TEST(ConnectionMetricsTest, EachScrapeReadsTheSource) {
  Metrics m;
  ConnectionCounts counts{3, 2, 40, 5};
  m.SetConnectionSource([&counts] { return counts; });
  EXPECT_EQ(Sample(m, "fleetwave_cluster_connections_opened_total"), 3);
  EXPECT_EQ(Sample(m, "fleetwave_cluster_connections_open"), 2);
  EXPECT_EQ(Sample(m, "fleetwave_cluster_responses_total", {{"protocol", "http2"}}), 40);
  EXPECT_EQ(Sample(m, "fleetwave_cluster_responses_total", {{"protocol", "http1"}}), 5);
  counts = {4, 1, 41, 5};
  EXPECT_EQ(Sample(m, "fleetwave_cluster_connections_opened_total"), 4);
  EXPECT_EQ(Sample(m, "fleetwave_cluster_connections_open"), 1);
  EXPECT_EQ(Sample(m, "fleetwave_cluster_responses_total", {{"protocol", "http2"}}), 41);
}

}  // namespace
}  // namespace fleetwave::metrics
