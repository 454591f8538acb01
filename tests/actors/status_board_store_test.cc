// The state store's health as a readiness input (issue 30): while the store cannot be used,
// the board is not ready whatever the coordinator said, and its database is listed with the
// files (the API's `errors`) with SQLite's error.
#include <gtest/gtest.h>

#include "actors/status_board.h"

namespace fleetwave::actors {
namespace {

TEST(StatusBoardStore, AStoreThatCannotBeUsedFailsReadinessAndIsListedWithItsError) {
  StatusBoard board;
  board.SetReady(true);
  board.SetFileStatus("/sets/a.yaml", std::nullopt);
  const std::string db = "/var/lib/fleetwave/state.db";
  const std::string error = db + ": quick_check found damage: *** in database main ***";
  const uint64_t before = board.sequence();

  board.SetStoreProblem(db, error);
  EXPECT_GT(board.sequence(), before);
  const Readiness r = board.readiness();
  EXPECT_FALSE(r.ready);
  EXPECT_EQ(r.reason, "the state store cannot be used: " + error);
  auto files = board.Files();
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[db], error);
  EXPECT_EQ(files["/sets/a.yaml"], std::nullopt);

  // The coordinator's readiness does not override it.
  board.SetReady(true);
  EXPECT_FALSE(board.readiness().ready);

  board.SetStoreProblem(db, std::nullopt);  // usable again
  EXPECT_TRUE(board.readiness().ready);
  EXPECT_EQ(board.Files().size(), 1u);
}

TEST(StatusBoardStore, ASetsUnusableRecordIsListedWithoutFailingReadiness) {
  StatusBoard board;
  board.SetReady(true);
  const std::string where = "/var/lib/fleetwave/state.db:appsets/web/";
  board.SetStoredRecordProblem(where,
                               "appsets/web/ (stored status): status.rollout.paused: must "
                               "be a boolean, not a string");
  EXPECT_TRUE(board.readiness().ready);
  EXPECT_EQ(board.Files()[where],
            "appsets/web/ (stored status): status.rollout.paused: must be a boolean, not a string");
  board.SetStoredRecordProblem(where, std::nullopt);
  EXPECT_TRUE(board.Files().empty());
}

}  // namespace
}  // namespace fleetwave::actors
