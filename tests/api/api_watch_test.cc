// The API's ?watch=1 streams over a real socket: the snapshot as ADDED lines and the BOOKMARK,
// changes as they are published (MODIFIED only when the JSON differs, DELETED with the last
// object), keepalive BOOKMARKs, a slow reader dropped while publishers run at full speed, the
// watch limit, and a stop that ends every stream at once.
#include "api/api_watch.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "api/api_routes.h"
#include "api/api_server.h"
#include "tests/api/api_test_client.h"
#include "tests/api/api_test_fixture.h"
#include "tests/api/api_watch_client.h"

namespace fleetwave::api {
namespace {

using actors::StatusBoard;

using engine::Json;
using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::ApiServerFixture;
using testing::Http;
using testing::WatchClient;

const std::string kBookmark = R"({"type":"BOOKMARK","object":{"initialEventsEnd":true}})";

Json Parse(const std::optional<std::string>& line) {
  return line ? Json::parse(*line, nullptr, false) : Json();
}

// Reads the snapshot up to and including the first BOOKMARK; returns the ADDED objects.
std::vector<Json> ReadSnapshot(WatchClient& w) {
  std::vector<Json> added;
  while (auto line = w.NextLine()) {
    if (*line == kBookmark) return added;
    const Json event = Parse(line);
    EXPECT_EQ(event["type"], "ADDED") << *line;
    added.push_back(event["object"]);
  }
  ADD_FAILURE() << "the stream ended before its BOOKMARK";
  return added;
}

TEST(ApiWatchQueryTest, WatchQuery) {
  struct Case {
    std::string name;
    std::string query;
    bool want;
  };
  const std::vector<Case> cases = {
      {"Empty", "", false},        {"One", "watch=1", true},       {"True", "watch=true", true},
      {"Zero", "watch=0", false},  {"Among", "a=b&watch=1", true}, {"Prefix", "xwatch=1", false},
      {"NoValue", "watch", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(WantsWatch(c.query), c.want);
  }
}

class ApiWatchTest : public ApiServerFixture {};

// Every list endpoint streams: 200, application/json-lines, chunked; the snapshot's ADDED
// objects are exactly the list's items, in the list's order, then the BOOKMARK.
TEST_F(ApiWatchTest, SnapshotIsTheListThenBookmark) {
  Start();
  for (const std::string path : {"/api/v1/applicationsets", "/api/v1/applications",
                                 "/api/v1/clusters", "/api/v1/workloads"}) {
    SCOPED_TRACE(path);
    const Json list = Json::parse(Get(path).body);
    WatchClient w(server_->port(), path + "?watch=1");
    ASSERT_TRUE(w.connected());
    EXPECT_EQ(w.status(), 200);
    EXPECT_EQ(w.header("content-type"), "application/json-lines");
    EXPECT_EQ(w.header("transfer-encoding"), "chunked");
    const std::vector<Json> added = ReadSnapshot(w);
    EXPECT_EQ(Json(added), list["items"]);
  }
}

// After the snapshot each published change is one line: MODIFIED when an object's JSON changed,
// nothing when it was republished unchanged, ADDED for a new one, DELETED (with the last
// object) when it goes; the set's own stream sees the set's changes.
TEST_F(ApiWatchTest, ChangesFollowTheSnapshot) {
  Start();
  WatchClient apps(server_->port(), "/api/v1/applications?watch=1");
  WatchClient sets(server_->port(), "/api/v1/applicationsets?watch=1");
  ASSERT_EQ(ReadSnapshot(apps).size(), 2u);
  ASSERT_EQ(ReadSnapshot(sets).size(), 1u);

  Json dev = AppJson("guestbook-dev");
  dev["status"]["sync"]["status"] = "OutOfSync";
  board_.PublishApplication("guestbook", "guestbook-dev", dev);
  Json event = Parse(apps.NextLine());
  EXPECT_EQ(event["type"], "MODIFIED");
  EXPECT_EQ(event["object"], dev);

  // Unchanged: no line. The next line is the following real change.
  board_.PublishApplication("guestbook", "guestbook-dev", dev);
  board_.PublishApplication("guestbook", "guestbook-prod", AppJson("guestbook-prod"));
  event = Parse(apps.NextLine());
  EXPECT_EQ(event["type"], "ADDED");
  EXPECT_EQ(event["object"]["metadata"]["name"], "guestbook-prod");

  board_.RemoveAppSet("guestbook");
  std::vector<std::string> deleted;
  for (int i = 0; i < 3; ++i) {
    event = Parse(apps.NextLine());
    EXPECT_EQ(event["type"], "DELETED");
    deleted.push_back(event["object"]["metadata"]["name"].get<std::string>());
  }
  EXPECT_EQ(deleted, (std::vector<std::string>{"guestbook-dev", "guestbook-prod", "guestbook-qa"}));
  EXPECT_EQ(Parse(apps.NextLine(milliseconds(0))), Json()) << "no further line";

  event = Parse(sets.NextLine());
  EXPECT_EQ(event["type"], "DELETED");
  EXPECT_EQ(event["object"]["metadata"]["name"], "guestbook");
}

TEST_F(ApiWatchTest, ClusterChangesAndRemoval) {
  Start();
  WatchClient w(server_->port(), "/api/v1/clusters?watch=1");
  ASSERT_EQ(ReadSnapshot(w).size(), 2u);
  board_.PublishCluster({"qa", "https://qa.example:6443", true, false});
  EXPECT_EQ(Parse(w.NextLine()), (Json{{"type", "MODIFIED"},
                                       {"object",
                                        {{"name", "qa"},
                                         {"server", "https://qa.example:6443"},
                                         {"up", true},
                                         {"synced", false}}}}));
  board_.RemoveCluster("dev");
  const Json event = Parse(w.NextLine());
  EXPECT_EQ(event["type"], "DELETED");
  EXPECT_EQ(event["object"]["name"], "dev");
}

// Workloads stream like the other lists; a cluster's removal deletes each of its workloads.
TEST_F(ApiWatchTest, WorkloadChanges) {
  auto item = [](const std::string& cluster, const std::string& name, bool exceeded) {
    return Json{{"cluster", cluster},
                {"namespace", "shop"},
                {"kind", "Deployment"},
                {"name", name},
                {"exceeded", exceeded}};
  };
  board_.PublishWorkload(item("dev", "web", false));
  Start();
  WatchClient w(server_->port(), "/api/v1/workloads?watch=1");
  EXPECT_EQ(Json(ReadSnapshot(w)), Json::parse(Get("/api/v1/workloads").body)["items"]);
  board_.PublishWorkload(item("dev", "web", true));
  EXPECT_EQ(Parse(w.NextLine()),
            (Json{{"type", "MODIFIED"}, {"object", item("dev", "web", true)}}));
  board_.PublishWorkload(item("dev", "api", false));
  EXPECT_EQ(Parse(w.NextLine())["type"], "ADDED");
  board_.RemoveWorkloadsOf("dev");
  EXPECT_EQ(Parse(w.NextLine()),
            (Json{{"type", "DELETED"}, {"object", item("dev", "api", false)}}));
  EXPECT_EQ(Parse(w.NextLine()), (Json{{"type", "DELETED"}, {"object", item("dev", "web", true)}}));
}

// Quiet streams carry a BOOKMARK per keepalive interval.
TEST_F(ApiWatchTest, KeepaliveBookmarks) {
  ApiServerOptions options;
  options.watch_keepalive = milliseconds(50);
  Start(options);
  WatchClient w(server_->port(), "/api/v1/clusters?watch=1");
  ReadSnapshot(w);
  EXPECT_EQ(w.NextLine(seconds(5)), kBookmark);
  EXPECT_EQ(w.NextLine(seconds(5)), kBookmark);
}

// Up to max_watches streams; one more is 503 while ordinary requests are still served, and a
// slot frees when its stream's client goes away.
TEST_F(ApiWatchTest, WatchLimit) {
  ApiServerOptions options;
  options.max_watches = 1;
  options.handler_threads = 2;
  options.watch_keepalive = milliseconds(20);  // a gone client is found by the next write
  Start(options);
  auto first = std::make_unique<WatchClient>(server_->port(), "/api/v1/applications?watch=1");
  ReadSnapshot(*first);
  WatchClient second(server_->port(), "/api/v1/applications?watch=1");
  EXPECT_EQ(second.status(), 503);
  EXPECT_EQ(second.header("retry-after"), "5");
  EXPECT_EQ(Get("/api/v1/applications").status, 200);
  EXPECT_EQ(Get("/healthz").status, 200);

  first.reset();
  const auto deadline = std::chrono::steady_clock::now() + seconds(10);
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    WatchClient again(server_->port(), "/api/v1/applications?watch=1");
    status = again.status();
    if (status == 200) break;
  }
  EXPECT_EQ(status, 200);
}

// Stop() ends streams waiting for changes at once, each with the last chunk.
TEST_F(ApiWatchTest, StopEndsStreams) {
  Start();
  WatchClient apps(server_->port(), "/api/v1/applications?watch=1");
  WatchClient clusters(server_->port(), "/api/v1/clusters?watch=1");
  ReadSnapshot(apps);
  ReadSnapshot(clusters);
  const auto start = std::chrono::steady_clock::now();
  server_->Stop();
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, milliseconds(500)) << std::chrono::duration_cast<milliseconds>(took).count();
  for (WatchClient* w : {&apps, &clusters}) {
    EXPECT_EQ(w->NextLine(seconds(5)), std::nullopt);
    EXPECT_TRUE(w->ended());
    EXPECT_TRUE(w->clean_end());
  }
}

// A stream whose writes are stalled on a client that stopped reading does not hold the stop
// for the 30 s write timeout: Stop() closes it.
TEST_F(ApiWatchTest, StopEndsStalledStream) {
  Start();
  WatchClient reading(server_->port(), "/api/v1/applications?watch=1");
  ReadSnapshot(reading);
  WatchClient stalled(server_->port(), "/api/v1/applications?watch=1", 4096);
  ASSERT_EQ(stalled.status(), 200);
  // Enough changes to fill the stalled client's socket buffers (its stream thread then blocks
  // in a write); the reading client keeps up.
  const std::string filler(32 * 1024, 'x');
  for (int i = 0; i < 300; ++i) {
    Json app = AppJson("guestbook-dev");
    app["status"]["filler"] = filler + std::to_string(i);
    board_.PublishApplication("guestbook", "guestbook-dev", app);
    ASSERT_TRUE(reading.NextLine());
  }
  const auto start = std::chrono::steady_clock::now();
  server_->Stop();
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, seconds(3)) << std::chrono::duration_cast<milliseconds>(took).count();
  EXPECT_EQ(reading.NextLine(seconds(5)), std::nullopt);
  EXPECT_TRUE(reading.ended());
}

