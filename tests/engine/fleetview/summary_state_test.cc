// SummaryState against its oracle, Summarize: seeded random sequences of row puts, removals
// and set changes, compared after every step (as the decider's differential test does for
// decisions). FLEETWAVE_SUMMARY_SEEDS=N runs N seeds instead of CI's fixed few.
#include "engine/appset/appset_summary_state.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine/appset/appset_summary.h"
#include "tests/engine/fleetview/fleet_builders.h"

namespace fleetwave::engine {
namespace {

using fleetview_testing::RollingSet;

std::vector<AppRow> RowsOf(const std::map<std::string, AppRow>& rows) {
  std::vector<AppRow> out;
  for (const auto& [_, row] : rows) out.push_back(row);
  return out;  // sorted by name, as AppRowsOf returns them
}

Json RandomSet(std::mt19937& rng) {
  const int steps = static_cast<int>(rng() % 4);  // 0: AllAtOnce
  Json set = RollingSet("web", steps, static_cast<int>(rng() % 4), {});
  if (rng() % 2) {
    static const char* kReasons[] = {"ApplicationSetModified", "ApplicationSetRolloutComplete",
                                     "ProgressDeadlineExceeded", "ApplicationSetPaused"};
    set["status"]["conditions"] = Json::array({{{"type", "RolloutProgressing"},
                                                {"status", "True"},
                                                {"reason", kReasons[rng() % 4]},
                                                {"message", "m" + std::to_string(rng() % 3)}}});
  }
  if (steps > 0 && rng() % 2) {
    set["spec"]["strategy"]["rollingSync"]["steps"][0]["maxUpdate"] = static_cast<int>(rng() % 3);
  }
  return set;
}

AppRow RandomRow(std::mt19937& rng, int apps) {
  AppRow row;
  row.name = "app-" + std::to_string(rng() % apps);
  row.appset = "web";
  row.cluster = "c" + std::to_string(rng() % 5);
  row.step = static_cast<int>(rng() % 5);
  row.status = static_cast<AppDisplayStatus>(rng() % kDisplayStatusCount);
  row.health = rng() % 2 ? "Healthy" : "Progressing";
  row.message = "m" + std::to_string(rng() % 3);
  return row;
}

void RunSeed(unsigned seed) {
  std::mt19937 rng(seed);
  const int apps = 1 + static_cast<int>(rng() % 40);
  const size_t limit = 1 + rng() % 6;
  SummaryState state;
  std::map<std::string, AppRow> rows;
  Json set = RandomSet(rng);
  state.SetAppSet(set);
  for (int event = 0; event < 200; ++event) {
    const unsigned kind = rng() % 10;
    std::string what;
    if (kind < 6) {
      AppRow row = RandomRow(rng, apps);
      what = "put " + row.name;
      rows[row.name] = row;
      state.Put(std::make_shared<const AppRow>(std::move(row)));
    } else if (kind < 9) {
      const std::string name = "app-" + std::to_string(rng() % apps);
      what = "remove " + name;
      rows.erase(name);
      state.Remove(name);
    } else {
      set = RandomSet(rng);
      what = "set " + set.dump();
      state.SetAppSet(set);
    }
    const AppSetSummary expected = Summarize(set, RowsOf(rows), limit);
    const AppSetSummary actual = state.Summary(limit);
    ASSERT_EQ(SummaryJson(actual).dump(), SummaryJson(expected).dump())
        << "seed " << seed << " event " << event << " (" << what << ")";
    ASSERT_EQ(actual, expected) << "seed " << seed << " event " << event;
    ASSERT_EQ(state.size(), rows.size());
  }
}

TEST(SummaryStateTest, EqualsSummarizeAfterEveryRandomChange) {
  unsigned seeds = 40;
  if (const char* n = std::getenv("FLEETWAVE_SUMMARY_SEEDS")) seeds = std::stoul(n);
  for (unsigned seed = 1; seed <= seeds; ++seed) {
    RunSeed(seed);
    if (HasFatalFailure()) return;
  }
}

TEST(SummaryStateTest, StripFollowsClusterThenNameOrder) {
  SummaryState state;
  state.SetAppSet(RollingSet("web", 1, 1, {}));
  auto put = [&state](const std::string& name, const std::string& cluster, AppDisplayStatus s) {
    AppRow row;
    row.name = name;
    row.cluster = cluster;
    row.step = 1;
    row.status = s;
    state.Put(std::make_shared<const AppRow>(row));
  };
  put("b", "eu", AppDisplayStatus::kHealthy);
  put("a", "us", AppDisplayStatus::kFailed);
  put("c", "eu", AppDisplayStatus::kWaiting);
  EXPECT_EQ(state.Summary(10).steps.at(0).strip, "760");
  put("c", "aa", AppDisplayStatus::kLate);  // moves to the front, its digit changes
  EXPECT_EQ(state.Summary(10).steps.at(0).strip, "270");
  state.Remove("b");
  EXPECT_EQ(state.Summary(10).steps.at(0).strip, "20");
  const AppSetSummary s = state.Summary(1);
  ASSERT_EQ(s.attention.size(), 1u);  // Failed before Late, the limit cuts the rest
  EXPECT_EQ(s.attention[0].name, "a");
  EXPECT_EQ(s.attention_total, 2u);
}

TEST(OrderStatisticSetTest, RanksMatchASortedListThroughRandomInsertsAndErases) {
  std::mt19937 rng(7);
  OrderStatisticSet<int> set;
  std::set<int> oracle;
  for (int i = 0; i < 5000; ++i) {
    const int key = static_cast<int>(rng() % 500);
    const size_t expected =
        static_cast<size_t>(std::distance(oracle.begin(), oracle.lower_bound(key)));
    if (oracle.count(key)) {
      ASSERT_EQ(set.Erase(key), expected) << "erase " << key;
      oracle.erase(key);
    } else {
      ASSERT_EQ(set.Insert(key), expected) << "insert " << key;
      oracle.insert(key);
    }
    ASSERT_EQ(set.size(), oracle.size());
  }
}

}  // namespace
}  // namespace fleetwave::engine
