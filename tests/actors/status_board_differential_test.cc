// The StatusBoard's incrementally kept views against a from-scratch build (engine::AppRowsOf and
// engine::Summarize over what the board serves), after every step of seeded random publish
// sequences: apps changing, appearing and going, status entries and rollout facts changing,
// apps moving between sets, single-app publishes and set removals. The feed is replayed too: it
// must carry exactly the changes that lead to the board's current rows, summaries and sets.
// FLEETWAVE_BOARD_SEEDS=N runs N seeds instead of CI's fixed few.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "actors/status_board.h"
#include "engine/appset/appset_summary.h"
#include "tests/actors/watch_all.h"

namespace fleetwave::actors {
namespace {

using engine::Json;
using JsonPtr = std::shared_ptr<const Json>;

const char* kHealth[] = {"Healthy", "Progressing", "Degraded", "Missing"};
const char* kRollout[] = {"Healthy", "Progressing", "Pending", "Waiting"};
const char* kPhase[] = {"", "Running", "Succeeded", "Failed"};

JsonPtr RandomApp(std::mt19937& rng, const std::string& name) {
  Json app = {{"metadata", {{"name", name}, {"labels", {{"env", rng() % 2 ? "prod" : "qa"}}}}},
              {"spec", {{"destination", {{"name", "c" + std::to_string(rng() % 4)}}}}},
              {"status",
               {{"health", {{"status", kHealth[rng() % 4]}}},
                {"sync", {{"status", rng() % 2 ? "Synced" : "OutOfSync"}}}}}};
  if (const char* phase = kPhase[rng() % 4]; *phase) {
    app["status"]["operationState"] = {{"phase", phase}, {"message", "op " + name}};
  }
  return std::make_shared<const Json>(std::move(app));
}

Json Entry(std::mt19937& rng, const std::string& app) {
  return Json{{"application", app},
              {"status", kRollout[rng() % 4]},
              {"step", std::to_string(1 + rng() % 3)},
              {"message", "m" + std::to_string(rng() % 2)}};
}

// One set as a publisher holds it: its apps by name and its JSON's parts.
struct Publisher {
  std::map<std::string, JsonPtr> apps;
  std::map<std::string, Json> entries;
  int step = 1;
  bool late = false;
  std::vector<std::string> skipped;
  int steps = 3;