// A reader that stops reading is dropped once it lags more than the feed's ring holds; the
// publisher never waits for it (every publish returns while the reader is stalled), and when
// the reader reads again it gets what was buffered and then the end of the stream.
TEST(ApiWatchSlowReaderTest, SlowReaderDroppedWithoutBlockingPublisher) {
  StatusBoard board(/*feed_capacity=*/8);
  board.SetReady(true);
  ApiServer server(board, nullptr);
  std::mutex mu;
  std::vector<std::string> logs;
  ApiServerOptions options;
  options.listen = "127.0.0.1:0";
  options.log = [&](const std::string& line) {
    std::lock_guard<std::mutex> lock(mu);
    logs.push_back(line);
  };
  ASSERT_EQ(server.Start(options), std::nullopt);
  WatchClient w(server.port(), "/api/v1/applications?watch=1", 4096);
  ReadSnapshot(w);

  constexpr int kChanges = 400;  // 400 x 32 KiB: far more than the socket buffers hold
  const std::string filler(32 * 1024, 'x');
  auto publisher = std::async(std::launch::async, [&] {
    for (int i = 0; i < kChanges; ++i) {
      board.PublishApplication(
          "s", "app-" + std::to_string(i),
          Json{{"metadata", {{"name", "app-" + std::to_string(i)}}}, {"filler", filler}});
    }
  });
  // The reader reads nothing meanwhile: the publisher must still finish.
  ASSERT_EQ(publisher.wait_for(seconds(10)), std::future_status::ready)
      << "a publish waited for a stalled reader";

  int received = 0;
  while (auto line = w.NextLine(seconds(20))) ++received;
  EXPECT_TRUE(w.ended()) << "the stream of a dropped reader ends";
  EXPECT_LT(received, kChanges);
  std::lock_guard<std::mutex> lock(mu);
  bool logged = false;
  for (const auto& l : logs) logged = logged || l.find("dropped") != std::string::npos;
  EXPECT_TRUE(logged);
}

// ?watch=1 on a single object or with another method is not a watch.
TEST_F(ApiWatchTest, OnlyListGetsWatch) {
  Start();
  const auto one = Get("/api/v1/applications/guestbook-dev?watch=1");
  EXPECT_EQ(one.status, 200);
  EXPECT_EQ(one.header("content-type"), "application/json");
  EXPECT_EQ(Http(server_->port(), "POST", "/api/v1/applications?watch=1").status, 405);
}

}  // namespace
}  // namespace fleetwave::api
