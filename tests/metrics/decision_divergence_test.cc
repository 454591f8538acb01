// fleetwave_decision_divergence_total{appset} (issue 25): each resync at which a set's
// incremental decision differed from the from-scratch one counts on that set's series only, and
// the series goes with its set.
#include <gtest/gtest.h>

#include <string>

#include "metrics/metrics.h"
#include "tests/metrics/exposition.h"

namespace fleetwave::metrics {
namespace {

double Divergences(const Metrics& m, const std::string& appset) {
  const auto samples = testing::Find(testing::ParseSamples(m.Text()),
                                     "fleetwave_decision_divergence_total", {{"appset", appset}});
  return samples.size() == 1 ? samples.front().value : -1;
}

TEST(DecisionDivergenceTest, CountsPerSetAndLeavesWithItsSet) {
  Metrics m;
  EXPECT_EQ(Divergences(m, "web"), -1);  // no series before a divergence
  m.DecisionDiverged("web");
  m.DecisionDiverged("web");
  m.DecisionDiverged("api");
  EXPECT_EQ(Divergences(m, "web"), 2);
  EXPECT_EQ(Divergences(m, "api"), 1);
  m.AppSetRemoved("web");
  EXPECT_EQ(Divergences(m, "web"), -1);
  EXPECT_EQ(Divergences(m, "api"), 1);
}

}  // namespace
}  // namespace fleetwave::metrics
