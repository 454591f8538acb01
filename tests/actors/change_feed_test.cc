#include "actors/change_feed.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "actors/status_board.h"
#include "tests/actors/watch_all.h"

namespace fleetwave::actors {
namespace {

using engine::Json;
using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

ChangeFeed::JsonPtr Obj(const std::string& name) {
  return std::make_shared<const Json>(Json{{"metadata", {{"name", name}}}});
}

// Versions grow by one per change across collections; a reader of one collection sees only
// its changes after the cursor, oldest first, and its cursor moves past them.
TEST(ChangeFeedTest, ReadsOneCollectionAfterCursor) {
  ChangeFeed feed(16);
  const ChangeFeed::Hold watched(feed, "a");
  std::atomic<bool> cancelled{false};
  EXPECT_EQ(feed.Record("a", ChangeType::kAdded, "x", Obj("x")), 1u);
  EXPECT_EQ(feed.Record("b", ChangeType::kAdded, "y", Obj("y")), 2u);
  EXPECT_EQ(feed.Record("a", ChangeType::kDeleted, "x", Obj("x")), 3u);
  std::vector<Change> out;
  uint64_t cursor = 1;
  ASSERT_EQ(feed.Next("a", &cursor, Clock::now() + seconds(5), cancelled, &out),
            ChangeFeed::Read::kChanges);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].version, 3u);
  EXPECT_EQ(out[0].type, ChangeType::kDeleted);
  EXPECT_EQ(cursor, 3u);
  EXPECT_EQ(feed.Next("a", &cursor, Clock::now() + milliseconds(10), cancelled, &out),
            ChangeFeed::Read::kTimedOut);
  EXPECT_STREQ(ChangeTypeName(ChangeType::kAdded), "ADDED");
  EXPECT_STREQ(ChangeTypeName(ChangeType::kModified), "MODIFIED");
}

// The ring is bounded: a reader whose next change was evicted is behind, and Record() never
// waits for it.
TEST(ChangeFeedTest, SlowReaderFallsBehindWithoutBlockingRecord) {
  ChangeFeed feed(4);
  const ChangeFeed::Hold watched(feed, "a");
  std::atomic<bool> cancelled{false};
  for (int i = 0; i < 100; ++i) feed.Record("a", ChangeType::kModified, "x", Obj("x"));
  std::vector<Change> out;
  uint64_t cursor = 95;  // 96 was evicted (97..100 kept)
  EXPECT_EQ(feed.Next("a", &cursor, Clock::now(), cancelled, &out), ChangeFeed::Read::kBehind);
  cursor = 96;
  ASSERT_EQ(feed.Next("a", &cursor, Clock::now(), cancelled, &out), ChangeFeed::Read::kChanges);
  EXPECT_EQ(out.size(), 4u);
}

// The ring is bounded by bytes too: big changes evict the oldest past the budget (the newest
// always stays), small ones are kept by the thousand, and a reader behind the evicted ones
// starts over. Lazy objects are counted by the size given, never built to be measured.
TEST(ChangeFeedTest, RingIsBoundedByBytes) {
  ChangeFeed feed(1000, {}, /*byte_budget=*/1000);
  const ChangeFeed::Hold watched(feed, "big");
  std::atomic<bool> cancelled{false};
  const std::string filler(300, 'x');
  for (int i = 0; i < 10; ++i) {
    feed.Record("big", ChangeType::kModified, "x",
                std::make_shared<const Json>(Json{{"f", filler}}));  // ~310 bytes each
  }
  std::vector<Change> out;
  uint64_t cursor = 6;  // 7 was evicted: 8, 9 and 10 fit in 1,000 bytes
  EXPECT_EQ(feed.Next("big", &cursor, Clock::now(), cancelled, &out), ChangeFeed::Read::kBehind);
  cursor = 7;
  ASSERT_EQ(feed.Next("big", &cursor, Clock::now(), cancelled, &out), ChangeFeed::Read::kChanges);
  EXPECT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].bytes, ApproximateJsonBytes(Json{{"f", filler}}));

  bool built = false;
  auto lazy = std::make_shared<const LazyJson>([&built] {
    built = true;
    return Json{{"f", "lazy"}};
  });
  const uint64_t v = feed.Record("big", ChangeType::kModified, "x", FeedObject(lazy), 5000);
  EXPECT_FALSE(built);
  cursor = v - 1;  // alone in the ring (larger than the budget, but the newest)
  out.clear();
  ASSERT_EQ(feed.Next("big", &cursor, Clock::now(), cancelled, &out), ChangeFeed::Read::kChanges);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ((*out[0].object)["f"], "lazy");
  EXPECT_TRUE(built);
  cursor = v - 2;
  EXPECT_EQ(feed.Next("big", &cursor, Clock::now(), cancelled, &out), ChangeFeed::Read::kBehind);
}

