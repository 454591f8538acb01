#include "engine/rollingsync/rollout_steps.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "engine/rollingsync/max_update.h"

namespace fleetwave::engine {
namespace {

bool IsSupportedOperator(const std::string& op) { return op == "In" || op == "NotIn"; }

std::string JoinInts(const std::vector<int>& steps, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (i) out += sep;
    out += std::to_string(steps[i] + 1);
  }
  return out;
}

// Distinct steps, in order of first appearance (the lists are in step order already).
template <typename T>
std::vector<int> DistinctSteps(const std::vector<T>& items) {
  std::vector<int> steps;
  for (const auto& i : items) {
    if (steps.empty() || steps.back() != i.step) steps.push_back(i.step);
  }
  return steps;
}

}  // namespace

std::optional<std::string> RolloutConfigIssues::ConditionMessage() const {
  if (!invalid_operators.empty()) {
    const auto steps = DistinctSteps(invalid_operators);
    std::string ops;
    for (size_t i = 0; i < invalid_operators.size(); ++i) {
      if (i) ops += ", ";
      ops += invalid_operators[i].op;
    }
    const std::string tail =
        " invalid matchExpression operators: " + ops + ". Supported Operators are 'In' and 'NotIn'";
    if (steps.size() == 1) return "Step " + JoinInts(steps, ", ") + " has" + tail;
    return "Steps " + JoinInts(steps, ", ") + " have" + tail;
  }
  if (!duplicates.empty()) {
    // std::map iterates in name order, which is the order the message lists them in.
    std::string names, groups;
    for (const auto& [app, steps] : duplicates) {
      if (!names.empty()) {
        names += "', '";
        groups += "), (";
      }
      names += app;
      groups += JoinInts(steps, "-");
    }
    if (duplicates.size() == 1) {
      return "Application '" + names + "' is selected by multiple steps: (" + groups + ")";
    }
    return "Applications '" + names + "' are selected by multiple steps: [(" + groups + ")]";
  }
  if (!invalid_max_updates.empty()) {
    std::string steps, values;
    for (size_t i = 0; i < invalid_max_updates.size(); ++i) {
      if (i) {
        steps += ", ";
        values += ", ";
      }
      steps += std::to_string(invalid_max_updates[i].step + 1);
      values += invalid_max_updates[i].value;
    }
    if (invalid_max_updates.size() == 1) {
      return "Step " + steps + " has an invalid maxUpdate value: " + values;
    }
    return "Steps " + steps + " have invalid maxUpdate values: [" + values + "]";
  }
  if (!empty_steps.empty()) {
    // Go's fmt of a []string: "[1 5]".
    return "Steps [" + JoinInts(empty_steps, " ") +
           "] have no applications matching their criteria";
  }
  return std::nullopt;
}

bool StepSelects(const RolloutStep& step, const std::map<std::string, std::string>& labels) {
  for (const auto& expr : step.match_expressions) {
    if (!IsSupportedOperator(expr.op)) return false;
    auto it = labels.find(expr.key);
    const bool in_values = it != labels.end() && std::find(expr.values.begin(), expr.values.end(),
                                                           it->second) != expr.values.end();
    // An absent label fails In and passes NotIn: "NotIn wins" is just the AND.
    if (expr.op == "In" ? !in_values : in_values) return false;
  }
  return true;
}

namespace {

// The steps' selectors with every label key resolved to an index into the distinct keys, so
// that AssignSteps, which tries every step on every app, looks each of an app's labels up
// once rather than once per expression. Same answers as StepSelects (rollout_steps_test.cc).
class CompiledSteps {
 public:
  explicit CompiledSteps(const std::vector<RolloutStep>& steps) {
    steps_.reserve(steps.size());
    for (const auto& step : steps) {
      Step compiled;
      for (const auto& expr : step.match_expressions) {
        if (!IsSupportedOperator(expr.op)) {
          compiled.never = true;  // an unknown operator never passes
          break;
        }
        auto key = std::find(keys_.begin(), keys_.end(), expr.key);
        if (key == keys_.end()) key = keys_.insert(keys_.end(), expr.key);
        compiled.exprs.push_back(
            {static_cast<size_t>(key - keys_.begin()), expr.op == "In", &expr.values});
      }
      steps_.push_back(std::move(compiled));
    }
    values_.resize(keys_.size());
  }

