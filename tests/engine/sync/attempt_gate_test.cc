// When a sync operation's next attempt starts and with which render (engine/sync/attempt_gate.h).
// Times: 1700000000 is 2023-11-14T22:13:20Z.
#include "engine/sync/attempt_gate.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace fleetwave::engine {
namespace {

Time At(long long s) { return FromUnixSeconds(1'700'000'000 + s); }

OperationRecord Operation(OperationPhase phase, std::optional<Time> next_attempt_at) {
  OperationRecord r = StartOperation("op-1", Json::object(), {"r1"}, At(0));
  r.phase = phase;
  r.next_attempt_at = next_attempt_at;
  return r;
}

TEST(AttemptGateTest, DecideAttempt) {
  const OperationRecord running = Operation(OperationPhase::kRunning, std::nullopt);
  const OperationRecord retry_later = Operation(OperationPhase::kRunning, At(30));
  const OperationRecord retry_now = Operation(OperationPhase::kRunning, At(10));
  const OperationRecord retry_past = Operation(OperationPhase::kRunning, At(5));
  const OperationRecord succeeded = Operation(OperationPhase::kSucceeded, std::nullopt);
  const OperationRecord failed = Operation(OperationPhase::kFailed, std::nullopt);
  const OperationRecord error = Operation(OperationPhase::kError, std::nullopt);
  const Time now = At(10);
  // Every fact that lets an attempt start; each case breaks at most one.
  const AttemptFacts ready{&running, false, true, true, true};
  auto with = [&](auto change) {
    AttemptFacts f = ready;
    change(f);
    return f;
  };
  struct Case {
    const char* name;
    AttemptFacts facts;
    AttemptReadiness readiness;
    std::optional<Time> wake_at;
    AttemptNotDueReason reason;
  };
  const Case cases[] = {
      {"running, no retry time, cluster up and listed: start", ready, AttemptReadiness::kStart,
       std::nullopt, AttemptNotDueReason::kNone},
      {"retry due exactly now: start", with([&](AttemptFacts& f) { f.operation = &retry_now; }),
       AttemptReadiness::kStart, std::nullopt, AttemptNotDueReason::kNone},
      {"retry time passed (a restart after it): start",
       with([&](AttemptFacts& f) { f.operation = &retry_past; }), AttemptReadiness::kStart,
       std::nullopt, AttemptNotDueReason::kNone},
      {"retry later: wait until then", with([&](AttemptFacts& f) { f.operation = &retry_later; }),
       AttemptReadiness::kWaitUntil, At(30), AttemptNotDueReason::kNone},
      {"an attempt in flight: not due", with([](AttemptFacts& f) { f.in_flight = true; }),
       AttemptReadiness::kNotDue, std::nullopt, AttemptNotDueReason::kInFlight},
      {"in flight wins over a later retry", with([&](AttemptFacts& f) {
         f.in_flight = true;
         f.operation = &retry_later;
       }),
       AttemptReadiness::kNotDue, std::nullopt, AttemptNotDueReason::kInFlight},
      {"no operation", with([](AttemptFacts& f) { f.operation = nullptr; }),
       AttemptReadiness::kNotDue, std::nullopt, AttemptNotDueReason::kNotRunning},
      {"Succeeded", with([&](AttemptFacts& f) { f.operation = &succeeded; }),
       AttemptReadiness::kNotDue, std::nullopt, AttemptNotDueReason::kNotRunning},
      {"Failed", with([&](AttemptFacts& f) { f.operation = &failed; }), AttemptReadiness::kNotDue,
       std::nullopt, AttemptNotDueReason::kNotRunning},
      {"Error", with([&](AttemptFacts& f) { f.operation = &error; }), AttemptReadiness::kNotDue,
       std::nullopt, AttemptNotDueReason::kNotRunning},
      {"no longer generated: its operation stays",
       with([](AttemptFacts& f) { f.generated = false; }), AttemptReadiness::kNotDue, std::nullopt,
       AttemptNotDueReason::kNotGenerated},
      {"cluster unreachable", with([](AttemptFacts& f) { f.cluster_reachable = false; }),
       AttemptReadiness::kNotDue, std::nullopt, AttemptNotDueReason::kClusterNotReady},
      {"after a restart, watches not listed yet: no attempt re-applies what is live",
       with([](AttemptFacts& f) { f.cluster_synced = false; }), AttemptReadiness::kNotDue,
       std::nullopt, AttemptNotDueReason::kClusterNotReady},
      {"unreachable cluster and a later retry: no wake-up for it", with([&](AttemptFacts& f) {
         f.cluster_reachable = false;
         f.operation = &retry_later;
       }),
       AttemptReadiness::kNotDue, std::nullopt, AttemptNotDueReason::kClusterNotReady},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const AttemptDecision d = DecideAttempt(c.facts, now);
    EXPECT_EQ(d.readiness, c.readiness);
    EXPECT_EQ(d.wake_at, c.wake_at);
    EXPECT_EQ(AttemptNotDueReasonName(d.reason), AttemptNotDueReasonName(c.reason));
  }
}

TEST(AttemptGateTest, ChooseAttemptRender) {
  const std::vector<std::string> r1 = {"r1"};
  const std::vector<std::string> r2 = {"r2"};
  const std::vector<std::string> r1_r2 = {"r1", "r2"};
  const std::vector<std::string> none;
  struct Case {
    const char* name;
    CurrentRender current;
    std::vector<std::string> pinned;
    AttemptRenderChoice want;
  };
  const Case cases[] = {
      {"ok at the pinned revision: reused", {true, &r1}, {"r1"}, AttemptRenderChoice::kUseCurrent},
      {"ok at both pinned revisions: reused",
       {true, &r1_r2},
       {"r1", "r2"},
       AttemptRenderChoice::kUseCurrent},
      {"ok at a newer revision: render at the pinned one",
       {true, &r2},
       {"r1"},
       AttemptRenderChoice::kRenderAtPinned},
      {"sources in another order: render at the pinned ones",
       {true, &r1_r2},
       {"r2", "r1"},
       AttemptRenderChoice::kRenderAtPinned},
      {"one source fewer: render at the pinned ones",
       {true, &r1},
       {"r1", "r2"},
       AttemptRenderChoice::kRenderAtPinned},
      {"failed at the pinned revision: render again",
       {false, &r1},
       {"r1"},
       AttemptRenderChoice::kRenderAtPinned},
      {"no render yet", {false, nullptr}, {"r1"}, AttemptRenderChoice::kRenderAtPinned},
      {"no render and nothing pinned: render",
       {true, nullptr},
       {},
       AttemptRenderChoice::kRenderAtPinned},
      {"ok with no revisions, none pinned: reused",
       {true, &none},
       {},
       AttemptRenderChoice::kUseCurrent},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(ChooseAttemptRender(c.current, c.pinned), c.want);
  }
}

TEST(AttemptGateTest, AfterAttemptRender) {
  struct Case {
    const char* name;
    bool render_ok;
    bool still_generated;
    AfterPinnedRender want;
  };
  const Case cases[] = {
      {"rendered, app still generated: send", true, true, AfterPinnedRender::kSend},
      {"rendered, app gone meanwhile: dropped", true, false, AfterPinnedRender::kDrop},
      {"render failed: the attempt ends with its error", false, true,
       AfterPinnedRender::kFinishWithRenderError},
      {"render failed and app gone: still recorded", false, false,
       AfterPinnedRender::kFinishWithRenderError},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(AfterAttemptRender(c.render_ok, c.still_generated), c.want);
  }
}

}  // namespace
}  // namespace fleetwave::engine
