// engine/appset/decision_gate.h: when a poll decides, and what a failed generation does.
#include "engine/appset/decision_gate.h"

#include <gtest/gtest.h>

#include <chrono>

namespace fleetwave::engine {
namespace {

using std::chrono::seconds;

const Time kT0 = Time(seconds(1'000'000));

// A poll 60 s after a decision, with nothing changed since: nothing to decide.
PollFacts Quiet() {
  PollFacts f;
  f.decided_at = kT0;
  f.now = kT0 + seconds(60);
  f.precise_now = f.now;
  f.poll_interval = seconds(60);
  f.same_generation = true;
  f.same_clusters = true;
  f.same_deletions = true;
  return f;
}

TEST(ResyncDue, EveryThreePollIntervalsAndBeforeTheFirstDecision) {
  EXPECT_TRUE(ResyncDue(std::nullopt, kT0, seconds(60)));
  EXPECT_FALSE(ResyncDue(kT0, kT0 + seconds(179), seconds(60)));
  EXPECT_TRUE(ResyncDue(kT0, kT0 + seconds(180), seconds(60)));
  EXPECT_TRUE(ResyncDue(kT0, kT0 + seconds(30), seconds(10)));
}

TEST(NothingToDecide, AQuietPollDecidesNothing) { EXPECT_TRUE(NothingToDecide(Quiet())); }

TEST(NothingToDecide, EachChangeMakesThePollDecide) {
  struct Case {
    const char* what;
    void (*change)(PollFacts&);
  };
  const Case cases[] = {
      {"no decision yet", [](PollFacts& f) { f.decided_at.reset(); }},
      {"something asked since", [](PollFacts& f) { f.asked_since = true; }},
      {"the stored records were loaded", [](PollFacts& f) { f.store_loaded = true; }},
      {"a new generation", [](PollFacts& f) { f.same_generation = false; }},
      {"other clusters", [](PollFacts& f) { f.same_clusters = false; }},
      {"other deletion records", [](PollFacts& f) { f.same_deletions = false; }},
      {"live changes not decided on", [](PollFacts& f) { f.undecided_observations = true; }},
      {"the engine's wake-up is due", [](PollFacts& f) { f.engine_wake_at = f.precise_now; }},
      {"the resync period passed", [](PollFacts& f) { f.now = kT0 + seconds(180); }},
  };
  for (const Case& c : cases) {
    PollFacts f = Quiet();
    c.change(f);
    EXPECT_FALSE(NothingToDecide(f)) << c.what;
  }
}

TEST(NothingToDecide, AWakeUpLaterThanNowWaitsEvenWithinTheSameSecond) {
  PollFacts f = Quiet();
  f.precise_now = f.now + std::chrono::milliseconds(400);
  f.engine_wake_at = f.now + std::chrono::milliseconds(700);  // truncated, it would look due
  EXPECT_TRUE(NothingToDecide(f));
  f.precise_now = f.now + std::chrono::milliseconds(700);
  EXPECT_FALSE(NothingToDecide(f));
}

TEST(OnFailedGeneration, RepositoryErrorsShowOnTheSetOtherErrorsWait) {
  EXPECT_EQ(OnFailedGeneration(false, true), FailedGeneration::kWaitForNextPoll);
  EXPECT_EQ(OnFailedGeneration(false, false), FailedGeneration::kWaitForNextPoll);
  EXPECT_EQ(OnFailedGeneration(true, true), FailedGeneration::kDecideOnLastGeneration);
  EXPECT_EQ(OnFailedGeneration(true, false), FailedGeneration::kShowStoredStatus);
}

}  // namespace
}  // namespace fleetwave::engine
