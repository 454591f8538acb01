// engine/appset/gather_rules.h: how a set gathers, polls, wakes and watches.
#include "engine/appset/gather_rules.h"

#include <gtest/gtest.h>

#include <chrono>

#include "engine/sync/tracking.h"

namespace fleetwave::engine {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const Time kT0 = Time(seconds(1'000'000));

TEST(RecordsCommits, OnlyWhenEveryRenderIsOkAndGenerationReportedNoError) {
  struct Case {
    bool renders_ok;
    bool errors;
    bool records;
  };
  const Case cases[] = {
      {true, false, true}, {false, false, false}, {true, true, false}, {false, true, false}};
  for (const Case& c : cases) {
    EXPECT_EQ(RecordsCommits(c.renders_ok, c.errors), c.records)
        << "renders ok " << c.renders_ok << ", errors " << c.errors;
  }
}

// A resolver answering from a table, counting its calls.
struct FakeResolver {
  std::map<std::pair<std::string, std::string>, std::optional<std::string>> now;
  int calls = 0;
  ResolveNow Fn() {
    return [this](const std::string& repo, const std::string& revision) {
      ++calls;
      auto it = now.find({repo, revision});
      return it == now.end() ? std::nullopt : it->second;
    };
  }
};

const ReadCommits kRead = {{{"https://git/a", "main"}, "aaa"}, {{"https://git/b", "v1"}, "bbb"}};

TEST(ReusesLastGeneration, TheSameSpecWithEveryCommitTheSame) {
  FakeResolver r;
  r.now = {{{"https://git/a", "main"}, "aaa"}, {{"https://git/b", "v1"}, "bbb"}};
  EXPECT_TRUE(ReusesLastGeneration(true, kRead, r.Fn()));
  EXPECT_TRUE(ReusesLastGeneration(true, ReadCommits{}, r.Fn())) << "a set that reads no git";
}

TEST(ReusesLastGeneration, GeneratesAgainOnAnyDifference) {
  struct Case {
    const char* what;
    bool same_spec;
    std::optional<ReadCommits> commits;
    std::optional<std::string> b_now;
  };
  const Case cases[] = {
      {"another spec", false, kRead, "bbb"},
      {"no commits recorded", true, std::nullopt, "bbb"},
      {"a new commit", true, kRead, "ccc"},
      {"a resolve that fails", true, kRead, std::nullopt},
  };
  for (const Case& c : cases) {
    FakeResolver r;
    r.now = {{{"https://git/a", "main"}, "aaa"}, {{"https://git/b", "v1"}, c.b_now}};
    EXPECT_FALSE(ReusesLastGeneration(c.same_spec, c.commits, r.Fn())) << c.what;
  }
}

TEST(ReusesLastGeneration, ResolvesNothingOnceTheAnswerIsNo) {
  FakeResolver r;
  r.now = {{{"https://git/a", "main"}, "zzz"}, {{"https://git/b", "v1"}, "bbb"}};
  EXPECT_FALSE(ReusesLastGeneration(false, kRead, r.Fn()));
  EXPECT_EQ(r.calls, 0) << "another spec resolves nothing";
  EXPECT_FALSE(ReusesLastGeneration(true, kRead, r.Fn()));
  EXPECT_EQ(r.calls, 1) << "the first commit that moved ends the resolves";
}

TEST(PollOrEarlier, TheEarlierOfThePollAndTheEngineWakeUp) {
  const seconds interval(60);
  EXPECT_EQ(PollOrEarlier(kT0 + seconds(30), kT0, interval, std::nullopt), kT0 + seconds(30));
  EXPECT_EQ(PollOrEarlier(std::nullopt, kT0, interval, std::nullopt), kT0 + seconds(60))
      << "no poll scheduled: one interval from now";
  EXPECT_EQ(PollOrEarlier(kT0 + seconds(30), kT0, interval, kT0 + seconds(10)), kT0 + seconds(10));
  EXPECT_EQ(PollOrEarlier(kT0 + seconds(30), kT0, interval, kT0 + seconds(40)), kT0 + seconds(30));
  EXPECT_EQ(PollOrEarlier(std::nullopt, kT0, interval, kT0 + seconds(61)), kT0 + seconds(60));
}

TEST(KeepsPendingWake, AnEarlierPendingWakeUpStaysWhileItIsInTheFuture) {
  struct Case {
    const char* what;
    std::optional<Time> pending;
    Time at;
    bool keeps;
  };
  const Case cases[] = {
      {"none pending", std::nullopt, kT0 + seconds(5), false},
      {"pending earlier, in the future", kT0 + seconds(3), kT0 + seconds(5), true},
      {"pending at the same time", kT0 + seconds(5), kT0 + seconds(5), true},
      {"pending later", kT0 + seconds(9), kT0 + seconds(5), false},
      {"pending earlier but due now", kT0, kT0 + seconds(5), false},
      {"pending earlier but past", kT0 - seconds(1), kT0 + seconds(5), false},
  };
  for (const Case& c : cases) EXPECT_EQ(KeepsPendingWake(c.pending, c.at, kT0), c.keeps) << c.what;
}

TEST(OnWake, ADuePollGathersAnEarlierWakeUpDecidesOnTheLastGather) {
  EXPECT_EQ(OnWake(std::nullopt, kT0), WakeAction::kGatherAnew);
  EXPECT_EQ(OnWake(kT0, kT0), WakeAction::kGatherAnew);
  EXPECT_EQ(OnWake(kT0 - milliseconds(1), kT0), WakeAction::kGatherAnew);
  EXPECT_EQ(OnWake(kT0 + milliseconds(1), kT0), WakeAction::kDecideOnLastGather);
}

const ClusterKnown kKnown = [](const std::string& c) { return c == "east" || c == "west"; };

GeneratedApplication App(const std::string& name, const std::string& cluster) {
  GeneratedApplication a;
  a.name = name;
  a.cluster = cluster;
  return a;
}

TEST(WatchesApp, OnlyANamedClusterInTheMap) {
  EXPECT_TRUE(WatchesApp("east", kKnown));
  EXPECT_FALSE(WatchesApp("", kKnown));
  EXPECT_FALSE(WatchesApp("gone", kKnown));
  // An empty name is not looked up even when the map would say yes.
  EXPECT_FALSE(WatchesApp("", [](const std::string&) { return true; }));
}

TEST(WantedWatches, OneLabelPerAppOnAKnownCluster) {
  const std::vector<GeneratedApplication> apps = {App("a-east", "east"), App("a-none", ""),
                                                  App("a-gone", "gone"), App("a-west", "west")};
  const std::set<std::pair<std::string, std::string>> expected = {
      {"east", AppLabelValue({"guestbook", "a-east"})},
      {"west", AppLabelValue({"guestbook", "a-west"})}};
  EXPECT_EQ(WantedWatches("guestbook", apps, kKnown), expected);
}

TEST(DropsClusterView, TheViewOfAClusterThatLeft) {
  EXPECT_FALSE(DropsClusterView("east", kKnown));
  EXPECT_TRUE(DropsClusterView("gone", kKnown));
}

TEST(StoreProblemOf, AStoreErrorFirstTheSetsOwnOnlyForAValueError) {
  struct Case {
    const char* what;
    std::string store_error;
    bool value_error;
    std::string records_problem;
    std::string problem;
    bool own;
  };
  const Case cases[] = {
      {"usable", "", false, "", "", false},
      {"the store is down", "connection refused", false, "", "connection refused", false},
      {"a value of the set does not decode", "bad value", true, "", "bad value", true},
      {"a record is of the wrong type", "", false, "k: wrong", "k: wrong", true},
      {"a store error wins", "down", false, "k: wrong", "down", false},
  };
  for (const Case& c : cases) {
    const StoreProblem p = StoreProblemOf(c.store_error, c.value_error, c.records_problem);
    EXPECT_EQ(p.problem, c.problem) << c.what;
    EXPECT_EQ(p.own, c.own) << c.what;
  }
  EXPECT_EQ(kStoreRetry, seconds(5));
}

TEST(NextPollFailures, GrowWhileAFetchFailsAndResetOtherwise) {
  EXPECT_EQ(NextPollFailures(0, true), 1);
  EXPECT_EQ(NextPollFailures(3, true), 4);
  EXPECT_EQ(NextPollFailures(3, false), 0);
  EXPECT_EQ(NextPollFailures(0, false), 0);
}

GatherChange Same() { return {true, true, true, true}; }

TEST(SameInputs, OnlyWhenEverythingTheDecisionHoldsIsTheSame) {
  EXPECT_TRUE(SameInputs(Same()));
  struct Case {
    const char* what;
    bool GatherChange::*field;
  };
  const Case cases[] = {{"no previous gather", &GatherChange::has_previous},
                        {"a new generation", &GatherChange::same_generation},
                        {"other clusters", &GatherChange::same_clusters},
                        {"other deletion records", &GatherChange::same_deletions}};
  for (const Case& c : cases) {
    GatherChange g = Same();
    g.*c.field = false;
    EXPECT_FALSE(SameInputs(g)) << c.what;
  }
}

TEST(WatchAgain, OnlyWhenTheGenerationOrTheClustersChanged) {
  EXPECT_FALSE(WatchAgain(Same()));
  GatherChange deletions = Same();
  deletions.same_deletions = false;
  EXPECT_FALSE(WatchAgain(deletions)) << "deletion records subscribe to nothing";
  bool GatherChange::*const changes[] = {
      &GatherChange::has_previous, &GatherChange::same_generation, &GatherChange::same_clusters};
  for (auto field : changes) {
    GatherChange g = Same();
    g.*field = false;
    EXPECT_TRUE(WatchAgain(g));
  }
}

TEST(SayStoreProblem, OncePerChangeOfReasonAndOnceWhenItClears) {
  using S = StoreProblemSaying;
  struct Case {
    const char* name;
    std::string problem, last_said;
    S saying;
  } cases[] = {
      {"no problem, none said", "", "", S::kQuiet},
      {"a new problem is said", "cannot read", "", S::kSay},
      {"the same problem at the next retry: quiet", "cannot read", "cannot read", S::kQuiet},
      {"another reason is said", "a record does not decode", "cannot read", S::kSay},
      {"the problem cleared: said once", "", "cannot read", S::kCleared},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(SayStoreProblem(c.problem, c.last_said), c.saying);
  }
}

TEST(LogsDeletionProblems, OncePerChangeOfTheList) {
  using V = std::vector<std::string>;
  struct Case {
    const char* name;
    V problems, last_logged;
    bool logs;
  } cases[] = {
      {"none, none before", {}, {}, false},
      {"the same list at the next poll", {"stored deletion: x"}, {"stored deletion: x"}, false},
      {"a new problem", {"stored deletion: x"}, {}, true},
      {"another problem", {"stored deletion: y"}, {"stored deletion: x"}, true},
      {"one more", {"stored deletion: x", "stored deletion: y"}, {"stored deletion: x"}, true},
      {"gone: the list changed (nothing to log, remembered)", {}, {"stored deletion: x"}, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(LogsDeletionProblems(c.problems, c.last_logged), c.logs);
  }
}

}  // namespace
}  // namespace fleetwave::engine
