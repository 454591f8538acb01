// Issue 29: fleetwave_rollbacks_total counts a rollback once, at the committed decision that
// started it, read from the stored status.rollout before the decision and the one it committed.
#include "engine/rollingsync/rollback_metric.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/rollingsync/rollback_state.h"
#include "engine/time.h"

namespace fleetwave::engine {
namespace {

const Time kT0 = Time{} + std::chrono::hours(24 * 365 * 56);

RollbackState Rollback(const char* reason, Time started) {
  RollbackState s;
  s.reason = reason;
  s.by = std::string(reason) == kRollbackOperator ? "10.0.0.7:5000" : "";
  s.failed_step = std::string(reason) == kRollbackStepFailed ? 2 : 0;
  s.started_at = started;
  s.apps = {RollbackApp{"web-prod", 2, {"b2"}, {"a1"}, RollbackAppPhase::kWaiting, {}, ""}};
  return s;
}

// A status.rollout at step 2 holding `rollback` (and `requested`, an operator's request).
Json Rollout(const std::optional<RollbackState>& rollback, bool requested = false) {
  Json r = {{"generation", 1}, {"step", 2}};
  if (rollback) r["rollback"] = EncodeRollbackState(*rollback);
  if (requested) {
    r["rollbackRequested"] = EncodeRollbackRequest(RollbackRequest{"10.0.0.7:5000", "", kT0});
  }
  return r;
}

TEST(RollbackMetricTest, ARollbackCountsOnceAtTheDecisionThatStartedIt) {
  const RollbackState failed = Rollback(kRollbackStepFailed, kT0);
  const RollbackState by_operator = Rollback(kRollbackOperator, kT0 + std::chrono::seconds(30));
  RollbackState progressed = failed;  // the same rollback, one app further
  progressed.apps[0].phase = RollbackAppPhase::kSyncing;
  progressed.apps[0].since = kT0 + std::chrono::seconds(1);
  RollbackState finished = progressed;
  finished.apps[0].phase = RollbackAppPhase::kRolledBack;
  finished.finished_at = kT0 + std::chrono::seconds(40);
  Json broken = Rollout(std::nullopt);
  broken["rollback"] = {{"reason", 7}};
  struct Case {
    const char* name;
    std::optional<Json> stored;
    std::optional<Json> committed;
    std::string counted;  // the reason label, "" = not counted
  };
  const std::vector<Case> cases = {
      {"a failed step starts one", Rollout(std::nullopt), Rollout(failed), kRollbackStepFailed},
      {"the first decision ever starts one", std::nullopt, Rollout(failed), kRollbackStepFailed},
      {"an operator's request is started", Rollout(std::nullopt, true), Rollout(by_operator),
       kRollbackOperator},
      {"the request alone counts nothing", Rollout(std::nullopt), Rollout(std::nullopt, true), ""},
      {"a rollback going on is not counted again", Rollout(failed), Rollout(progressed), ""},
      {"nor one finishing", Rollout(progressed), Rollout(finished), ""},
      {"nor one a restart found stored", Rollout(finished), Rollout(finished), ""},
      {"a decision that left status.rollout alone", Rollout(std::nullopt), std::nullopt, ""},
      {"a new commit clears it", Rollout(finished), Rollout(std::nullopt), ""},
      {"a later rollback after a finished one", Rollout(finished), Rollout(by_operator),
       kRollbackOperator},
      {"a stored rollback that does not decode", broken, Rollout(failed), kRollbackStepFailed},
      {"a committed one that does not decode", Rollout(std::nullopt), broken, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(RollbackStartedByDecision(c.stored, c.committed), c.counted);
  }
}

}  // namespace
}  // namespace fleetwave::engine