  Json SetJson(const std::string& name) const {
    Json list = Json::array();
    for (const auto& [_, e] : entries) list.push_back(e);
    Json steps_json = Json::array();
    for (int i = 0; i < steps; ++i) steps_json.push_back({{"matchExpressions", Json::array()}});
    Json skipped_json = Json::object();
    for (const auto& app : skipped) skipped_json[app] = true;
    return Json{
        {"metadata", {{"name", name}}},
        {"spec",
         {{"strategy", {{"type", "RollingSync"}, {"rollingSync", {{"steps", steps_json}}}}}}},
        {"status",
         {{"applicationStatus", std::move(list)},
          {"rollout",
           {{"step", step}, {"stepDeadlineExceeded", late}, {"skipped", skipped_json}}}}}};
  }
  std::vector<JsonPtr> Apps() const {
    std::vector<JsonPtr> out;
    for (const auto& [_, app] : apps) out.push_back(app);
    return out;
  }
};

void ExpectViewsFromScratch(const StatusBoard& board, const std::string& set,
                            const std::string& at) {
  const JsonPtr set_json = board.AppSet(set);
  const std::vector<JsonPtr> apps = board.ApplicationsOf(set);
  static const Json kNoSet = Json::object();
  std::vector<const Json*> pointers;
  for (const JsonPtr& app : apps) pointers.push_back(app.get());
  std::vector<engine::AppRow> rows = engine::AppRowsOf(set_json ? *set_json : kNoSet, pointers);
  for (engine::AppRow& row : rows) row.appset = set;
  Json expected_rows = Json::array();
  for (const engine::AppRow& row : rows) expected_rows.push_back(engine::AppRowJson(row));
  Json actual_rows = Json::array();
  for (const StatusBoard::Row& row : board.RowsOf(set)) actual_rows.push_back(*row.json);
  ASSERT_EQ(actual_rows.dump(), expected_rows.dump()) << at << " rows of " << set;

  const JsonPtr summary = board.Summary(set);
  if (!set_json && apps.empty()) {
    // Views follow the set while the board knows it (its JSON or an apps entry).
    return;
  }
  ASSERT_NE(summary, nullptr) << at << " summary of " << set;
  Json expected = engine::SummaryJson(
      engine::Summarize(set_json ? *set_json : kNoSet, rows, StatusBoard::kSummaryAttention));
  expected["metadata"]["name"] = set;
  ASSERT_EQ(summary->dump(), expected.dump()) << at << " summary of " << set;
}

// Applies the feed's changes of `collection` to `replay` (name -> JSON).
void Replay(const StatusBoard& board, const std::string& collection, uint64_t* cursor,
            std::map<std::string, Json>* replay, const std::string& at) {
  std::vector<Change> changes;
  const std::atomic<bool> cancelled{false};
  const auto read =
      board.feed().Next(collection, cursor, std::chrono::steady_clock::now(), cancelled, &changes);
  ASSERT_NE(read, ChangeFeed::Read::kBehind) << at;
  for (const Change& c : changes) {
    if (c.type == ChangeType::kDeleted) {
      ASSERT_EQ(replay->erase(c.name), 1u) << at << " " << collection << " deleted " << c.name;
    } else {
      auto it = replay->find(c.name);
      ASSERT_EQ(c.type == ChangeType::kAdded, it == replay->end()) << at << " " << c.name;
      // A MODIFIED change always changes something (an unchanged object is not recorded).
      if (it != replay->end()) {
        ASSERT_NE(it->second, *c.object) << at << " " << c.name;
      }
      (*replay)[c.name] = *c.object;
    }
  }
}

void RunSeed(unsigned seed) {
  std::mt19937 rng(seed);
  StatusBoard board;
  const auto watched = WatchAll(board);
  const std::vector<std::string> sets = {"s0", "s1"};
  std::map<std::string, Publisher> publishers;
  std::map<std::string, std::map<std::string, Json>> replay;  // collection -> name -> JSON
  std::map<std::string, uint64_t> cursors;
  const int names = 4 + static_cast<int>(rng() % 12);
  for (int event = 0; event < 120; ++event) {
    const std::string set = sets[rng() % sets.size()];
    Publisher& p = publishers[set];
    const unsigned kind = rng() % 20;
    const std::string app = "app-" + std::to_string(rng() % names);
    if (kind < 10) {  // a reconcile: a few apps and entries change
      for (unsigned k = 0, n = rng() % 3; k <= n; ++k) {
        const std::string a = "app-" + std::to_string(rng() % names);
        if (rng() % 3) p.apps[a] = RandomApp(rng, a);
        if (rng() % 2) p.entries[a] = Entry(rng, a);
      }
    } else if (kind < 12) {
      p.apps.erase(app);
      p.entries.erase(app);
    } else if (kind < 14) {
      p.step = 1 + static_cast<int>(rng() % 3);
      p.late = rng() % 2;
      p.skipped.clear();
      if (rng() % 2) p.skipped.push_back(app);
      if (rng() % 4 == 0) p.steps = 1 + static_cast<int>(rng() % 3);
    } else if (kind < 15) {  // an entry for an app the set does not have, or a duplicate shape
      p.entries["zz-" + app] = Entry(rng, "zz-" + app);
    } else if (kind < 17) {  // one app alone, possibly taking it from the other set
      JsonPtr a = RandomApp(rng, app);
      board.PublishApplication(set, app, *a);
      for (auto& [other, q] : publishers) q.apps.erase(app);
      p.apps[app] = a;
      goto check;
    } else if (kind < 18) {
      board.RemoveAppSet(set);
      publishers.erase(set);
      goto check;
    }
    // The apps one set publishes are its own: the other publisher loses them on its next
    // publish, as a set that lost an app to another does.
    for (auto& [other, q] : publishers) {
      if (other == set) continue;
      for (const auto& [a, _] : p.apps) q.apps.erase(a);
    }
    board.PublishReconcile(set, publishers[set].SetJson(set), publishers[set].Apps());
  check:
    const std::string at = "seed " + std::to_string(seed) + " event " + std::to_string(event);
    for (const std::string& s : sets) {
      ExpectViewsFromScratch(board, s, at);
      if (::testing::Test::HasFatalFailure()) return;
      if (auto q = publishers.find(s); q != publishers.end() && board.AppSet(s)) {
        ASSERT_EQ(board.AppSet(s)->dump(), q->second.SetJson(s).dump()) << at;
      }
    }
    static const char* const kViews[] = {StatusBoard::kAppSets, StatusBoard::kRows,
                                         StatusBoard::kSummaries};
    for (const char* collection : kViews) {
      Replay(board, collection, &cursors[collection], &replay[collection], at);
      if (::testing::Test::HasFatalFailure()) return;
      uint64_t version = 0;
      std::map<std::string, Json> now;
      const auto snapshot = board.Snapshot(collection, &version);
      for (const FeedObject& o : *snapshot) {
        const Json& j = *o;
        const std::string name = j.contains("metadata") ? j["metadata"]["name"].get<std::string>()
                                                        : j["name"].get<std::string>();
        now[name] = j;
      }
      ASSERT_EQ(Json(replay[collection]).dump(), Json(now).dump()) << at << " " << collection;
    }
  }
}

TEST(StatusBoardDifferentialTest, IncrementalViewsEqualAFromScratchBuildAfterEveryPublish) {
  unsigned seeds = 25;
  if (const char* n = std::getenv("FLEETWAVE_BOARD_SEEDS")) seeds = std::stoul(n);
  for (unsigned seed = 1; seed <= seeds; ++seed) {
    RunSeed(seed);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace fleetwave::actors
