// engine/appset/decide_rules.h: which decider decides, how a gather is decided, and what a
// decision that could not be stored does.
#include "engine/appset/decide_rules.h"

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

namespace fleetwave::engine {
namespace {

using std::chrono::seconds;

ApplicationSet RollingSync(int steps) {
  ApplicationSet set;
  set.name = "guestbook";
  set.strategy.type = "RollingSync";
  set.strategy.steps.resize(steps);
  return set;
}

SeedFacts Seedable() {
  SeedFacts f;
  f.has_gather = true;
  f.loaded = true;
  f.planned = true;
  return f;
}

TEST(SeedsDecider, OnlyAPlannedDecisionOfALoadedLiveRollingSyncSet) {
  struct Case {
    std::string name;
    SeedFacts facts;
    ApplicationSet set;
    bool progressive_syncs;
    bool seeds;
  };
  auto with = [](auto change) {
    SeedFacts f = Seedable();
    change(f);
    return f;
  };
  ApplicationSet all_at_once;
  all_at_once.name = "guestbook";
  const std::vector<Case> cases = {
      {"planned rolling sync", Seedable(), RollingSync(2), true, true},
      {"not planned", with([](SeedFacts& f) { f.planned = false; }), RollingSync(2), true, false},
      {"deleting", with([](SeedFacts& f) { f.deleting = true; }), RollingSync(2), true, false},
      {"no gather", with([](SeedFacts& f) { f.has_gather = false; }), RollingSync(2), true, false},
      {"not loaded", with([](SeedFacts& f) { f.loaded = false; }), RollingSync(2), true, false},
      {"progressive syncs off", Seedable(), RollingSync(2), false, false},
      {"rolling sync without steps", Seedable(), RollingSync(0), true, false},
      {"all at once", Seedable(), all_at_once, true, false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(SeedsDecider(c.facts, c.set, c.progressive_syncs), c.seeds) << c.name;
  }
}

TEST(AppsToRefresh, AppliedAppsAppsOfChangedLiveObjectsAndEveryAppOfAChangedCluster) {
  DeciderIndex index;
  index.app_of_label = {{{"east", "guestbook-east"}, "guestbook-east"},
                        {{"west", "guestbook-west"}, "guestbook-west"},
                        {{"west", "api-west"}, "api-west"}};
  index.apps_of_cluster = {{"east", {"guestbook-east"}}, {"west", {"guestbook-west", "api-west"}}};
  struct Case {
    std::string name;
    std::set<std::string> applied;
    std::set<std::pair<std::string, std::string>> live;
    std::set<std::string> clusters;
    std::set<std::string> apps;
  };
  const std::vector<Case> cases = {
      // {name, applied, live, clusters, apps to refresh}
      {"nothing reported", {}, {}, {}, {}},
      {"an apply result", {"guestbook-east"}, {}, {}, {"guestbook-east"}},
      {"a live object", {}, {{"west", "api-west"}}, {}, {"api-west"}},
      {"a live object the generation does not have", {}, {{"west", "gone"}}, {}, {}},
      {"a live object on another cluster", {}, {{"east", "api-west"}}, {}, {}},
      {"a cluster", {}, {}, {"west"}, {"guestbook-west", "api-west"}},
      {"a cluster the generation does not use", {}, {}, {"north"}, {}},
      {"all of them",
       {"guestbook-east"},
       {{"west", "api-west"}},
       {"west"},
       {"guestbook-east", "guestbook-west", "api-west"}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(AppsToRefresh(c.applied, c.live, c.clusters, index), c.apps) << c.name;
  }
}

TEST(RouteOf, IncrementalOnWhatTheDeciderHoldsCheckedAtNewInputsAndResyncs) {
  struct Case {
    std::string name;
    RouteFacts facts;
    DecisionRoute route;
  };
  // {decider_holds_generation, new_gather, same_inputs, resync_due}
  const std::vector<Case> cases = {
      {"no decider", {false, true, true, false}, DecisionRoute::kFromScratch},
      {"no decider, same gather", {false, false, false, false}, DecisionRoute::kFromScratch},
      {"deciding again on the last gather",
       {true, false, false, false},
       DecisionRoute::kIncremental},
      {"again on the last gather, resync due",
       {true, false, false, true},
       DecisionRoute::kIncremental},
      {"new gather, same inputs", {true, true, true, false}, DecisionRoute::kIncremental},
      {"new gather, same inputs, resync due",
       {true, true, true, true},
       DecisionRoute::kCheckThenFromScratch},
      {"new gather, new inputs", {true, true, false, false}, DecisionRoute::kCheckThenFromScratch},
  };
  for (const auto& c : cases) EXPECT_EQ(RouteOf(c.facts), c.route) << c.name;
}

TEST(DeltaPublishes, OnlyWhatChangedTheStatusSpecsSyncsOrApplications) {
  struct Case {
    std::string name;
    void (*change)(AppSetDelta&);
    bool publishes;
  };
  const std::vector<Case> cases = {
      {"nothing changed", [](AppSetDelta&) {}, false},
      {"only a log line and a wake-up",
       [](AppSetDelta& d) {
         d.log.push_back("step=1 waiting");
         d.wake_at = Time(seconds(5));
       },
       false},
      {"an entry", [](AppSetDelta& d) { d.changed_entries.emplace_back(); }, true},
      {"the conditions", [](AppSetDelta& d) { d.conditions.emplace(); }, true},
      {"the rollout", [](AppSetDelta& d) { d.rollout.emplace(); }, true},
      {"a spec", [](AppSetDelta& d) { d.specs["a"] = Json::object(); }, true},
      {"a start", [](AppSetDelta& d) { d.starts.emplace_back(); }, true},
      {"an Application",
       [](AppSetDelta& d) { d.applications.push_back(std::make_shared<const Json>()); }, true},
  };
  for (const auto& c : cases) {
    AppSetDelta d;
    c.change(d);
    EXPECT_EQ(DeltaPublishes(d), c.publishes) << c.name;
  }
}

TEST(DecisionNotCommitted, LogsTheErrorAndRetriesInFiveSeconds) {
  const Time now = Time(seconds(1'000'000));
  const NotCommitted n = DecisionNotCommitted("database is locked", now);
  EXPECT_EQ(n.log,
            "cannot commit the reconcile to the state store: database is locked; retrying in 5s");
  EXPECT_EQ(n.retry_at, now + seconds(5));
}

TEST(DecidesOnLastGather, UnlessARegatherIsAskedOrNothingIsLoaded) {
  struct Case {
    bool regather_asked, has_gather, loaded, decides;
  };
  const std::vector<Case> cases = {
      {false, true, true, true},   {true, true, true, false},   {false, false, true, false},
      {false, true, false, false}, {true, false, false, false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(DecidesOnLastGather(c.regather_asked, c.has_gather, c.loaded), c.decides)
        << c.regather_asked << c.has_gather << c.loaded;
  }
}

TEST(ReuseApplicationsSince, MovesOnlyOnAFreshGather) {
  const Time t0 = FromUnixSeconds(1'800'000'000);
  const Time now = t0 + seconds(300);
  struct Case {
    const char* name;
    std::optional<Time> since;
    bool fresh_gather;
    std::optional<Time> want;
  } cases[] = {
      {"first decision on a fresh gather", std::nullopt, true, now},
      {"a fresh gather moves it", t0, true, now},
      {"a decision on the last gather keeps it", t0, false, t0},
      {"none yet and no fresh gather: none", std::nullopt, false, std::nullopt},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(ReuseApplicationsSince(c.since, c.fresh_gather, now), c.want);
  }
}

TEST(CheckDecider, TheStoredAppsFirstThenTheDecision) {
  std::map<std::string, StoredApp> store;
  store["a"].spec = Json{{"project", "default"}};
  auto respecced = store;
  respecced["a"].spec = Json{{"project", "other"}};
  struct Case {
    const char* name;
    std::map<std::string, StoredApp> decider;
    DeciderCheck decision;
    bool decides;
    DeciderCheck want;
  } cases[] = {
      {"fed alike, decides alike", store, {true, ""}, true, {true, ""}},
      {"fed alike, decides otherwise: the decision's difference",
       store,
       {false, "app \"a\": its status differs"},
       true,
       {false, "app \"a\": its status differs"}},
      {"fed otherwise: that difference, the decision not compared",
       respecced,
       {true, ""},
       false,
       {false, "app \"a\": its stored spec differs"}},
      {"fed otherwise and deciding otherwise: the first, the stored apps",
       respecced,
       {false, "app \"a\": its status differs"},
       false,
       {false, "app \"a\": its stored spec differs"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    bool decided = false;
    const DeciderCheck got = CheckDecider(c.decider, store, [&] {
      decided = true;
      return c.decision;
    });
    EXPECT_EQ(decided, c.decides);
    EXPECT_EQ(got.agrees, c.want.agrees);
    EXPECT_EQ(got.difference, c.want.difference);
  }
  EXPECT_EQ(DivergenceLine("app \"a\": its stored spec differs"),
            "internal error (please report it): the incremental decision differs from the "
            "from-scratch one: app \"a\": its stored spec differs; deciding from scratch");
}

}  // namespace
}  // namespace fleetwave::engine
