// Every Plan table test through both paths (issue 25): PlanChecked runs Plan, the oracle, and a
// RolloutTracker loaded from the same stored status and inputs, and fails the test at the first
// difference between the two decisions. It returns the oracle's result, so a table keeps
// asserting what it asserted on Plan alone.
#pragma once

#include <vector>

#include <gtest/gtest.h>

#include "engine/rollingsync/plan_difference.h"
#include "engine/rollingsync/rollout_plan.h"
#include "engine/rollingsync/rollout_tracker.h"

namespace fleetwave::engine::testing_builders {

inline void ExpectTrackerAgrees(const ApplicationSet& set, const StoredRolloutStatus& stored,
                                const std::vector<GeneratedApplication>& desired,
                                const std::vector<Application>& live, Time now,
                                bool observation_complete, const PlanResult& oracle) {
  if (!oracle.planned || !RolloutTracker::Tracks(set)) return;
  RolloutTracker tracker(set, stored, desired, live);
  tracker.Decide(now, observation_complete);
  if (auto difference = FirstPlanDifference(oracle, tracker.Snapshot())) {
    ADD_FAILURE() << "RolloutTracker differs from Plan: " << *difference;
  }
}

inline PlanResult PlanChecked(const ApplicationSet& set,
                              const std::vector<GeneratedApplication>& desired,
                              const std::vector<Application>& live, Time now) {
  PlanResult oracle = Plan(set, desired, live, now);
  Issues issues;
  const StoredRolloutStatus stored = DecodeStoredRolloutStatus(set.status, issues);
  ExpectTrackerAgrees(set, stored, desired, live, now, true, oracle);
  return oracle;
}

inline PlanResult PlanChecked(const ApplicationSet& set, const StoredRolloutStatus& stored,
                              const std::vector<GeneratedApplication>& desired,
                              const std::vector<Application>& live, Time now,
                              bool observation_complete = true) {
  PlanResult oracle = Plan(set, stored, desired, live, now, observation_complete);
  ExpectTrackerAgrees(set, stored, desired, live, now, observation_complete, oracle);
  return oracle;
}

}  // namespace fleetwave::engine::testing_builders
