// The StatusBoard's rules over names as tables (engine/appset/board_apps.h): of equal names in
// one publish the last wins, the last publisher owns an app, a set's apps missing from its latest
// publish are removed, and what a set's summary on the board holds.
#include "engine/appset/board_apps.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tests/engine/fleetview/fleet_builders.h"

namespace fleetwave::engine {
namespace {

using Names = std::vector<std::string_view>;

TEST(BoardApps, OfEqualNamesInOnePublishTheLastWinsInNameOrder) {
  struct Case {
    const char* name;
    Names names;
    std::vector<std::size_t> shown;
  } cases[] = {
      {"nothing published", {}, {}},
      {"sorted: all, as given", {"a", "b", "c"}, {0, 1, 2}},
      {"unsorted: in name order", {"c", "a", "b"}, {1, 2, 0}},
      {"two of a name: the later", {"a", "b", "a"}, {2, 1}},
      {"adjacent duplicates: the later", {"a", "a", "b"}, {1, 2}},
      {"three of a name among others: the last", {"x", "b", "x", "a", "x"}, {3, 1, 4}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(LastOfEachName(c.names), c.shown);
  }
}

TEST(BoardApps, TheLastPublisherOwnsAnApp) {
  struct Case {
    const char* name;
    std::string_view owner, publisher;
    bool takes;
  } cases[] = {
      {"its own set publishes it again: nothing moves", "web", "web", false},
      {"another set publishes the same name: it moves there", "web", "api", true},
      {"names differing only in case are different sets", "web", "Web", true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(PublishTakesApp(c.owner, c.publisher), c.takes);
  }
}

TEST(BoardApps, AppsMissingFromTheLatestPublishAreRemoved) {
  struct Case {
    const char* name;
    Names before, now;
    std::vector<std::string> gone;
  } cases[] = {
      {"first publish: nothing before", {}, {"a", "b"}, {}},
      {"the same apps: none removed", {"a", "b"}, {"a", "b"}, {}},
      {"an empty publish removes every app", {"a", "b"}, {}, {"a", "b"}},
      {"the missing ones, in order", {"a", "b", "c", "d"}, {"b", "d"}, {"a", "c"}},
      {"new apps remove nothing", {"b"}, {"a", "b", "c"}, {}},
      {"replaced wholesale", {"a", "c"}, {"b", "d"}, {"a", "c"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(AppsLeftOutOfPublish(c.before, c.now), c.gone);
  }
}

TEST(BoardApps, ASummaryKeepsFiftyAttentionRowsAndIsNamedAfterItsOwner) {
  struct Case {
    const char* name;
    int failed, healthy;
    std::size_t attention, attention_total;
  } cases[] = {
      {"none needs attention", 0, 3, 0, 0},
      {"fewer than the limit: all", 49, 3, 49, 49},
      {"exactly the limit", 50, 0, 50, 50},
      {"one over: the limit, the total counted", 51, 2, 50, 51},
      {"many: the limit", 130, 5, 50, 130},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    SummaryState state;
    // The published JSON names another set: the board's summary is named after the owner.
    state.SetAppSet(fleetview_testing::RollingSet("published-name", 0, 0, {}));
    for (int i = 0; i < c.failed + c.healthy; ++i) {
      auto row = std::make_shared<AppRow>();
      row->name = "app-" + std::to_string(1000 + i);
      row->appset = "web";
      row->cluster = "c1";
      row->status = i < c.failed ? AppDisplayStatus::kFailed : AppDisplayStatus::kHealthy;
      state.Put(row);
    }
    const AppSetSummary summary = BoardSummaryOf(state, "web");
    EXPECT_EQ(summary.name, "web");
    EXPECT_EQ(summary.attention.size(), c.attention);
    EXPECT_EQ(summary.attention_total, c.attention_total);
  }
}

}  // namespace
}  // namespace fleetwave::engine
