// Both RollingSync deciders over a sequence of decisions, as the daemon runs them: Plan, the
// oracle, from the previous decision's status, and one RolloutTracker kept across the
// decisions and told the changed live apps and the operator's commands (not reloaded from the
// stored status, which PlanChecked already covers). Every decision fails the test at the first
// difference between the two. Used by the tables of operator commands on a rollout (resume of
// a halt, abort) in rollout_safety_test.cc and rollout_abort_test.cc.
#pragma once

#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "engine/rollingsync/plan_difference.h"
#include "engine/rollingsync/rollout_plan.h"
#include "engine/rollingsync/rollout_tracker.h"
#include "tests/engine/rollingsync/plan_scenario.h"

namespace fleetwave::engine::testing_builders {

class KeptDeciders {
 public:
  explicit KeptDeciders(PlanScenario scenario) : s_(std::move(scenario)) {
    Issues issues;
    tracker_.emplace(s_.set, DecodeStoredRolloutStatus(s_.set.status, issues), DesiredOf(s_.live),
                     s_.live);
    EXPECT_TRUE(issues.empty());
  }

  // The live apps, to change between decisions (every one is handed to the tracker again).
  PlanScenario& scenario() { return s_; }

  PlanResult Decide(Time now) {
    for (const auto& a : s_.live) tracker_->SetLive(a);
    PlanResult r = s_.Run(now);
    tracker_->Decide(now);
    if (auto d = FirstPlanDifference(r, tracker_->Snapshot())) {
      ADD_FAILURE() << "RolloutTracker differs from Plan: " << *d;
    }
    s_.Continue(r);
    return r;
  }

  void Resume(Time now) {
    RolloutState st = Stored();
    ResumeRollout(st, now);
    s_.Rollout(st);
    tracker_->Resume(now);
  }

  void Abort(Time now, const std::string& caller) {
    RolloutState st = Stored();
    AbortRollout(st, now, caller);
    s_.Rollout(st);
    tracker_->Abort(now, caller);
  }

  // An operator's rollback (issue 29), requested in the stored status and the tracker.
  void Rollback(Time now, const std::string& caller, const std::string& to = "") {
    RolloutState st = Stored();
    RequestRollback(st, now, caller, to);
    s_.Rollout(st);
    tracker_->RequestRollback(now, caller, to);
  }

  // A measurement the daemon took for `request` (issue 29), in the stored status and the tracker.
  void Measure(const AnalysisRequest& request, const AnalysisMeasurement& m) {
    RolloutState st = Stored();
    EXPECT_TRUE(RecordAnalysisMeasurement(st, request, m));
    s_.Rollout(st);
    EXPECT_TRUE(tracker_->RecordMeasurement(request, m));
  }

 private:
  RolloutState Stored() const {
    Issues issues;
    RolloutState st = DecodeRolloutState(s_.set.status.value("rollout", Json::object()), issues);
    EXPECT_TRUE(issues.empty());
    return st;
  }

  PlanScenario s_;
  std::optional<RolloutTracker> tracker_;
};

}  // namespace fleetwave::engine::testing_builders
