// Step assignment for a RollingSync strategy and the validation issues it finds, with their
// exact InvalidRolloutConfig messages and priority (pinned by
// tests/engine/rollingsync/rollout_steps_test.cc). Steps are 0-based
// here and 1-based in every message and output.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/appset/appset.h"
#include "engine/appset/generate.h"

namespace fleetwave::engine {

// Problems of a rollout configuration. Each list is in step order.
struct RolloutConfigIssues {
  struct InvalidOperator {
    int step = 0;  // 0-based
    std::string op;
  };
  struct InvalidMaxUpdate {
    int step = 0;       // 0-based
    std::string value;  // as written: "abc", "-1"
  };
  std::vector<InvalidOperator> invalid_operators;      // each (step, operator) once
  std::map<std::string, std::vector<int>> duplicates;  // app -> every step selecting it
  std::vector<InvalidMaxUpdate> invalid_max_updates;
  std::vector<int> empty_steps;

  bool Empty() const {
    return invalid_operators.empty() && duplicates.empty() && invalid_max_updates.empty() &&
           empty_steps.empty();
  }
  // The InvalidRolloutConfig message of the highest-priority issue: invalid operator >
  // duplicate > invalid maxUpdate > empty steps. nullopt when there is none.
  std::optional<std::string> ConditionMessage() const;
};

// Indices refer to the `desired` vector given to AssignSteps: a reconcile of many thousand
// apps joins by index, never by name.
struct StepAssignment {
  std::vector<int> steps;                    // per desired app: 0-based step, -1 = none
  std::vector<std::vector<size_t>> members;  // per step: desired indices, in name order
  RolloutConfigIssues issues;
};

// True iff the step selects an app with these labels: every matchExpression passes (AND);
// an unknown operator never passes.
bool StepSelects(const RolloutStep& step, const std::map<std::string, std::string>& labels);

// Assigns every desired app to its first matching step and collects the configuration
// issues, including those found in the strategy alone (invalid operators, invalid maxUpdate).
StepAssignment AssignSteps(const Strategy& strategy,
                           const std::vector<GeneratedApplication>& desired);
// The same over apps shared with their owner (RollingSyncDecider and RolloutTracker share them).
StepAssignment AssignStepsShared(
    const Strategy& strategy,
    const std::vector<std::shared_ptr<const GeneratedApplication>>& desired);

}  // namespace fleetwave::engine