  // Every step selecting an app with these labels, in step order. The answer depends only on
  // the values of the keys the steps name, which few distinct apps differ in (a wave, a
  // region): it is computed once per distinct combination.
  const std::vector<int>& Selecting(const std::map<std::string, std::string>& labels) {
    combination_.clear();
    for (size_t k = 0; k < keys_.size(); ++k) {
      auto it = labels.find(keys_[k]);
      values_[k] = it == labels.end() ? nullptr : &it->second;
      // Absent, or present with its length: no two combinations write the same text.
      if (!values_[k]) {
        combination_ += '-';
      } else {
        combination_ += '+';
        combination_ += std::to_string(it->second.size());
        combination_ += ':';
        combination_ += it->second;
      }
    }
    auto known = memo_.find(combination_);
    if (known != memo_.end()) return known->second;
    std::vector<int> selecting;
    for (size_t s = 0; s < steps_.size(); ++s) {
      if (Selects(steps_[s])) selecting.push_back(static_cast<int>(s));
    }
    return memo_.emplace(combination_, std::move(selecting)).first->second;
  }

 private:
  struct Expr {
    size_t key;
    bool in;  // In; otherwise NotIn
    const std::vector<std::string>* values;
  };
  struct Step {
    bool never = false;
    std::vector<Expr> exprs;
  };

  bool Selects(const Step& step) const {
    if (step.never) return false;
    for (const auto& expr : step.exprs) {
      const std::string* value = values_[expr.key];
      const bool in_values = value && std::find(expr.values->begin(), expr.values->end(), *value) !=
                                          expr.values->end();
      // An absent label fails In and passes NotIn: "NotIn wins" is just the AND.
      if (expr.in ? !in_values : in_values) return false;
    }
    return true;
  }

  std::vector<std::string> keys_;
  std::vector<Step> steps_;
  std::vector<const std::string*> values_;  // the current app's value per key, or null
  std::string combination_;                 // the same, as one text (the memo's key)
  std::unordered_map<std::string, std::vector<int>> memo_;
};

// `at(i)` is the i-th of `count` desired apps.
template <typename At>
StepAssignment AssignStepsOf(const Strategy& strategy, std::size_t count, At at) {
  StepAssignment out;
  const int n = static_cast<int>(strategy.steps.size());
  out.members.resize(n);
  // Reported from the strategy itself, whatever the apps' labels [fleetwave].
  for (int s = 0; s < n; ++s) {
    std::set<std::string> reported;
    for (const auto& expr : strategy.steps[s].match_expressions) {
      if (!IsSupportedOperator(expr.op) && reported.insert(expr.op).second) {
        out.issues.invalid_operators.push_back({s, expr.op});
      }
    }
    if (const auto& mu = strategy.steps[s].max_update; mu && InvalidMaxUpdate(*mu)) {
      out.issues.invalid_max_updates.push_back({s, MaxUpdateAsWritten(*mu)});
    }
  }
  CompiledSteps steps(strategy.steps);
  out.steps.resize(count, -1);
  for (size_t i = 0; i < count; ++i) {
    const GeneratedApplication& app = at(i);
    const std::vector<int>& selecting = steps.Selecting(app.labels);
    const int step = selecting.empty() ? -1 : selecting.front();
    out.steps[i] = step;
    if (step >= 0) out.members[step].push_back(i);
    if (selecting.size() > 1) out.issues.duplicates[app.name] = selecting;
  }
  auto by_name = [&](size_t a, size_t b) { return at(a).name < at(b).name; };
  for (int s = 0; s < n; ++s) {
    auto& m = out.members[s];
    // Generated apps come sorted by name, and so does each step's list then.
    if (!std::is_sorted(m.begin(), m.end(), by_name)) std::sort(m.begin(), m.end(), by_name);
    if (m.empty()) out.issues.empty_steps.push_back(s);
  }
  return out;
}

}  // namespace

StepAssignment AssignSteps(const Strategy& strategy,
                           const std::vector<GeneratedApplication>& desired) {
  return AssignStepsOf(strategy, desired.size(),
                       [&](std::size_t i) -> const GeneratedApplication& { return desired[i]; });
}

StepAssignment AssignStepsShared(
    const Strategy& strategy,
    const std::vector<std::shared_ptr<const GeneratedApplication>>& desired) {
  return AssignStepsOf(strategy, desired.size(),
                       [&](std::size_t i) -> const GeneratedApplication& { return *desired[i]; });
}

}  // namespace fleetwave::engine
