// clients::Liveness, the decision of when a cluster is down and when to probe it, in virtual
// time (FakeClock): counted failures and hangs, what brings a cluster back, the probe schedule
// while up and its backoff while down.
#include "cluster-clients/liveness.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fleetwave::clients {
namespace {

using Source = Liveness::Source;
using State = Liveness::State;

Result Ok() { return Result{}; }
Result Refused() {
  return ErrorResult(Outcome::kTransient, Problem::kConnectionRefused, "connection refused");
}
Result Hung() {
  return ErrorResult(Outcome::kTransient, Problem::kNoProgress, "no progress: sent nothing");
}
Result NotFound() { return ErrorResult(Outcome::kNotFound, Problem::kRequest, "404"); }

// No jitter, so the schedule is exact.
LivenessPolicy Policy() {
  LivenessPolicy p;
  p.down_after = 3;
  p.probe_interval = seconds(10);
  p.probe_timeout = seconds(10);
  p.down_backoff = {seconds(1), 2.0, 0.0, seconds(8), seconds(8)};
  return p;
}

struct Step {
  Result result;
  Source source = Source::kRequest;
};

TEST(LivenessTest, DownAfterCountedFailuresOrAtOnceOnAHang) {
  struct Case {
    const char* name;
    std::vector<Step> steps;
    State state;
    bool hung;
  };
  const Step ok{Ok()}, refused{Refused()}, hung{Hung()}, event{Ok(), Source::kWatchEvent};
  const std::vector<Case> cases = {
      {"unknown before any outcome", {}, State::kUnknown, false},
      {"up on the first answer", {ok}, State::kUp, false},
      {"an answer about the request proves the server is there", {{NotFound()}}, State::kUp, false},
      {"still up after two failures", {ok, refused, refused}, State::kUp, false},
      {"down after three failures in a row", {ok, refused, refused, refused}, State::kDown, false},
      {"an answer in between resets the count",
       {ok, refused, refused, ok, refused, refused},
       State::kUp,
       false},
      {"one request that made no progress: down at once", {ok, hung}, State::kDown, true},
      {"a hang before the first answer: down", {hung}, State::kDown, true},
      {"a watch event does not end a hang (old watches of a hung server stream on)",
       {ok, hung, event, event},
       State::kDown,
       true},
      {"an answered request ends a hang", {ok, hung, event, ok}, State::kUp, false},
      {"a watch event ends counted failures",
       {refused, refused, refused, event},
       State::kUp,
       false},
      {"a watch event makes an unknown cluster up", {event}, State::kUp, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FakeClock clock;
    Liveness l(Policy(), 1);
    for (const Step& s : c.steps) l.Record(s.result, clock.Now(), s.source);
    EXPECT_EQ(LivenessStateName(l.state()), std::string(LivenessStateName(c.state)));
    EXPECT_EQ(l.hung(), c.hung);
  }
}

TEST(LivenessTest, RecordSaysWhenUpOrDownChanged) {
  FakeClock clock;
  Liveness l(Policy(), 1);
  EXPECT_TRUE(l.Record(Ok(), clock.Now()));
  EXPECT_FALSE(l.Record(Ok(), clock.Now()));
  EXPECT_TRUE(l.Record(Hung(), clock.Now()));
  EXPECT_FALSE(l.Record(Hung(), clock.Now()));
  EXPECT_FALSE(l.Record(Ok(), clock.Now(), Source::kWatchEvent));
  EXPECT_TRUE(l.Record(Ok(), clock.Now()));
}

TEST(LivenessTest, ProbesWhileUpOnlyAfterTheIntervalWithoutAnAnswer) {
  FakeClock clock;
  Liveness l(Policy(), 1);
  ASSERT_TRUE(l.ProbeDue(clock.Now())) << "the first probe is due at once";
  l.ProbeSent();
  EXPECT_FALSE(l.ProbeDue(clock.Now())) << "one probe at a time";
  EXPECT_FALSE(l.NextProbeAt());
  l.RecordProbe(Ok(), clock.Now());
  ASSERT_TRUE(l.up());
  EXPECT_EQ(*l.NextProbeAt(), clock.Now() + seconds(10));

  clock.Advance(seconds(6));
  l.Record(Ok(), clock.Now());  // a busy cluster: the answer moves the probe out
  EXPECT_EQ(*l.NextProbeAt(), clock.Now() + seconds(10));
  clock.Advance(seconds(6));
  l.Record(Ok(), clock.Now(), Source::kWatchEvent);  // a watch event does not
  EXPECT_EQ(*l.NextProbeAt(), clock.Now() + seconds(4));
  clock.Advance(seconds(3));
  EXPECT_FALSE(l.ProbeDue(clock.Now()));
  clock.Advance(seconds(1));
  EXPECT_TRUE(l.ProbeDue(clock.Now()));
}

// Clusters answered at different moments probe at the same whole second: a fleet's probes share
// their wake-ups. The grid never brings a probe earlier than the interval, and adds less than
// one grid step to it.
TEST(LivenessTest, ProbesWhileUpFallDueOnTheGrid) {
  FakeClock clock;
  clock.Advance(seconds(100));
  LivenessPolicy policy = Policy();
  ASSERT_EQ(policy.probe_grid, seconds(1)) << "the default";
  const SteadyTime second = clock.Now();
  ASSERT_EQ(second.time_since_epoch() % seconds(1), Duration::zero());
  Liveness a(policy, 1), b(policy, 2), on(policy, 3);
  clock.Advance(std::chrono::milliseconds(120));
  a.Record(Ok(), clock.Now());
  clock.Advance(std::chrono::milliseconds(750));
  b.Record(Ok(), clock.Now());
  EXPECT_EQ(*a.NextProbeAt(), second + seconds(11));
  EXPECT_EQ(*b.NextProbeAt(), second + seconds(11));
  on.Record(Ok(), second + seconds(2));  // on the grid already: exactly the interval
  EXPECT_EQ(*on.NextProbeAt(), second + seconds(12));

  policy.probe_grid = Duration::zero();  // no grid: the interval alone
  Liveness plain(policy, 4);
  plain.Record(Ok(), clock.Now());
  EXPECT_EQ(*plain.NextProbeAt(), clock.Now() + seconds(10));
}

TEST(LivenessTest, AHungProbeMarksDownAndTheNextProbesBackOff) {
  FakeClock clock;
  Liveness l(Policy(), 1);
  l.ProbeSent();
  l.RecordProbe(Ok(), clock.Now());
  // The hang: the interval passes, the probe goes out and its bound passes without an answer.
  clock.Advance(seconds(10));
  ASSERT_TRUE(l.ProbeDue(clock.Now()));
  l.ProbeSent();
  clock.Advance(seconds(10));
  EXPECT_TRUE(l.RecordProbe(Hung(), clock.Now()));
  EXPECT_TRUE(l.down());
  // While down, each failed probe waits twice as long as the last, up to the cap.
  std::vector<long long> waits;
  for (int i = 0; i < 6; ++i) {
    const SteadyTime at = *l.NextProbeAt();
    waits.push_back(ToMillis(at - clock.Now()));
    clock.Advance(at - clock.Now());
    ASSERT_TRUE(l.ProbeDue(clock.Now()));
    l.ProbeSent();
    clock.Advance(seconds(10));
    l.RecordProbe(Hung(), clock.Now());
  }
  EXPECT_EQ(waits, (std::vector<long long>{1000, 2000, 4000, 8000, 8000, 8000}));
  // Old watches still stream: the cluster stays down. The next probe's answer brings it up,
  // and the schedule is the interval again, the backoff starting over.
  l.Record(Ok(), clock.Now(), Source::kWatchEvent);
  EXPECT_TRUE(l.down());
  clock.Advance(*l.NextProbeAt() - clock.Now());
  l.ProbeSent();
  EXPECT_TRUE(l.RecordProbe(Ok(), clock.Now()));
  EXPECT_TRUE(l.up());
  EXPECT_FALSE(l.hung());
  EXPECT_EQ(*l.NextProbeAt(), clock.Now() + seconds(10));
  clock.Advance(seconds(10));
  l.ProbeSent();
  l.RecordProbe(Refused(), clock.Now());
  EXPECT_EQ(*l.NextProbeAt(), clock.Now() + seconds(1)) << "the backoff starts over";
}

TEST(LivenessTest, WithoutProbesWhileUpAFailureStillPlansOneToConfirmIt) {
  LivenessPolicy p = Policy();
  p.probe_interval = Duration::zero();
  FakeClock clock;
  Liveness l(p, 1);
  l.ProbeSent();
  l.RecordProbe(Ok(), clock.Now());
  EXPECT_FALSE(l.NextProbeAt()) << "no probes while up";
  clock.Advance(seconds(30));
  l.Record(Refused(), clock.Now());
  ASSERT_TRUE(l.NextProbeAt());
  EXPECT_EQ(*l.NextProbeAt(), clock.Now() + seconds(1));
}

TEST(LivenessTest, ClusterFailureCountsNoProgress) {
  EXPECT_TRUE(ClusterFailure(Hung()));
  EXPECT_TRUE(
      ClusterFailure(ErrorResult(Outcome::kPermanent, Problem::kNoProgress, "no progress")));
  EXPECT_FALSE(ClusterFailure(NotFound()));
}

}  // namespace
}  // namespace fleetwave::clients