TEST(ChangeFeedTest, ApproximateJsonBytesIsTheDumpWithoutEscapes) {
  const Json j = {{"a", Json::array({1, "two", true, nullptr, Json::object()})}, {"bb", false}};
  EXPECT_LE(ApproximateJsonBytes(j), j.dump().size() + 16);
  EXPECT_GE(ApproximateJsonBytes(j) + 16, j.dump().size());
  const Json s = {{"key", std::string(100, 'x')}};
  EXPECT_EQ(ApproximateJsonBytes(s), s.dump().size());
}

// A collection may have a bound of its own; the others keep the default one.
TEST(ChangeFeedTest, CollectionsMayHaveTheirOwnBound) {
  ChangeFeed feed(100, {{"big", 2}});
  const ChangeFeed::Hold big(feed, "big");
  const ChangeFeed::Hold small(feed, "small");
  std::atomic<bool> cancelled{false};
  for (int i = 0; i < 5; ++i) {
    feed.Record("big", ChangeType::kModified, "x", Obj("x"));
    feed.Record("small", ChangeType::kModified, "y", Obj("y"));
  }
  std::vector<Change> out;
  uint64_t cursor = 0;
  EXPECT_EQ(feed.Next("big", &cursor, Clock::now(), cancelled, &out), ChangeFeed::Read::kBehind);
  cursor = 6;  // big's changes are the odd versions: 7 and 9 are kept
  ASSERT_EQ(feed.Next("big", &cursor, Clock::now(), cancelled, &out), ChangeFeed::Read::kChanges);
  EXPECT_EQ(out.size(), 2u);
  cursor = 0;
  out.clear();
  ASSERT_EQ(feed.Next("small", &cursor, Clock::now(), cancelled, &out), ChangeFeed::Read::kChanges);
  EXPECT_EQ(out.size(), 5u);
}

// Memory follows the watchers (docs/architecture.md, "Memory budget"): an unwatched collection
// keeps none of its changes (nor builds a lazy one to measure it) while its versions still grow;
// a watched one keeps them; when its last watcher goes, the ring is emptied, and a reader left
// with an old cursor is behind (it relists) instead of reading past a gap.
TEST(ChangeFeedTest, KeepsChangesOnlyWhileWatched) {
  ChangeFeed feed(1000);
  std::atomic<bool> cancelled{false};
  bool built = false;
  auto lazy = std::make_shared<const LazyJson>([&built] {
    built = true;
    return Json{{"f", "lazy"}};
  });
  EXPECT_EQ(feed.Record("a", ChangeType::kAdded, "x", FeedObject(lazy)), 1u);
  for (int i = 0; i < 50; ++i) feed.Record("a", ChangeType::kModified, "x", Obj("x"));
  EXPECT_EQ(feed.Kept("a"), 0u);
  EXPECT_FALSE(built);
  EXPECT_EQ(feed.version(), 51u);
  // Nor did they wake anyone: with nobody watching, a rollout's changes cost no wake-ups.
  EXPECT_EQ(feed.notifications(), 0u);
  std::vector<Change> out;
  uint64_t stale = 10;
  EXPECT_EQ(feed.Next("a", &stale, Clock::now(), cancelled, &out), ChangeFeed::Read::kBehind);

  uint64_t cursor = feed.version();  // a watcher's snapshot, taken after its hold
  {
    const ChangeFeed::Hold watched(feed, "a");
    const ChangeFeed::Hold again(feed, "a");  // a second stream of the same collection
    for (int i = 0; i < 5; ++i) feed.Record("a", ChangeType::kModified, "x", Obj("x"));
    feed.Record("b", ChangeType::kAdded, "y", Obj("y"));  // another collection: unwatched
    EXPECT_EQ(feed.Kept("a"), 5u);
    EXPECT_EQ(feed.Kept("b"), 0u);
    EXPECT_EQ(feed.notifications(), 5u);  // the watched collection's changes only
    ASSERT_EQ(feed.Next("a", &cursor, Clock::now(), cancelled, &out), ChangeFeed::Read::kChanges);
    EXPECT_EQ(out.size(), 5u);
    EXPECT_EQ(cursor, 56u);
  }
  EXPECT_EQ(feed.Kept("a"), 0u);
  uint64_t behind = 53;
  EXPECT_EQ(feed.Next("a", &behind, Clock::now(), cancelled, &out), ChangeFeed::Read::kBehind);
}

