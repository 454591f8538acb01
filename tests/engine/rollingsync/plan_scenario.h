// A Plan table test's set and live apps, decided through PlanChecked (both paths, plan_oracle.h),
// and the lookups its assertions use. Shared by the Plan tables (rollout_plan_test.cc) and the
// rollout safety tables (rollout_safety_test.cc).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "engine/rollingsync/rollout_plan.h"
#include "tests/engine/rollingsync/builders.h"
#include "tests/engine/rollingsync/plan_oracle.h"

namespace fleetwave::engine::testing_builders {

inline const Time kPlanNow = T("2026-03-01T12:00:00Z");

struct PlanScenario {
  ApplicationSet set;
  std::vector<Application> live;

  void Entries(const std::vector<AppRolloutStatus>& entries) {
    Json list = Json::array();
    for (const auto& e : entries) list.push_back(EncodeAppRolloutStatus(e));
    set.status["applicationStatus"] = list;
  }
  void Rollout(const RolloutState& state) { set.status["rollout"] = EncodeRolloutState(state); }
  PlanResult Run(Time now = kPlanNow) const { return PlanChecked(set, DesiredOf(live), live, now); }
  // The next decision reads this one's status back, as the daemon does.
  void Continue(const PlanResult& r) { set.status = PlanStatusJson(r); }
  Application& App(const std::string& name) {
    for (auto& a : live)
      if (a.name == name) return a;
    throw std::runtime_error("no app " + name);
  }
};

inline const AppRolloutStatus& EntryOf(const PlanResult& r, const std::string& app) {
  for (const auto& e : r.application_status) {
    if (e.application == app) return e;
  }
  throw std::runtime_error("no entry for " + app);
}

inline const AppSetCondition& ConditionOf(const PlanResult& r, const std::string& type) {
  for (const auto& c : r.conditions) {
    if (c.type == type) return c;
  }
  throw std::runtime_error("no condition " + type);
}

// The condition every rollout rule speaks through.
inline const AppSetCondition& Progressing(const PlanResult& r) {
  return ConditionOf(r, "RolloutProgressing");
}

}  // namespace fleetwave::engine::testing_builders
