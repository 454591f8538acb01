// When the appset actor queries Prometheus for a step's analysis, where, and what it logs of a
// measurement and of one the rollout no longer wants (issue 25: the rules MaybeMeasure and
// OnMeasured used to hold; issue 29 for the analysis itself). Pinned by
// tests/engine/appset/measure_rules_test.cc.
#pragma once

#include <optional>
#include <string>

#include "engine/rollingsync/analysis.h"
#include "engine/rollingsync/rollout_state.h"
#include "engine/time.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

enum class MeasureStep {
  kNothing,       // no measurement asked for, one in flight, or the set is being deleted
  kWaitUntilDue,  // asked for later: the actor wakes up at the request's due time
  kMeasureNow,
};
MeasureStep MeasureStepOf(const std::optional<AnalysisRequest>& due, bool measuring, bool deleting,
                          Time now);

// The Prometheus a step's analysis queries: the step's own, else the set's.
std::string AnalysisPrometheusOf(const AnalysisSpec& step, const std::string& set_prometheus);

// "step=<n> analysis measurement <value> passed|failed \"<condition>\" (GET <url>)".
std::string MeasurementLogLine(const AnalysisRequest& request,
                               const AnalysisMeasurement& measurement, const std::string& url);

// The stored rollout state (status.rollout, absent: nullopt) with the measurement recorded;
// nullopt when it is dropped: the stored state does not decode, or the rollout moved on since
// the request (RecordAnalysisMeasurement).
std::optional<RolloutState> RolloutWithMeasurement(const std::optional<Json>& stored_rollout,
                                                   const AnalysisRequest& request,
                                                   const AnalysisMeasurement& measurement);
// The log line of a dropped measurement.
std::string MeasurementDroppedLine(const std::string& measurement_line);

}  // namespace fleetwave::engine
