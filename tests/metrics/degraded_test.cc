// fleetwave_degraded_total{reason} (issue 30): every failure the daemon survives, by the kind
// of object it concerns. Each reason of the fixed set is exposed from the start at 0; a reason
// outside the set counts as "internal" (a typo never makes a new series).
#include <gtest/gtest.h>

#include <string>

#include "metrics/metrics.h"
#include "tests/metrics/exposition.h"

namespace fleetwave::metrics {
namespace {

double Degraded(const Metrics& m, const std::string& reason) {
  const auto samples = testing::Find(testing::ParseSamples(m.Text()), "fleetwave_degraded_total",
                                     {{"reason", reason}});
  return samples.size() == 1 ? samples.front().value : -1;
}

TEST(DegradedTest, EveryReasonFromZeroAndUnknownOnesAreInternal) {
  Metrics m;
  for (const char* r : {"file", "set", "cluster", "store", "internal"}) {
    EXPECT_EQ(Degraded(m, r), 0) << r;
  }
  m.Degraded("file");
  m.Degraded("file");
  m.Degraded("set");
  m.Degraded("no such reason");
  EXPECT_EQ(Degraded(m, "file"), 2);
  EXPECT_EQ(Degraded(m, "set"), 1);
  EXPECT_EQ(Degraded(m, "internal"), 1);
  EXPECT_EQ(Degraded(m, "no such reason"), -1);
}

}  // namespace
}  // namespace fleetwave::metrics
