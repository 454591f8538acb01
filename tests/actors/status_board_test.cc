#include "actors/status_board.h"
#include "tests/actors/watch_all.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
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

// A reconcile that changed nothing costs nothing: republishing an equal result keeps every
// snapshot (the same pointers: nothing copied) and records no change; a result with one app
// changed replaces that app's snapshot alone and records it once.
TEST(StatusBoardTest, RepublishingEqualResultKeepsSnapshots) {
  StatusBoard board(1024);
  const auto watched = WatchAll(board);
  auto result = [](int changed_generation) {
    std::vector<Json> apps;
    for (const char* n : {"a", "b", "c"})
      apps.push_back(App(n, n == std::string("b") ? changed_generation : 0));
    return apps;
  };
  const Json set = Json{{"metadata", {{"name", "s"}}}, {"status", {{"phase", "x"}}}};
  board.PublishReconcile("s", set, result(0));
  const auto set_before = board.AppSet("s");
  const auto apps_before = board.Applications();
  const uint64_t version = board.feed().version();

  board.PublishReconcile("s", Json(set), result(0));  // equal JSON, new objects
  EXPECT_EQ(board.feed().version(), version);
  EXPECT_EQ(board.AppSet("s"), set_before);
  EXPECT_EQ(board.Applications(), apps_before);

  board.PublishReconcile("s", set, result(1));  // b changed
  std::vector<Change> changes;
  uint64_t cursor = version;
  std::atomic<bool> cancelled{false};
  ASSERT_EQ(board.feed().Next(StatusBoard::kApplications, &cursor, std::chrono::steady_clock::now(),
                              cancelled, &changes),
            ChangeFeed::Read::kChanges);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].type, ChangeType::kModified);
  EXPECT_EQ(changes[0].name, "b");
  EXPECT_EQ((*changes[0].object)["status"]["generation"], 1);
  EXPECT_EQ(board.feed().version(), version + 1);  // the set's JSON is equal: not recorded
  const auto apps_after = board.Applications();
  ASSERT_EQ(apps_after.size(), 3u);
  EXPECT_EQ(apps_after[0], apps_before[0]);
  EXPECT_NE(apps_after[1], apps_before[1]);
  EXPECT_EQ(apps_after[2], apps_before[2]);
  EXPECT_EQ(board.AppSet("s"), set_before);
}

// Shared Applications become the snapshots themselves: the same pointers again record nothing,
// equal content under new pointers records nothing either, and a changed one is recorded once.
TEST(StatusBoardTest, RepublishingTheSamePointersComparesNoJson) {
  StatusBoard board(1024);
  std::vector<std::shared_ptr<const Json>> apps;
  for (const char* n : {"a", "b", "c"}) apps.push_back(std::make_shared<const Json>(App(n, 0)));
  const Json set = Json{{"metadata", {{"name", "s"}}}};
  board.PublishReconcile("s", set, apps);
  EXPECT_EQ(board.Application("b"), apps[1]) << "the shared object is the snapshot";
  const uint64_t version = board.feed().version();

  board.PublishReconcile("s", set, apps);
  EXPECT_EQ(board.feed().version(), version);
  std::vector<std::shared_ptr<const Json>> copies;
  for (const auto& a : apps) copies.push_back(std::make_shared<const Json>(*a));
  board.PublishReconcile("s", set, copies);
  EXPECT_EQ(board.feed().version(), version);
  EXPECT_EQ(board.Application("b"), apps[1]) << "equal content keeps the published snapshot";

  apps[1] = std::make_shared<const Json>(App("b", 7));
  board.PublishReconcile("s", set, apps);
  EXPECT_EQ(board.feed().version(), version + 1);
  EXPECT_EQ(board.Application("b"), apps[1]);
  EXPECT_EQ((*board.Application("b"))["status"]["generation"], 7);
}

