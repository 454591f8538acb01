// A publisher that names the entries it changed (PublishOrigin) gets the same board as one that
// does not: the same set JSON, rows and feed contents after every publish, including when a
// publish of its sequence never reached the board (a standby skips it) or another publisher
// came between, where the board must compare every entry again.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "actors/publish_origin.h"
#include "actors/status_board.h"

namespace fleetwave::actors {
namespace {

using engine::Json;
using JsonPtr = std::shared_ptr<const Json>;

Json Entry(const std::string& app, const std::string& status, int n) {
  return Json{{"application", app},
              {"status", status},
              {"step", "1"},
              {"message", "m" + std::to_string(n)},
              {"lastTransitionTime", "2026-03-01T12:00:00Z"}};
}

Json Set(const Json& entries, int generation) {
  return Json{
      {"metadata", {{"name", "s"}}},
      {"status",
       {{"applicationStatus", entries}, {"rollout", {{"generation", generation}, {"step", 1}}}}}};
}

TEST(StatusBoardTest, OriginHintsPublishAsFullComparisons) {
  std::mt19937 rng(7);
  const std::vector<std::string> statuses = {"Waiting", "Pending", "Progressing", "Healthy"};
  const size_t n = 40;
  Json entries = Json::array();
  for (size_t i = 0; i < n; ++i) {
    char name[8];
    std::snprintf(name, sizeof name, "app%02zu", i);
    entries.push_back(Entry(name, "Waiting", 0));
  }
  StatusBoard hinted(1024), full(1024);
  uint64_t seq = 0;
  int skipped = 0, foreign = 0, used = 0;
  for (int step = 0; step < 400; ++step) {
    // Some entries change; the publisher names exactly those.
    std::vector<size_t> positions;
    const int changes = static_cast<int>(rng() % 4);
    for (int c = 0; c < changes; ++c) {
      const size_t i = rng() % n;
      entries[i] = Entry(entries[i]["application"], statuses[rng() % statuses.size()], step);
      positions.push_back(i);
    }
    std::sort(positions.begin(), positions.end());
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
    const Json set = Set(entries, step % 5 == 0 ? step : 0);
    const PublishOrigin origin{42, ++seq, &positions};
    const unsigned what = rng() % 20;
    if (what == 0) {
      ++skipped;  // a standby's publish: counted by the publisher, never seen by the board
    } else if (what == 1) {
      ++foreign;  // another publisher of the same set comes between, then this one goes on
      const PublishOrigin other{43, 1, nullptr};
      hinted.PublishReconcile("s", set, {}, &other);
      hinted.PublishReconcile("s", set, {}, &origin);
    } else {
      ++used;
      hinted.PublishReconcile("s", set, {}, &origin);
    }
    full.PublishReconcile("s", set, std::vector<JsonPtr>{});
    if (what == 0) continue;
    ASSERT_EQ(*hinted.AppSet("s"), *full.AppSet("s")) << "after step " << step;
    ASSERT_EQ(*hinted.AppSet("s"), set) << "after step " << step;
  }
  EXPECT_GT(skipped, 5);
  EXPECT_GT(foreign, 5);
  EXPECT_GT(used, 300);
}

// A wrong hint is the publisher's bug; a right one is trusted: entries it does not name are
// not compared (the unnamed change below is not seen), which is what makes a publish cost the
// changed entries only.
TEST(StatusBoardTest, OriginHintNamesTheOnlyEntriesCompared) {
  StatusBoard board(1024);
  Json entries = Json::array({Entry("a", "Waiting", 0), Entry("b", "Waiting", 0)});
  const std::vector<size_t> none;
  const PublishOrigin first{42, 1, nullptr};
  board.PublishReconcile("s", Set(entries, 1), {}, &first);
  entries[1] = Entry("b", "Healthy", 1);
  const PublishOrigin second{42, 2, &none};
  board.PublishReconcile("s", Set(entries, 1), {}, &second);
  EXPECT_EQ((*board.AppSet("s"))["status"]["applicationStatus"][1]["status"], "Waiting");
  const std::vector<size_t> b = {1};
  const PublishOrigin third{42, 3, &b};
  board.PublishReconcile("s", Set(entries, 1), {}, &third);
  EXPECT_EQ((*board.AppSet("s"))["status"]["applicationStatus"][1]["status"], "Healthy");
}

}  // namespace
}  // namespace fleetwave::actors
