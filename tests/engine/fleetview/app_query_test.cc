#include "engine/appset/app_query.h"

#include <gtest/gtest.h>

#include "tests/engine/fleetview/fleet_builders.h"

namespace fleetwave::engine {
namespace {

using fleetview_testing::App;
using fleetview_testing::AppSpec;
using fleetview_testing::Names;
using fleetview_testing::Pointers;
using fleetview_testing::RollingSet;

TEST(AppRowsTest, DisplayStatusFollowsFailuresThenTheRollout) {
  struct Case {
    const char* name;
    AppSpec app;
    const char* rollout;  // its applicationStatus entry's status ("" none)
    int step;
    bool skipped;
    AppDisplayStatus want;
    bool deadline_exceeded = false;  // the set's current step (2) ran past its deadline
  } cases[] = {
      {"healthy entry",
       {.health = "Healthy", .sync = "Synced"},
       "Healthy",
       1,
       false,
       AppDisplayStatus::kHealthy},
      {"progressing entry",
       {.health = "Progressing", .sync = "Synced"},
       "Progressing",
       2,
       false,
       AppDisplayStatus::kProgressing},
      {"pending entry",
       {.health = "Healthy", .sync = "OutOfSync"},
       "Pending",
       2,
       false,
       AppDisplayStatus::kPending},
      {"waiting entry of a missing app",
       {.health = "Missing", .sync = "OutOfSync"},
       "Waiting",
       3,
       false,
       AppDisplayStatus::kWaiting},
      {"a failed sync outranks the entry",
       {.health = "Progressing", .operation = "Failed"},
       "Progressing",
       2,
       false,
       AppDisplayStatus::kFailed},
      {"an errored sync is failed",
       {.operation = "Error"},
       "Pending",
       2,
       false,
       AppDisplayStatus::kFailed},
      {"degraded health",
       {.health = "Degraded", .sync = "Synced"},
       "Progressing",
       2,
       false,
       AppDisplayStatus::kDegraded},
      {"skipped outranks everything",
       {.health = "Degraded", .operation = "Failed"},
       "Waiting",
       2,
       true,
       AppDisplayStatus::kSkipped},
      {"late: the current step after its deadline",
       {.health = "Progressing"},
       "Progressing",
       2,
       false,
       AppDisplayStatus::kLate,
       true},
      {"late: pending in the current step",
       {.health = "Missing"},
       "Pending",
       2,
       false,
       AppDisplayStatus::kLate,
       true},
      {"a later step is not late",
       {.health = "Missing"},
       "Waiting",
       3,
       false,
       AppDisplayStatus::kWaiting,
       true},
      {"healthy in the late step is healthy",
       {.health = "Healthy"},
       "Healthy",
       2,
       false,
       AppDisplayStatus::kHealthy,
       true},
      {"a failure in the late step is failed",
       {.operation = "Failed"},
       "Progressing",
       2,
       false,
       AppDisplayStatus::kFailed,
       true},
      {"no strategy: synced and healthy",
       {.health = "Healthy", .sync = "Synced"},
       "",
       0,
       false,
       AppDisplayStatus::kHealthy},
      {"no strategy: running sync",
       {.health = "Missing", .operation = "Running"},
       "",
       0,
       false,
       AppDisplayStatus::kProgressing},
      {"no strategy: synced, not healthy yet",
       {.health = "Progressing", .sync = "Synced"},
       "",
       0,
       false,
       AppDisplayStatus::kProgressing},
      {"no strategy: out of sync awaits its sync",
       {.health = "Missing", .sync = "OutOfSync"},
       "",
       0,
       false,
       AppDisplayStatus::kPending},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    AppSpec spec = c.app;
    spec.name = "app";
    spec.rollout = c.rollout;
    spec.step = c.step;
    const Json app = App(spec);
    Json set = RollingSet("web", 3, /*current_step=*/2, {spec});
    if (c.deadline_exceeded) set["status"]["rollout"]["stepDeadlineExceeded"] = true;
    if (c.skipped) set["status"]["rollout"]["skipped"]["app"] = "being rebuilt";
    const auto rows = AppRowsOf(set, {&app});
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(DisplayStatusName(rows[0].status), std::string(DisplayStatusName(c.want)));
  }
}

TEST(AppRowsTest, ReadsTheFactsListsFilterOnAndToleratesWrongTypes) {
  Json app = App({.name = "web-eu1", .cluster = "eu1", .health = "Degraded", .sync = "Synced"});
  app["metadata"]["labels"] = Json{{"region", "eu"}, {"tier", 3}};
  app["status"]["health"]["message"] = "Deployment web: 0/3 available";
  Json by_server = App({.name = "web-x", .health = "Healthy"});
  by_server["spec"]["destination"] = Json{{"server", "https://10.0.0.9:6443"}};
  Json broken = App({.name = "web-y"});
  broken["status"] = "not an object";
  broken["spec"]["destination"] = Json::array();
  const Json not_an_app = "garbage";
  const Json set = RollingSet("web", 2, 1,
                              {{.name = "web-eu1", .rollout = "Progressing", .step = 1},
                               {.name = "web-x", .rollout = "Healthy", .step = 1}});
  const auto rows = AppRowsOf(set, {&not_an_app, &broken, &by_server, &app});
  ASSERT_EQ(Names(rows), (std::vector<std::string>{"web-eu1", "web-x", "web-y"}));
  EXPECT_EQ(rows[0].appset, "web");
  EXPECT_EQ(rows[0].cluster, "eu1");
  EXPECT_EQ(rows[0].step, 1);
  EXPECT_EQ(rows[0].message, "Deployment web: 0/3 available");
  EXPECT_EQ(rows[0].labels, (std::map<std::string, std::string>{{"region", "eu"}}));
  EXPECT_EQ(rows[1].cluster, "https://10.0.0.9:6443");
  EXPECT_EQ(rows[2].cluster, "");
  EXPECT_EQ(rows[2].health, "");
  EXPECT_EQ(rows[2].step, 0);
}

// A fleet of six apps in two sets for the filter table.
std::vector<AppRow> Fleet() {
  const std::vector<AppSpec> web = {
      {.name = "web-dev",
       .cluster = "dev",
       .health = "Healthy",
       .sync = "Synced",
       .rollout = "Healthy",
       .step = 1,
       .labels = {{"env", "dev"}}},
      {.name = "web-eu1",
       .cluster = "eu1",
       .health = "Degraded",
       .sync = "Synced",
       .rollout = "Progressing",
       .step = 2,
       .labels = {{"env", "prod"}, {"region", "eu"}}},
      {.name = "web-eu2",
       .cluster = "eu2",
       .health = "Progressing",
       .sync = "Synced",
       .rollout = "Progressing",
       .step = 2,
       .labels = {{"env", "prod"}, {"region", "eu"}}},
      {.name = "web-us1",
       .cluster = "us1",
       .health = "Missing",
       .sync = "OutOfSync",
       .rollout = "Waiting",
       .step = 3,
       .labels = {{"env", "prod"}, {"region", "us"}}},
  };
  const std::vector<AppSpec> api = {
      {.name = "api-dev", .cluster = "dev", .health = "Healthy", .sync = "Synced"},
      {.name = "api-eu1",
       .cluster = "eu1",
       .health = "Progressing",
       .sync = "Synced",
       .operation = "Failed"},
  };
  std::vector<AppRow> rows;
  for (const auto& [set_name, specs] : {std::pair{"web", web}, std::pair{"api", api}}) {
    std::vector<Json> apps;
    for (const AppSpec& s : specs) apps.push_back(App(s));
    const Json set = RollingSet(set_name, set_name == std::string("web") ? 3 : 0, 2, specs);
    for (AppRow& row : AppRowsOf(set, Pointers(apps))) rows.push_back(std::move(row));
  }
  return rows;
}

TEST(AppQueryTest, FiltersSelectByEveryField) {
  struct Case {
    const char* query;
    std::vector<std::string> want;
  } cases[] = {
      {"", {"web-dev", "web-eu1", "web-eu2", "web-us1", "api-dev", "api-eu1"}},
      {"appset=api", {"api-dev", "api-eu1"}},
      {"appset=web,api&cluster=eu1", {"web-eu1", "api-eu1"}},
      {"step=2", {"web-eu1", "web-eu2"}},
      {"step=1,3", {"web-dev", "web-us1"}},
      {"health=degraded,missing", {"web-eu1", "web-us1"}},
      {"sync=OutOfSync", {"web-us1"}},
      {"rollout=Progressing", {"web-eu1", "web-eu2"}},
      {"status=Failed,Degraded", {"web-eu1", "api-eu1"}},
      {"status=healthy", {"web-dev", "api-dev"}},
      {"cluster=DEV", {"web-dev", "api-dev"}},
      {"labelSelector=env%3Dprod,region+in+(eu)", {"web-eu1", "web-eu2"}},
      {"labelSelector=!region", {"web-dev", "api-dev", "api-eu1"}},
      {"search=EU", {"web-eu1", "web-eu2", "api-eu1"}},
      {"search=us1&appset=web", {"web-us1"}},
      {"appset=web&step=2&health=Progressing", {"web-eu2"}},
      {"appset=nothing", {}},
      {"watch=1&appset=api", {"api-dev", "api-eu1"}},
  };
  const std::vector<AppRow> fleet = Fleet();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.query);
    std::string error;
    const auto query = ParseAppQuery(c.query, &error);
    ASSERT_TRUE(query) << error;
    std::vector<std::string> got;
    for (const AppRow& row : fleet) {
      if (query->filter.Matches(row)) got.push_back(row.name);
    }
    EXPECT_EQ(got, c.want);
  }
}

