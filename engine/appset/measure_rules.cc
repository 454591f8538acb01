#include "engine/appset/measure_rules.h"

namespace fleetwave::engine {

MeasureStep MeasureStepOf(const std::optional<AnalysisRequest>& due, bool measuring, bool deleting,
                          Time now) {
  if (!due || measuring || deleting) return MeasureStep::kNothing;
  return due->due > now ? MeasureStep::kWaitUntilDue : MeasureStep::kMeasureNow;
}

std::string AnalysisPrometheusOf(const AnalysisSpec& step, const std::string& set_prometheus) {
  return step.prometheus.empty() ? set_prometheus : step.prometheus;
}

namespace {

std::string DescribeMeasurement(const AnalysisMeasurement& m) {
  std::string value = m.value ? Json(*m.value).dump() : "no value (" + m.error + ")";
  return value + (m.passed ? " passed" : " failed");
}

}  // namespace

std::string MeasurementLogLine(const AnalysisRequest& request,
                               const AnalysisMeasurement& measurement, const std::string& url) {
  return "step=" + std::to_string(request.step) + " analysis measurement " +
         DescribeMeasurement(measurement) + " \"" + request.spec.success.written + "\" (GET " +
         url + ")";
}

std::optional<RolloutState> RolloutWithMeasurement(const std::optional<Json>& stored_rollout,
                                                   const AnalysisRequest& request,
                                                   const AnalysisMeasurement& measurement) {
  Issues issues;
  RolloutState state = DecodeRolloutState(stored_rollout.value_or(Json::object()), issues);
  if (!issues.empty() || !RecordAnalysisMeasurement(state, request, measurement)) {
    return std::nullopt;
  }
  return state;
}

std::string MeasurementDroppedLine(const std::string& measurement_line) {
  return measurement_line + " dropped: the rollout moved on since it was asked for";
}

}  // namespace fleetwave::engine
