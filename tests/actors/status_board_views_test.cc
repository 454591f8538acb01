// The StatusBoard's fleet view (status_board_views.cc): rows and summaries follow every publish,
// a move of an app between sets, and a set's removal; an unchanged republish records nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "actors/status_board.h"
#include "tests/actors/watch_all.h"

namespace fleetwave::actors {
namespace {

using engine::Json;

Json App(const std::string& name, const std::string& health) {
  return Json{{"metadata", {{"name", name}}},
              {"spec", {{"destination", {{"name", "c-" + name}}}}},
              {"status", {{"health", {{"status", health}}}, {"sync", {{"status", "Synced"}}}}}};
}

Json Set(const std::string& name) { return Json{{"metadata", {{"name", name}}}}; }

// The changes the feed recorded for `collection` after `*cursor` (which moves on).
std::vector<Change> ChangesOf(const StatusBoard& board, const std::string& collection,
                              uint64_t* cursor) {
  std::vector<Change> out;
  const std::atomic<bool> cancelled{false};
  board.feed().Next(collection, cursor, std::chrono::steady_clock::now(), cancelled, &out);
  return out;
}

std::vector<std::string> RowNames(const std::vector<StatusBoard::Row>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r.row->name);
  return out;
}

TEST(StatusBoardViewsTest, RowsAndSummaryFollowEveryPublish) {
  StatusBoard board;
  const auto watched = WatchAll(board);
  board.PublishAppSet("web", Set("web"), {{"a", App("a", "Healthy")}, {"b", App("b", "Degraded")}});
  ASSERT_EQ(RowNames(board.RowsOf("web")), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(board.RowsOf("web")[1].row->status, engine::AppDisplayStatus::kDegraded);
  EXPECT_EQ((*board.RowsOf("web")[1].json)["cluster"], "c-b");
  ASSERT_NE(board.Summary("web"), nullptr);
  EXPECT_EQ((*board.Summary("web"))["counts"]["Degraded"], 1);
  EXPECT_EQ((*board.Summary("web"))["attention"][0]["name"], "b");

  uint64_t rows_cursor = 0;
  uint64_t summaries_cursor = 0;
  ChangesOf(board, StatusBoard::kRows, &rows_cursor);
  ChangesOf(board, StatusBoard::kSummaries, &summaries_cursor);

  // b recovers, c arrives, a goes: one row change each, one summary change.
  board.PublishAppSet("web", Set("web"), {{"b", App("b", "Healthy")}, {"c", App("c", "Healthy")}});
  const auto rows = ChangesOf(board, StatusBoard::kRows, &rows_cursor);
  std::vector<std::pair<ChangeType, std::string>> got;
  for (const Change& c : rows) got.emplace_back(c.type, c.name);
  EXPECT_EQ(got, (std::vector<std::pair<ChangeType, std::string>>{{ChangeType::kDeleted, "a"},
                                                                  {ChangeType::kModified, "b"},
                                                                  {ChangeType::kAdded, "c"}}));
  EXPECT_EQ(ChangesOf(board, StatusBoard::kSummaries, &summaries_cursor).size(), 1u);
  EXPECT_EQ((*board.Summary("web"))["counts"]["Healthy"], 2);

  // The same again: no row or summary change, and the row snapshots are the same pointers.
  const auto before = board.RowsOf("web");
  board.PublishAppSet("web", Set("web"), {{"b", App("b", "Healthy")}, {"c", App("c", "Healthy")}});
  EXPECT_TRUE(ChangesOf(board, StatusBoard::kRows, &rows_cursor).empty());
  EXPECT_TRUE(ChangesOf(board, StatusBoard::kSummaries, &summaries_cursor).empty());
  EXPECT_EQ(board.RowsOf("web")[0].json, before[0].json);
}

TEST(StatusBoardViewsTest, AnAppThatMovesSetsMovesItsRowAndBothSummaries) {
  StatusBoard board;
  board.PublishAppSet("one", Set("one"), {{"a", App("a", "Healthy")}, {"b", App("b", "Healthy")}});
  board.PublishAppSet("two", Set("two"), {{"b", App("b", "Degraded")}});
  EXPECT_EQ(RowNames(board.RowsOf("one")), (std::vector<std::string>{"a"}));
  EXPECT_EQ(RowNames(board.RowsOf("two")), (std::vector<std::string>{"b"}));
  EXPECT_EQ(board.RowsOf("two")[0].row->appset, "two");
  EXPECT_EQ((*board.Summary("one"))["total"], 1);
  EXPECT_EQ((*board.Summary("two"))["total"], 1);
  EXPECT_EQ(RowNames(board.Rows()), (std::vector<std::string>{"a", "b"}));

  board.PublishApplication("one", "b", App("b", "Healthy"));  // and back, one app at a time
  EXPECT_EQ(RowNames(board.RowsOf("one")), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(board.RowsOf("two").empty());
  EXPECT_EQ((*board.Summary("two"))["total"], 0);
}

TEST(StatusBoardViewsTest, ARemovedSetTakesItsRowsAndSummary) {
  StatusBoard board;
  const auto watched = WatchAll(board);
  board.PublishAppSet("web", Set("web"), {{"a", App("a", "Healthy")}});
  board.PublishAppSet("api", Set("api"), {{"x", App("x", "Healthy")}});
  uint64_t cursor = 0;
  ChangesOf(board, StatusBoard::kSummaries, &cursor);
  board.RemoveAppSet("web");
  EXPECT_TRUE(board.RowsOf("web").empty());
  EXPECT_EQ(board.Summary("web"), nullptr);
  EXPECT_EQ(RowNames(board.Rows()), (std::vector<std::string>{"x"}));
  const auto changes = ChangesOf(board, StatusBoard::kSummaries, &cursor);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].type, ChangeType::kDeleted);
  uint64_t version = 0;
  EXPECT_EQ(board.Snapshot(StatusBoard::kSummaries, &version)->size(), 1u);
  EXPECT_EQ(board.Snapshot(StatusBoard::kRows, &version)->size(), 1u);
}

// Publishers of different sets and of one app race; afterwards every set's view is what its
// last publish says (the commit is skipped only when a later change derives again).
TEST(StatusBoardViewsTest, ConcurrentPublishesLeaveEveryViewCurrent) {
  StatusBoard board;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&board, t] {
      const std::string set = "set" + std::to_string(t % 2);
      for (int i = 0; i < 200; ++i) {
        const std::string health = i % 2 ? "Degraded" : "Healthy";
        board.PublishAppSet(
            set, Set(set),
            {{set + "-a", App(set + "-a", health)},
             {set + "-" + std::to_string(t), App(set + "-" + std::to_string(t), "Healthy")}});
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const std::string set : {"set0", "set1"}) {
    SCOPED_TRACE(set);
    const auto apps = board.ApplicationsOf(set);
    const auto rows = board.RowsOf(set);
    ASSERT_EQ(rows.size(), apps.size());
    size_t degraded = 0;
    for (const auto& app : apps) degraded += (*app)["status"]["health"]["status"] == "Degraded";
    EXPECT_EQ((*board.Summary(set))["counts"]["Degraded"], degraded);
    EXPECT_EQ((*board.Summary(set))["total"], apps.size());
  }
}

}  // namespace
}  // namespace fleetwave::actors
