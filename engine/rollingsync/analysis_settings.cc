#include "engine/rollingsync/analysis_settings.h"

namespace fleetwave::engine {

std::vector<int> StepsWithoutPrometheus(const Strategy& strategy,
                                        const std::string& default_prometheus) {
  std::vector<int> out;
  if (!strategy.IsRollingSync() || !default_prometheus.empty()) return out;
  for (size_t i = 0; i < strategy.steps.size(); ++i) {
    const auto& analysis = strategy.steps[i].analysis;
    if (analysis && analysis->prometheus.empty()) out.push_back(static_cast<int>(i));
  }
  return out;
}

std::string AnalysisFieldsHave(const std::vector<int>& steps) {
  std::string fields;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (i > 0) fields += i + 1 == steps.size() ? " and " : ", ";
    fields += "spec.strategy.rollingSync.steps[" + std::to_string(steps[i]) + "].analysis (step " +
              std::to_string(steps[i] + 1) + ")";
  }
  return fields + (steps.size() == 1 ? " has" : " have");
}

std::string MissingPrometheusMessage(const std::vector<int>& steps) {
  if (steps.empty()) return "";
  return AnalysisFieldsHave(steps) +
         " no prometheus and fleetwave.yaml sets no analysis.prometheus: the analysis could never "
         "pass; set the step's analysis.prometheus or analysis.prometheus in fleetwave.yaml";
}

std::optional<AppSetCondition> MissingPrometheusCondition(const Strategy& strategy,
                                                          const std::string& default_prometheus) {
  const std::vector<int> steps = StepsWithoutPrometheus(strategy, default_prometheus);
  if (steps.empty()) return std::nullopt;
  return AppSetCondition{
      "ErrorOccurred", "True", kAnalysisPrometheusMissing,
      MissingPrometheusMessage(steps) + "; this ApplicationSet is not reconciled", std::nullopt};
}

}  // namespace fleetwave::engine
