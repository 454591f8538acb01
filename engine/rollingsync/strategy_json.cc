#include "engine/rollingsync/strategy_json.h"

#include <string>

namespace fleetwave::engine {

Json StrategyJson(const Strategy& strategy) {
  Json out = {{"type", strategy.type.empty() ? "AllAtOnce" : strategy.type}};
  if (!strategy.deletion_order.empty()) out["deletionOrder"] = strategy.deletion_order;
  if (!strategy.IsRollingSync()) return out;
  Json steps = Json::array();
  for (const RolloutStep& step : strategy.steps) {
    Json expressions = Json::array();
    for (const LabelSelectorRequirement& r : step.match_expressions) {
      expressions.push_back({{"key", r.key}, {"operator", r.op}, {"values", r.values}});
    }
    Json s = {{"matchExpressions", std::move(expressions)}};
    if (step.max_update) {
      // As written: an integer stays a number and "10%" (or an invalid "abc") a string.
      s["maxUpdate"] = step.max_update->is_int ? Json(step.max_update->int_value)
                                               : Json(step.max_update->string_value);
    }
    if (step.progress_deadline_seconds) {
      s["progressDeadlineSeconds"] = *step.progress_deadline_seconds;
    }
    if (step.max_failures) {
      s["maxFailures"] = step.max_failures->is_int ? Json(step.max_failures->int_value)
                                                   : Json(step.max_failures->string_value);
    }
    // In seconds ("10m" shows as "600s"): one unit for every client.
    if (step.min_success_seconds) {
      s["minSuccessTime"] = std::to_string(*step.min_success_seconds) + "s";
    }
    if (step.analysis) {
      const AnalysisSpec& a = *step.analysis;
      Json analysis = {{"query", a.query},
                       {"successCondition", a.success.written},
                       {"interval", std::to_string(a.interval_seconds) + "s"},
                       {"count", a.count},
                       {"failureLimit", a.failure_limit}};
      if (!a.prometheus.empty()) analysis["prometheus"] = a.prometheus;
      s["analysis"] = std::move(analysis);
    }
    // Halt is the default and stays unwritten, as the file leaves it.
    if (step.on_failure == RolloutStep::OnFailure::kRollback) s["onFailure"] = "Rollback";
    steps.push_back(std::move(s));
  }
  out["rollingSync"] = {{"steps", std::move(steps)}};
  return out;
}

}  // namespace fleetwave::engine
