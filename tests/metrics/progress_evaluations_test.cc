// fleetwave_progress_evaluations_total (metrics.h): exposed from the start at 0 (so a
// benchmark can read "no evaluation" as a number, not a missing series) and counting each
// evaluation of the progress-deadline engine.
#include <gtest/gtest.h>

#include "metrics/metrics.h"
#include "tests/metrics/exposition.h"

namespace fleetwave::metrics {
namespace {

double Evaluations(const Metrics& m) {
  const auto samples =
      testing::Find(testing::ParseSamples(m.Text()), "fleetwave_progress_evaluations_total");
  EXPECT_EQ(samples.size(), 1u);
  return samples.empty() ? -1 : samples.front().value;
}

TEST(ProgressEvaluationsTest, CountsFromZero) {
  Metrics m;
  EXPECT_EQ(Evaluations(m), 0);
  m.ProgressEvaluated();
  m.ProgressEvaluated();
  EXPECT_EQ(Evaluations(m), 2);
  // Workloads coming and going do not reset it: it counts work done, not state.
  m.WorkloadCondition({"east", "ns", "CloneSet", "web"}, "CloneSetUpdated", false);
  m.WorkloadRemoved({"east", "ns", "CloneSet", "web"});
  m.ClusterRemoved("east");
  EXPECT_EQ(Evaluations(m), 2);
}

}  // namespace
}  // namespace fleetwave::metrics
