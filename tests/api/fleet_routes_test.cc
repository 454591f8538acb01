// The fleet view's routes over a real socket (api/fleet_routes.h): filtered and paged
// Applications and rows, per-set summaries, and a filtered watch that follows apps in and out of
// its filter.
#include "api/fleet_routes.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "tests/api/api_test_client.h"
#include "tests/api/api_test_fixture.h"
#include "tests/api/api_watch_client.h"

namespace fleetwave::api {
namespace {

using engine::Json;
using testing::WatchClient;

const std::string kBookmark = R"({"type":"BOOKMARK","object":{"initialEventsEnd":true}})";

Json App(const std::string& name, const std::string& cluster, const std::string& health) {
  return Json{{"apiVersion", "argoproj.io/v1alpha1"},
              {"kind", "Application"},
              {"metadata", {{"name", name}, {"labels", {{"region", cluster.substr(0, 2)}}}}},
              {"spec", {{"destination", {{"name", cluster}}}}},
              {"status", {{"health", {{"status", health}}}, {"sync", {{"status", "Synced"}}}}}};
}

Json Entry(const std::string& app, const std::string& status, int step) {
  return Json{{"application", app}, {"status", status}, {"step", std::to_string(step)}};
}

std::vector<std::string> Names(const Json& list, const char* field = nullptr) {
  std::vector<std::string> out;
  for (const Json& item : list["items"]) {
    out.push_back(field ? item[field].get<std::string>()
                        : item["metadata"]["name"].get<std::string>());
  }
  return out;
}

class FleetRoutesTest : public testing::ApiServerFixture {
 protected:
  // web: two steps; dev healthy in step 1, eu1 degraded and eu2 progressing in step 2, us1
  // waiting for step 2 as well.
  void PublishWeb(const std::string& eu2_health = "Progressing") {
    Json set = {
        {"metadata", {{"name", "web"}}},
        {"spec",
         {{"strategy",
           {{"type", "RollingSync"},
            {"rollingSync",
             {{"steps", Json::array({Json{{"matchExpressions", Json::array()}},
                                     Json{{"maxUpdate", "50%"}}})}}}}}}},
        {"status",
         {{"rollout", {{"step", 2}}},
          {"applicationStatus",
           Json::array({Entry("web-dev", "Healthy", 1), Entry("web-eu1", "Progressing", 2),
                        Entry("web-eu2", eu2_health == "Healthy" ? "Healthy" : "Progressing", 2),
                        Entry("web-us1", "Waiting", 2)})}}}};
    board_.PublishAppSet("web", set,
                         {{"web-dev", App("web-dev", "dev", "Healthy")},
                          {"web-eu1", App("web-eu1", "eu1", "Degraded")},
                          {"web-eu2", App("web-eu2", "eu2", eu2_health)},
                          {"web-us1", App("web-us1", "us1", "Missing")}});
  }
};

TEST_F(FleetRoutesTest, ApplicationsFilterAndPageInNameOrder) {
  PublishWeb();
  Start();
  struct Case {
    std::string query;
    std::vector<std::string> want;
  } cases[] = {
      {"appset=web", {"web-dev", "web-eu1", "web-eu2", "web-us1"}},
      {"appset=web&step=2", {"web-eu1", "web-eu2", "web-us1"}},
      {"status=Degraded", {"web-eu1"}},
      {"health=Healthy", {"web-dev"}},  // the fixture's guestbook apps have no health
      {"cluster=eu1,eu2", {"web-eu1", "web-eu2"}},
      {"labelSelector=region%3Deu", {"web-eu1", "web-eu2"}},
      {"search=us", {"web-us1"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.query);
    const auto r = Get("/api/v1/applications?" + c.query);
    ASSERT_EQ(r.status, 200) << r.body;
    const Json list = Json::parse(r.body);
    EXPECT_EQ(list["kind"], "ApplicationList");
    EXPECT_EQ(Names(list), c.want);
    EXPECT_FALSE(list["metadata"].contains("continue"));
  }

  // Pages of two: every app once, in order; the last page has no continue.
  std::vector<std::string> seen;
  std::string path = "/api/v1/applications?limit=2";
  for (int page = 0; page < 10; ++page) {
    const Json list = Json::parse(Get(path).body);
    for (const std::string& name : Names(list)) seen.push_back(name);
    if (!list["metadata"].contains("continue")) break;
    EXPECT_EQ(list["metadata"]["remainingItemCount"], 6 - seen.size());
    path =
        "/api/v1/applications?limit=2&continue=" + list["metadata"]["continue"].get<std::string>();
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"guestbook-dev", "guestbook-qa", "web-dev", "web-eu1",
                                            "web-eu2", "web-us1"}));
}

TEST_F(FleetRoutesTest, BadQueriesAre400NamingTheParameter) {
  Start();
  struct Case {
    std::string path;
    std::string message;
  } cases[] = {
      {"/api/v1/applications?step=x", "step: \"x\" is not a step number (1, 2, ...)"},
      {"/api/v1/rows?limit=0", "limit: \"0\" is not a number from 1 to 10000"},
      {"/api/v1/rows?continue=bogus",
       "continue: not a token this server issued (start the list again)"},
      {"/api/v1/applications?status=Degraded&watch=1",
       "a watch of applications takes no filters: watch /api/v1/rows with the same filters (one "
       "small row per application)"},
      {"/api/v1/rows?limit=5&watch=1", "a watch is not paged: drop limit and continue"},
      {"/api/v1/summaries?step=1", "unknown query parameter \"step\" (allowed: appset, watch)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path);
    const auto r = Get(c.path);
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(Json::parse(r.body)["message"], c.message);
  }
}

TEST_F(FleetRoutesTest, RowsAreSmallAndCarryTheDisplayStatus) {
  PublishWeb();
  Start();
  const Json list = Json::parse(Get("/api/v1/rows?appset=web").body);
  EXPECT_EQ(list["kind"], "ApplicationRowList");
  ASSERT_EQ(Names(list, "name"),
            (std::vector<std::string>{"web-dev", "web-eu1", "web-eu2", "web-us1"}));
  EXPECT_EQ(list["items"][1], (Json{{"name", "web-eu1"},
                                    {"appset", "web"},
                                    {"cluster", "eu1"},
                                    {"step", 2},
                                    {"status", "Degraded"},
                                    {"health", "Degraded"},
                                    {"sync", "Synced"},
                                    {"rollout", "Progressing"},
                                    {"labels", {{"region", "eu"}}}}));
  EXPECT_EQ(list["items"][3]["status"], "Waiting");
}

TEST_F(FleetRoutesTest, SummaryCountsPerStepAndListsWhatNeedsAttention) {
  PublishWeb();
  Start();
  const auto r = Get("/api/v1/applicationsets/web/summary");
  ASSERT_EQ(r.status, 200) << r.body;
  const Json s = Json::parse(r.body);
  EXPECT_EQ(s["kind"], "ApplicationSetSummary");
  EXPECT_EQ(s["strategy"], "RollingSync");
  EXPECT_EQ(s["currentStep"], 2);
  EXPECT_EQ(s["total"], 4);
  ASSERT_EQ(s["steps"].size(), 2u);
  EXPECT_EQ(s["steps"][0]["counts"]["Healthy"], 1);
  EXPECT_EQ(s["steps"][1]["counts"]["Degraded"], 1);
  EXPECT_EQ(s["steps"][1]["counts"]["Progressing"], 1);
  EXPECT_EQ(s["steps"][1]["counts"]["Waiting"], 1);
  EXPECT_EQ(s["steps"][1]["maxUpdate"], "50%");
  EXPECT_EQ(s["steps"][1]["strip"], "146");  // eu1 Degraded, eu2 Progressing, us1 Waiting
  ASSERT_EQ(s["attention"].size(), 1u);
  EXPECT_EQ(s["attention"][0]["name"], "web-eu1");

  EXPECT_EQ(Get("/api/v1/applicationsets/nope/summary").status, 404);
  const Json all = Json::parse(Get("/api/v1/summaries").body);
  EXPECT_EQ(Names(all), (std::vector<std::string>{"guestbook", "web"}));
  EXPECT_EQ(Names(Json::parse(Get("/api/v1/summaries?appset=web").body)),
            (std::vector<std::string>{"web"}));
}

// The summaries list carries the input files that failed to load, as the sets list does: the web
// view reads them there instead of every set's full status.
TEST_F(FleetRoutesTest, SummariesListTheFilesThatFailedToLoad) {
  PublishWeb();
  board_.SetFileStatus("/etc/fleetwave/appsets/ok.yaml", std::nullopt);
  board_.SetFileStatus("/etc/fleetwave/appsets/bad.yaml", "bad.yaml:3:1: spec: must be a map");
  Start();
  const Json list = Json::parse(Get("/api/v1/summaries").body);
  ASSERT_TRUE(list["errors"].is_array());
  ASSERT_EQ(list["errors"].size(), 1u);
  EXPECT_EQ(list["errors"][0]["file"], "/etc/fleetwave/appsets/bad.yaml");
  EXPECT_EQ(list["errors"][0]["message"], "bad.yaml:3:1: spec: must be a map");
  EXPECT_EQ(Names(list), (std::vector<std::string>{"guestbook", "web"}));
}

// A filtered watch: the snapshot holds only matching rows; an app that starts matching is
// ADDED, one that stops is DELETED, a change to one that never matched sends nothing.
TEST_F(FleetRoutesTest, AFilteredWatchFollowsAppsInAndOutOfItsFilter) {
  PublishWeb();
  Start();
  WatchClient w(server_->port(), "/api/v1/rows?appset=web&status=Degraded,Progressing&watch=1");
  ASSERT_TRUE(w.connected());
  std::vector<std::string> snapshot;
  while (auto line = w.NextLine()) {
    if (*line == kBookmark) break;
    snapshot.push_back(Json::parse(*line)["object"]["name"].get<std::string>());
  }
  EXPECT_EQ(snapshot, (std::vector<std::string>{"web-eu1", "web-eu2"}));

  PublishWeb("Healthy");  // eu2 becomes Healthy: it leaves the filter
  Json event = Json::parse(w.NextLine().value_or("null"));
  EXPECT_EQ(event["type"], "DELETED");
  EXPECT_EQ(event["object"]["name"], "web-eu2");
  EXPECT_EQ(event["object"]["status"], "Healthy");

  PublishWeb("Degraded");  // and comes back degraded
  event = Json::parse(w.NextLine().value_or("null"));
  EXPECT_EQ(event["type"], "ADDED");
  EXPECT_EQ(event["object"]["name"], "web-eu2");

  // guestbook's apps never match: their change sends nothing, so the next line is web's.
  Json qa = AppJson("guestbook-qa");
  qa["status"]["health"]["status"] = "Degraded";
  board_.PublishApplication("guestbook", "guestbook-qa", qa);
  PublishWeb("Healthy");
  event = Json::parse(w.NextLine().value_or("null"));
  EXPECT_EQ(event["type"], "DELETED");
  EXPECT_EQ(event["object"]["name"], "web-eu2");
}

// A summary watch sends one small event per change of a set, never the set's JSON.
TEST_F(FleetRoutesTest, ASummaryWatchSendsOneEventPerChangedSet) {
  PublishWeb();
  Start();
  WatchClient w(server_->port(), "/api/v1/summaries?appset=web&watch=1");
  ASSERT_TRUE(w.connected());
  std::vector<std::string> snapshot;
  while (auto line = w.NextLine()) {
    if (*line == kBookmark) break;
    snapshot.push_back(Json::parse(*line)["object"]["metadata"]["name"].get<std::string>());
  }
  EXPECT_EQ(snapshot, (std::vector<std::string>{"web"}));
  PublishWeb("Healthy");
  const Json event = Json::parse(w.NextLine().value_or("null"));
  EXPECT_EQ(event["type"], "MODIFIED");
  EXPECT_EQ(event["object"]["steps"][1]["counts"]["Healthy"], 1);
  EXPECT_FALSE(event["object"].contains("status"));
}

}  // namespace
}  // namespace fleetwave::api
