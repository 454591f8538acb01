#include "actors/status_board.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace fleetwave::actors {
namespace {

using engine::Json;

Json App(const std::string& name, int generation = 0) {
  return Json{{"metadata", {{"name", name}}}, {"status", {{"generation", generation}}}};
}

std::map<std::string, Json> Apps(const std::vector<std::string>& names, int generation = 0) {
  std::map<std::string, Json> out;
  for (const auto& n : names) out[n] = App(n, generation);
  return out;
}

std::vector<std::string> Names(const std::vector<StatusBoard::JsonPtr>& items) {
  std::vector<std::string> out;
  for (const auto& j : items) out.push_back((*j)["metadata"]["name"].get<std::string>());
  return out;
}

// Publishing a set replaces exactly that set's Applications: its gone ones disappear, the other
// sets' stay, and a name another set published moves to the publisher.
TEST(StatusBoardTest, PublishReplacesSetsApps) {
  struct Step {
    std::string set;
    std::vector<std::string> apps;
  };
  struct Case {
    std::string name;
    std::vector<Step> steps;
    std::vector<std::string> want_apps;  // all, sorted
    std::map<std::string, std::vector<std::string>> want_by_set;
  };
  const std::vector<Case> cases = {
      {"FirstPublish", {{"a", {"a-dev", "a-qa"}}}, {"a-dev", "a-qa"}, {{"a", {"a-dev", "a-qa"}}}},
      {"GoneAppRemoved",
       {{"a", {"a-dev", "a-qa"}}, {"a", {"a-qa", "a-prod"}}},
       {"a-prod", "a-qa"},
       {{"a", {"a-prod", "a-qa"}}}},
      {"OtherSetUntouched",
       {{"a", {"a-dev"}}, {"b", {"b-dev", "b-qa"}}, {"a", {}}},
       {"b-dev", "b-qa"},
       {{"a", {}}, {"b", {"b-dev", "b-qa"}}}},
      {"NameMovesToLastPublisher",
       {{"a", {"shared", "a-dev"}}, {"b", {"shared"}}},
       {"a-dev", "shared"},
       {{"a", {"a-dev"}}, {"b", {"shared"}}}},
      {"OldOwnerRepublishingWithoutNameKeepsMovedApp",
       {{"a", {"shared"}}, {"b", {"shared"}}, {"a", {}}},
       {"shared"},
       {{"a", {}}, {"b", {"shared"}}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    StatusBoard board;
    for (const Step& s : c.steps) {
      board.PublishAppSet(s.set, Json{{"metadata", {{"name", s.set}}}}, Apps(s.apps));
    }
    EXPECT_EQ(Names(board.Applications()), c.want_apps);
    for (const auto& [set, apps] : c.want_by_set) {
      EXPECT_EQ(Names(board.ApplicationsOf(set)), apps) << set;
      for (const auto& app : apps) EXPECT_EQ(board.ApplicationOwner(app), set);
    }
  }
}

TEST(StatusBoardTest, PublishApplicationAddsOneAndRemoveAppSetDropsAll) {
  StatusBoard board;
  board.PublishAppSet("a", Json{{"metadata", {{"name", "a"}}}}, Apps({"a-dev"}));
  board.PublishApplication("a", "a-qa", App("a-qa", 7));
  EXPECT_EQ(Names(board.ApplicationsOf("a")), (std::vector<std::string>{"a-dev", "a-qa"}));
  EXPECT_EQ((*board.Application("a-qa"))["status"]["generation"], 7);

  // A later set publish without a-qa removes it too: it belonged to the set.
  board.PublishAppSet("a", Json{{"metadata", {{"name", "a"}}}}, Apps({"a-dev"}));
  EXPECT_EQ(board.Application("a-qa"), nullptr);

  board.PublishAppSet("b", Json{{"metadata", {{"name", "b"}}}}, Apps({"b-dev"}));
  board.RemoveAppSet("a");
  EXPECT_EQ(board.AppSet("a"), nullptr);
  EXPECT_EQ(board.Application("a-dev"), nullptr);
  EXPECT_EQ(board.ApplicationOwner("a-dev"), std::nullopt);
  EXPECT_EQ(Names(board.AppSets()), std::vector<std::string>{"b"});
  EXPECT_EQ(Names(board.Applications()), std::vector<std::string>{"b-dev"});
}

// A reader's snapshot is immutable: a publish after the read does not change what it holds.
TEST(StatusBoardTest, SnapshotsSurviveLaterPublishes) {
  StatusBoard board;
  board.PublishAppSet("a", Json{{"metadata", {{"name", "a"}}}}, Apps({"a-dev"}, 1));
  StatusBoard::JsonPtr before = board.Application("a-dev");
  board.PublishAppSet("a", Json{{"metadata", {{"name", "a"}}}}, Apps({"a-dev"}, 2));
  EXPECT_EQ((*before)["status"]["generation"], 1);
  EXPECT_EQ((*board.Application("a-dev"))["status"]["generation"], 2);
}

TEST(StatusBoardTest, ClustersFilesReadinessAndSequence) {
  StatusBoard board;
  const uint64_t s0 = board.sequence();
  EXPECT_FALSE(board.readiness().ready);
  EXPECT_EQ(board.readiness().reason, "starting");

  board.PublishCluster({"qa", "https://qa:6443", true, false});
  board.PublishCluster({"dev", "https://dev:6443", false, false});
  board.PublishCluster({"qa", "https://qa:6443", true, true});
  const auto clusters = board.Clusters();
  ASSERT_EQ(clusters.size(), 2u);
  EXPECT_EQ(clusters[0].name, "dev");
  EXPECT_EQ(clusters[1].name, "qa");
  EXPECT_TRUE(clusters[1].synced);
  board.RemoveCluster("dev");
  EXPECT_EQ(board.Cluster("dev"), std::nullopt);

  board.SetFileStatus("/sets/a.yaml", "/sets/a.yaml:3:5: unknown key \"spc\"");
  board.SetFileStatus("/sets/b.yaml", std::nullopt);
  auto files = board.Files();
  EXPECT_EQ(files["/sets/a.yaml"], "/sets/a.yaml:3:5: unknown key \"spc\"");
  EXPECT_EQ(files["/sets/b.yaml"], std::nullopt);
  board.SetFileStatus("/sets/a.yaml", std::nullopt);  // fixed
  board.RemoveFile("/sets/b.yaml");
  files = board.Files();
  EXPECT_EQ(files.size(), 1u);
  EXPECT_EQ(files["/sets/a.yaml"], std::nullopt);

  board.SetReady(false, "store not loaded");
  EXPECT_EQ(board.readiness().reason, "store not loaded");
  board.SetReady(true, "ignored when ready");
  EXPECT_TRUE(board.readiness().ready);
  EXPECT_EQ(board.readiness().reason, "");
  // Every one of the 10 changes above moved the sequence.
  EXPECT_EQ(board.sequence(), s0 + 10);
}

// Readers and publishers on many threads (run under TSan in CI): every read sees a whole
// publish of a set, never a mix of two (each publish stamps all of a set's apps with one
// generation, and the set's JSON with the same one).
TEST(StatusBoardTest, ConcurrentPublishAndRead) {
  StatusBoard board;
  constexpr int kSets = 4;
  constexpr int kApps = 50;
  constexpr int kRounds = 200;
  auto names = [](int set) {
    std::vector<std::string> out;
    for (int i = 0; i < kApps; ++i)
      out.push_back("s" + std::to_string(set) + "-" + std::to_string(i));
    return out;
  };
  std::atomic<bool> done{false};
  std::atomic<int> inconsistent{0};
  std::vector<std::thread> threads;
  for (int s = 0; s < kSets; ++s) {
    threads.emplace_back([&, s] {
      const std::string set = "s" + std::to_string(s);
      for (int g = 1; g <= kRounds; ++g) {
        board.PublishAppSet(set, Json{{"metadata", {{"name", set}}}, {"generation", g}},
                            Apps(names(s), g));
      }
    });
  }
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&] {
      while (!done.load()) {
        for (int s = 0; s < kSets; ++s) {
          std::set<int> generations;
          for (const auto& app : board.ApplicationsOf("s" + std::to_string(s))) {
            generations.insert((*app)["status"]["generation"].get<int>());
          }
          if (generations.size() > 1) ++inconsistent;
        }
        for (const auto& app : board.Applications()) {
          if (!app->contains("metadata")) ++inconsistent;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  done = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(inconsistent.load(), 0);
  EXPECT_EQ(board.Applications().size(), static_cast<size_t>(kSets * kApps));
  for (int s = 0; s < kSets; ++s) {
    EXPECT_EQ((*board.AppSet("s" + std::to_string(s)))["generation"], kRounds);
  }
}

}  // namespace
}  // namespace fleetwave::actors
