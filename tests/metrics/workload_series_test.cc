// The per-workload series (fleetwave_workload_progress_deadline_exceeded and
// fleetwave_workload_progressing), as a scrape of Metrics shows them after a seeded sequence of
// condition changes, removals and cluster removals, against a reference that keeps them in
// prometheus-cpp Gauge families with the state-set bookkeeping metrics.cc used before
// WorkloadSeries: the samples must be the same, series that went away included, and so must
// the families' place in the exposition.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include "metrics/metrics.h"
#include "metrics/series.h"
#include "metrics/workload_series.h"
#include "tests/metrics/exposition.h"

namespace fleetwave::metrics {
namespace {

constexpr const char* kFamilies[] = {"fleetwave_workload_progress_deadline_exceeded",
                                     "fleetwave_workload_progressing"};

class Reference {
 public:
  Reference()
      : exceeded_(prometheus::BuildGauge()
                      .Name(kFamilies[0])
                      .Help("1 when the workload's progress deadline is exceeded, else 0.")
                      .Register(registry_),
                  {"cluster", "namespace", "kind", "name"}),
        progressing_(prometheus::BuildGauge()
                         .Name(kFamilies[1])
                         .Help("State set: the reason of each workload's Progressing condition "
                               "(value 1).")
                         .Register(registry_),
                     {"cluster", "namespace", "kind", "name", "reason"}, 4) {}

  void Set(const WorkloadId& w, const std::string& reason, bool exceeded) {
    exceeded_.Get({w.cluster, w.ns, w.kind, w.name}).Set(exceeded ? 1 : 0);
    progressing_.Set({w.cluster, w.ns, w.kind, w.name}, {reason.empty() ? "Unknown" : reason});
  }
  void Erase(const WorkloadId& w) {
    exceeded_.Erase({w.cluster, w.ns, w.kind, w.name});
    progressing_.Erase({w.cluster, w.ns, w.kind, w.name});
  }
  void EraseCluster(const std::string& cluster) {
    exceeded_.EraseWhere(0, cluster);
    progressing_.EraseWhere(0, cluster);
  }
  std::string Text() const { return prometheus::TextSerializer().Serialize(registry_.Collect()); }

 private:
  prometheus::Registry registry_;
  Series<prometheus::Gauge> exceeded_;
  StateSet progressing_;
};

// The samples of the two families, in an order that does not depend on the serializer's.
std::vector<std::tuple<std::string, std::map<std::string, std::string>, double>> WorkloadSamples(
    const std::string& text) {
  std::vector<std::tuple<std::string, std::map<std::string, std::string>, double>> out;
  for (const auto& s : testing::ParseSamples(text)) {
    if (s.name == kFamilies[0] || s.name == kFamilies[1])
      out.emplace_back(s.name, s.labels, s.value);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(WorkloadSeries, ScrapesAsTheGaugeFamiliesDidThroughEveryChange) {
  std::mt19937 rng(20261207);
  const std::vector<std::string> clusters = {"east", "west", "north"};
  const std::vector<std::string> namespaces = {"default", "web"};
  const std::vector<std::string> kinds = {"Deployment", "CloneSet", "StatefulSet"};
  const std::vector<std::string> reasons = {"",
                                            "NewReplicaSetCreated",
                                            "ReplicaSetUpdated",
                                            "NewReplicaSetAvailable",
                                            "ProgressDeadlineExceeded",
                                            "reason with \"quotes\" and \\"};
  auto pick = [&](const auto& v) { return v[rng() % v.size()]; };
  Metrics metrics;
  Reference reference;
  for (int step = 0; step < 600; ++step) {
    const WorkloadId w{pick(clusters), pick(namespaces), pick(kinds),
                       "app-" + std::to_string(rng() % 8)};
    const unsigned op = rng() % 20;
    std::string what;
    if (op < 15) {
      const std::string reason = pick(reasons);
      const bool exceeded = rng() % 3 == 0;
      metrics.WorkloadCondition(w, reason, exceeded);
      reference.Set(w, reason, exceeded);
      what = "set " + w.name + " " + reason;
    } else if (op < 19) {
      metrics.WorkloadRemoved(w);
      reference.Erase(w);
      what = "remove " + w.name;
    } else {
      metrics.ClusterRemoved(w.cluster);
      reference.EraseCluster(w.cluster);
      what = "remove cluster " + w.cluster;
    }
    ASSERT_EQ(WorkloadSamples(metrics.Text()), WorkloadSamples(reference.Text()))
        << "after step " << step << ": " << what;
  }
}

TEST(WorkloadSeries, FamiliesComeWhereTheGaugeFamiliesWere) {
  Metrics metrics;
  metrics.WorkloadCondition({"east", "default", "Deployment", "web"}, "NewReplicaSetAvailable",
                            false);
  const std::string text = metrics.Text();
  const auto exceeded = text.find("# HELP fleetwave_workload_progress_deadline_exceeded");
  const auto progressing = text.find("# HELP fleetwave_workload_progressing");
  const auto build_info = text.find("# HELP fleetwave_build_info");
  ASSERT_NE(exceeded, std::string::npos);
  ASSERT_NE(progressing, std::string::npos);
  ASSERT_NE(build_info, std::string::npos);
  EXPECT_LT(exceeded, progressing);
  EXPECT_LT(progressing, build_info);
  EXPECT_EQ(text.find("# HELP fleetwave_workload_progressing", progressing + 1), std::string::npos)
      << "one family each";
}

TEST(WorkloadSeries, AnEmptyTableExposesNoFamily) {
  WorkloadSeries series;
  EXPECT_TRUE(series.Collect().empty());
  series.Set("east", "default", "Deployment", "web", "", true);
  EXPECT_EQ(series.size(), 1u);
  series.EraseCluster("east");
  EXPECT_TRUE(series.Collect().empty());
  EXPECT_EQ(series.size(), 0u);
}

}  // namespace
}  // namespace fleetwave::metrics