// A waiting reader wakes for a change, and for WakeAll() once its flag is set.
TEST(ChangeFeedTest, WaitingReaderWakes) {
  ChangeFeed feed(4);
  const ChangeFeed::Hold watched(feed, "a");
  std::atomic<bool> cancelled{false};
  auto reader = std::async(std::launch::async, [&] {
    std::vector<Change> out;
    uint64_t cursor = 0;
    return feed.Next("a", &cursor, Clock::now() + seconds(30), cancelled, &out);
  });
  feed.Record("a", ChangeType::kAdded, "x", Obj("x"));
  ASSERT_EQ(reader.wait_for(seconds(10)), std::future_status::ready);
  EXPECT_EQ(reader.get(), ChangeFeed::Read::kChanges);

  auto waiting = std::async(std::launch::async, [&] {
    std::vector<Change> out;
    uint64_t cursor = 1;
    return feed.Next("a", &cursor, Clock::now() + seconds(30), cancelled, &out);
  });
  cancelled = true;
  feed.WakeAll();
  ASSERT_EQ(waiting.wait_for(seconds(10)), std::future_status::ready);
  EXPECT_EQ(waiting.get(), ChangeFeed::Read::kCancelled);
}

// The board records what its list readers would see change: a snapshot and its version, then
// exactly the changes after it; republishing equal JSON records nothing.
TEST(StatusBoardFeedTest, SnapshotThenChanges) {
  StatusBoard board;
  const auto watched = WatchAll(board);
  board.PublishAppSet("s", Json{{"metadata", {{"name", "s"}}}},
                      {{"a", Json{{"metadata", {{"name", "a"}}}}}});
  uint64_t version = 0;
  auto apps = board.Snapshot(StatusBoard::kApplications, &version);
  ASSERT_TRUE(apps.has_value());
  EXPECT_EQ(apps->size(), 1u);
  EXPECT_FALSE(board.Snapshot("nope", &version).has_value());

  struct Step {
    std::string name;
    std::function<void()> act;
    std::vector<std::pair<std::string, std::string>> want;  // collection, "TYPE name"
  };
  const Json set = Json{{"metadata", {{"name", "s"}}}};
  const std::vector<Step> steps = {
      {"RepublishEqual",
       [&] {
         board.PublishAppSet("s", set, {{"a", Json{{"metadata", {{"name", "a"}}}}}});
       },
       {}},
      {"ModifyAndAdd",
       [&] {
         board.PublishAppSet("s", set,
                             {{"a", Json{{"metadata", {{"name", "a"}}}, {"x", 1}}},
                              {"b", Json{{"metadata", {{"name", "b"}}}}}});
       },
       {{"applications", "MODIFIED a"}, {"applications", "ADDED b"}}},
      {"GoneApp",
       [&] {
         board.PublishAppSet("s", set, {{"b", Json{{"metadata", {{"name", "b"}}}}}});
       },
       {{"applications", "DELETED a"}}},
      {"Cluster",
       [&] {
         board.PublishCluster({"c", "https://c", true, true});
       },
       {{"clusters", "ADDED c"}}},
      {"ClusterSame",
       [&] {
         board.PublishCluster({"c", "https://c", true, true});
       },
       {}},
      {"RemoveSet",
       [&] { board.RemoveAppSet("s"); },
       {{"applications", "DELETED b"}, {"applicationsets", "DELETED s"}}},
  };
  std::atomic<bool> cancelled{false};
  for (const Step& step : steps) {
    SCOPED_TRACE(step.name);
    step.act();
    std::vector<std::pair<std::string, std::string>> got;
    uint64_t next = version;
    for (const char* collection : {"applications", "applicationsets", "clusters"}) {
      uint64_t cursor = version;
      std::vector<Change> out;
      if (board.feed().Next(collection, &cursor, Clock::now(), cancelled, &out) ==
          ChangeFeed::Read::kChanges) {
        for (const Change& c : out) {
          got.emplace_back(collection, std::string(ChangeTypeName(c.type)) + " " + c.name);
        }
        next = std::max(next, cursor);
      }
    }
    EXPECT_EQ(got, step.want);
    version = next;
  }
}

}  // namespace
}  // namespace fleetwave::actors
