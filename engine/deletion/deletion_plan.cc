#include "engine/deletion/deletion_plan.h"

#include <algorithm>

#include "engine/rollingsync/rollout_steps.h"

namespace fleetwave::engine {

DeletionPlan PlanDeletion(const Strategy& strategy, const std::vector<GeneratedApplication>& apps,
                          const std::set<std::string>& gone) {
  DeletionPlan plan;
  std::vector<std::string> remaining;
  for (const auto& a : apps) {
    if (!gone.count(a.name)) remaining.push_back(a.name);
  }
  std::sort(remaining.begin(), remaining.end());
  if (remaining.empty()) {
    plan.done = true;
    return plan;
  }
  if (!strategy.ReverseDeletion()) {
    plan.delete_now = std::move(remaining);
    return plan;
  }
  const StepAssignment assignment = AssignSteps(strategy, apps);
  for (int s = static_cast<int>(assignment.members.size()) - 1; s >= 0; --s) {
    for (size_t i : assignment.members[s]) {
      if (!gone.count(apps[i].name)) plan.delete_now.push_back(apps[i].name);
    }
    if (!plan.delete_now.empty()) {
      plan.step = s + 1;
      return plan;
    }
  }
  // Only apps no step selects are left.
  plan.step = -1;
  plan.delete_now = std::move(remaining);
  return plan;
}

}  // namespace fleetwave::engine
