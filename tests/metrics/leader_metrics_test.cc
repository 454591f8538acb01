// fleetwave_leader and fleetwave_leader_changes_total (issue 28): absent without leader
// election; 1/0 with the role, and the changes counted from the leadership's own count.
#include <gtest/gtest.h>

#include <string>

#include "metrics/metrics.h"
#include "tests/metrics/exposition.h"

namespace fleetwave::metrics {
namespace {

double Sample(const Metrics& m, const std::string& name) {
  const auto samples = testing::Find(testing::ParseSamples(m.Text()), name, {});
  return samples.size() == 1 ? samples.front().value : -1;
}

TEST(LeaderMetricsTest, AbsentUntilLeaderElectionReports) {
  Metrics m;
  EXPECT_EQ(m.Text().find("fleetwave_leader"), std::string::npos);
  m.Leadership(false, 0);
  EXPECT_EQ(Sample(m, "fleetwave_leader"), 0);
  EXPECT_EQ(Sample(m, "fleetwave_leader_changes_total"), 0);
}

TEST(LeaderMetricsTest, RoleAndChanges) {
  Metrics m;
  m.Leadership(true, 1);
  EXPECT_EQ(Sample(m, "fleetwave_leader"), 1);
  EXPECT_EQ(Sample(m, "fleetwave_leader_changes_total"), 1);
  m.Leadership(false, 2);
  m.Leadership(false, 2);  // the same view again counts nothing
  EXPECT_EQ(Sample(m, "fleetwave_leader"), 0);
  EXPECT_EQ(Sample(m, "fleetwave_leader_changes_total"), 2);
  m.Leadership(true, 3);
  EXPECT_EQ(Sample(m, "fleetwave_leader"), 1);
  EXPECT_EQ(Sample(m, "fleetwave_leader_changes_total"), 3);
}

}  // namespace
}  // namespace fleetwave::metrics