// PublishReconcile takes the engine's result as it is: Applications named by metadata.name.
// Unsorted input is sorted, of duplicate names the last wins, nameless ones are skipped.
TEST(StatusBoardTest, PublishReconcileSortsAndLastDuplicateWins) {
  struct Case {
    std::string name;
    std::vector<Json> apps;
    std::vector<std::string> want;
    std::map<std::string, int> want_generation;
  };
  const std::vector<Case> cases = {
      {"Sorted", {App("a"), App("b"), App("c")}, {"a", "b", "c"}, {}},
      {"Unsorted", {App("c"), App("a"), App("b")}, {"a", "b", "c"}, {}},
      {"DuplicateLastWins",
       {App("b", 1), App("a"), App("b", 2), App("b", 3)},
       {"a", "b"},
       {{"b", 3}}},
      {"SortedDuplicate", {App("a", 1), App("a", 2)}, {"a"}, {{"a", 2}}},
      {"Nameless",
       {Json{{"metadata", Json::object()}}, App("a"), Json{{"metadata", {{"name", 5}}}}, Json("x")},
       {"a"},
       {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    StatusBoard board;
    board.PublishReconcile("s", Json{{"metadata", {{"name", "s"}}}}, c.apps);
    EXPECT_EQ(Names(board.ApplicationsOf("s")), c.want);
    for (const auto& [app, generation] : c.want_generation) {
      ASSERT_NE(board.Application(app), nullptr);
      EXPECT_EQ((*board.Application(app))["status"]["generation"], generation);
    }
    // Publishing it again changes nothing.
    const uint64_t version = board.feed().version();
    board.PublishReconcile("s", Json{{"metadata", {{"name", "s"}}}}, c.apps);
    EXPECT_EQ(board.feed().version(), version);
  }
}

// Publishers of the same set and of a set taking its names, on several threads: a watcher that
// replays the feed from an empty board ends with exactly the board's Applications, and every
// change it sees is real (MODIFIED only with different JSON, ADDED only for an absent name,
// DELETED only for a present one). This exercises the publish's retry when its set changed
// between its comparison and its swap.
TEST(StatusBoardTest, ConcurrentPublishersKeepEveryChange) {
  StatusBoard board(1 << 20);
  const auto watched = WatchAll(board);
  uint64_t cursor = 0;
  constexpr int kRounds = 150;
  auto apps = [](int thread, int round) {
    std::vector<Json> out;
    for (int i = 0; i < 20; ++i) {
      // Each round changes a few apps and leaves out some; the threads disagree on values. The
      // payload makes each comparison take long enough for the threads to interleave.
      if ((i + round) % 7 == 0) continue;
      Json app = App("s-" + std::to_string(i), (i % 3 == 0) ? thread * 1000 + round : 0);
      app["spec"]["payload"] = std::vector<int>(1000, i);
      out.push_back(std::move(app));
    }
    return out;
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        board.PublishReconcile("s", Json{{"metadata", {{"name", "s"}}}}, apps(t, r));
      }
    });
  }
  threads.emplace_back([&] {
    for (int r = 0; r < kRounds; ++r) {
      board.PublishReconcile("other", Json{{"metadata", {{"name", "other"}}}},
                             std::vector<Json>{App("s-" + std::to_string(r % 20), r)});
      const std::string app = "s-" + std::to_string((r * 3) % 20);
      board.PublishApplication("s", app, App(app, 5000 + r));
    }
  });
  for (auto& t : threads) t.join();

  std::map<std::string, Json> replay;
  std::vector<Change> changes;
  std::atomic<bool> cancelled{false};
  int bogus = 0;
  while (board.feed().Next(StatusBoard::kApplications, &cursor, std::chrono::steady_clock::now(),
                           cancelled, &changes) == ChangeFeed::Read::kChanges) {
    for (const Change& c : changes) {
      auto it = replay.find(c.name);
      switch (c.type) {
        case ChangeType::kAdded:
          bogus += it != replay.end();
          replay[c.name] = *c.object;
          break;
        case ChangeType::kModified:
          bogus += it == replay.end() || it->second == *c.object;
          replay[c.name] = *c.object;
          break;
        case ChangeType::kDeleted:
          bogus += it == replay.end();
          replay.erase(c.name);
          break;
      }
    }
  }
  EXPECT_EQ(bogus, 0);
  std::map<std::string, Json> board_apps;
  uint64_t version = 0;
  const auto snapshot = board.Snapshot(StatusBoard::kApplications, &version);
  ASSERT_TRUE(snapshot.has_value());
  for (const auto& app : *snapshot) {
    board_apps[(*app)["metadata"]["name"].get<std::string>()] = *app;
  }
  // The feed's version also counts the rows and summaries derived after each publish: the
  // snapshot is current at or after the last Application change read.
  EXPECT_GE(version, cursor);
  EXPECT_EQ(replay.size(), board_apps.size());
  EXPECT_TRUE(replay == board_apps);
  // Each set lists exactly the apps it owns.
  for (const std::string set : {"s", "other"}) {
    for (const auto& app : board.ApplicationsOf(set)) {
      EXPECT_EQ(board.ApplicationOwner((*app)["metadata"]["name"].get<std::string>()), set);
    }
  }
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
