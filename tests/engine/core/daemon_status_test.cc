// Table tests for what the daemon publishes about itself and its clusters
// (engine/daemon_status.h): readiness, the files list, a cluster's `synced`.
#include "engine/daemon_status.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace fleetwave::engine {
namespace {

struct ReadinessCase {
  const char* name;
  bool ready;
  std::string reason;
  std::optional<std::string> store_problem;
  DaemonReadiness want;
};

TEST(DaemonStatusTest, ReadinessIsWhatTheDaemonWasToldUnlessTheStoreCannotBeUsed) {
  const std::vector<ReadinessCase> cases = {
      {"ready", true, "", std::nullopt, {true, ""}},
      {"a reason given with ready is not served", true, "starting", std::nullopt, {true, ""}},
      {"not ready keeps its reason", false, "starting", std::nullopt, {false, "starting"}},
      {"a store problem makes a ready daemon not ready",
       true,
       "",
       "disk I/O error",
       {false, "the state store cannot be used: disk I/O error"}},
      {"a store problem replaces another reason",
       false,
       "loading",
       "locked",
       {false, "the state store cannot be used: locked"}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(ReadinessOf(c.ready, c.reason, c.store_problem), c.want) << c.name;
  }
}

using Files = std::map<std::string, std::optional<std::string>>;

struct FilesCase {
  const char* name;
  Files files;
  std::map<std::string, std::string> record_problems;
  std::optional<std::string> store_problem;
  Files want;
};

TEST(DaemonStatusTest, TheFilesListShowsRecordAndStoreProblemsOverFileStatuses) {
  const std::string db = "/var/lib/fleetwave/state.db";
  const std::vector<FilesCase> cases = {
      {"files only",
       {{"a.yaml", std::nullopt}, {"b.yaml", "bad"}},
       {},
       std::nullopt,
       {{"a.yaml", std::nullopt}, {"b.yaml", "bad"}}},
      {"a record problem is listed under its place",
       {{"a.yaml", std::nullopt}},
       {{"appset web", "does not decode"}},
       std::nullopt,
       {{"a.yaml", std::nullopt}, {"appset web", "does not decode"}}},
      {"a record problem wins over a file of the same name",
       {{"a.yaml", std::nullopt}},
       {{"a.yaml", "stored record broken"}},
       std::nullopt,
       {{"a.yaml", "stored record broken"}}},
      {"the store problem is listed under the database",
       {{"a.yaml", std::nullopt}},
       {},
       "locked",
       {{"a.yaml", std::nullopt}, {db, "locked"}}},
      {"the store problem wins over a record problem at the same place",
       {},
       {{db, "record"}},
       "locked",
       {{db, "locked"}}},
      {"no store problem: the database is not listed", {}, {}, std::nullopt, {}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(PublishedFileStatuses(c.files, c.record_problems, db, c.store_problem), c.want)
        << c.name;
  }
}

struct SyncedCase {
  std::size_t started;
  std::size_t listed;
  bool synced;
};

TEST(DaemonStatusTest, AClusterIsSyncedOnceEveryStartedWatchListed) {
  const std::vector<SyncedCase> cases = {
      {0, 0, false},  // no watch yet: nothing is known about the cluster
      {1, 0, false}, {1, 1, true}, {3, 2, false}, {3, 3, true},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(WatchesSynced(c.started, c.listed), c.synced)
        << c.listed << " of " << c.started << " watches listed";
  }
}

}  // namespace
}  // namespace fleetwave::engine