TEST(AppQueryTest, NeedsRowsOnlyForFieldsBeyondTheSet) {
  std::string error;
  EXPECT_FALSE(ParseAppQuery("appset=web&limit=5", &error)->filter.NeedsRows());
  EXPECT_TRUE(ParseAppQuery("appset=web&health=Degraded", &error)->filter.NeedsRows());
  EXPECT_TRUE(ParseAppQuery("search=eu", &error)->filter.NeedsRows());
  EXPECT_TRUE(ParseAppQuery("labelSelector=a", &error)->filter.NeedsRows());
}

TEST(AppQueryTest, RefusalsNameTheParameterAndWhatIsWrong) {
  struct Case {
    const char* query;
    const char* error;
  } cases[] = {
      {"step=0", "step: \"0\" is not a step number (1, 2, ...)"},
      {"step=two", "step: \"two\" is not a step number (1, 2, ...)"},
      {"status=broken",
       "status: unknown value \"broken\" (one of failed, degraded, late, skipped, progressing, "
       "pending, waiting, healthy)"},
      {"labelSelector=a+in+(x", "labelSelector: unable to parse requirement: a in (x"},
      {"limit=0", "limit: \"0\" is not a number from 1 to 10000"},
      {"limit=10001", "limit: \"10001\" is not a number from 1 to 10000"},
      {"limit=-1", "limit: \"-1\" is not a number from 1 to 10000"},
      {"continue=xyz", "continue: not a token this server issued (start the list again)"},
      {"continue=a1zz", "continue: not a token this server issued (start the list again)"},
      {"colour=red",
       "unknown query parameter \"colour\" (allowed: appset, step, health, sync, rollout, status, "
       "cluster, labelSelector, search, limit, continue, watch)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.query);
    std::string error;
    EXPECT_FALSE(ParseAppQuery(c.query, &error));
    EXPECT_EQ(error, c.error);
  }
  std::string error;
  EXPECT_TRUE(ParseAppQuery("colour=red", &error, {"colour"})) << error;
}

TEST(AppQueryTest, PagesVisitEveryNameOnceInOrder) {
  std::vector<std::string> names;
  for (int i = 0; i < 23; ++i)
    names.push_back("app-" + std::string(i < 10 ? "0" : "") + std::to_string(i));
  std::vector<std::string_view> views(names.begin(), names.end());
  for (size_t limit : {1u, 5u, 22u, 23u, 100u}) {
    SCOPED_TRACE(limit);
    std::vector<std::string> seen;
    Paging paging{limit, ""};
    size_t pages = 0;
    while (true) {
      const Page page = PageOf(views, paging);
      ++pages;
      ASSERT_LE(page.end - page.begin, limit);
      for (size_t i = page.begin; i < page.end; ++i) seen.push_back(names[i]);
      EXPECT_EQ(page.remaining, names.size() - seen.size());
      if (page.next.empty()) break;
      std::string error;
      const auto next = ParseAppQuery("continue=" + page.next, &error);
      ASSERT_TRUE(next) << error;
      paging.start_after = next->paging.start_after;
    }
    EXPECT_EQ(seen, names);
    EXPECT_EQ(pages, (names.size() + limit - 1) / limit);
  }
}

TEST(AppQueryTest, APageContinuesAfterANameThatWentAway) {
  const std::vector<std::string_view> names = {"a", "c", "d"};
  const Page page = PageOf(names, Paging{1, "b"});  // "b" was deleted between the pages
  EXPECT_EQ(page.begin, 1u);
  EXPECT_EQ(page.end, 2u);
  EXPECT_EQ(page.remaining, 1u);
  EXPECT_EQ(DecodeContinue(page.next), std::optional<std::string>("c"));
  const Page last = PageOf(names, Paging{std::nullopt, "d"});
  EXPECT_EQ(last.begin, last.end);
  EXPECT_TRUE(last.next.empty());
}

}  // namespace
}  // namespace fleetwave::engine
