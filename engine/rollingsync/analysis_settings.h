// Whether a set's analysis steps know which Prometheus to ask (issue 29): a step's `analysis`
// without its own `prometheus` takes `analysis.prometheus` of fleetwave.yaml; with neither, the
// step's analysis can only fail, after the step's apps were already rolled out. So such a set is
// refused before it writes anything, with ErrorOccurred naming each step and the two settings
// (the daemon), and `fleetwave validate` warns about it. Pure; pinned by
// tests/engine/rollingsync/analysis_settings_test.cc.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/appset/appset.h"
#include "engine/rollingsync/rollout_conditions.h"

namespace fleetwave::engine {

inline constexpr const char* kAnalysisPrometheusMissing = "AnalysisPrometheusMissing";

// The steps (0-based, in order) of a RollingSync strategy whose analysis names no Prometheus
// while `default_prometheus` (fleetwave.yaml's analysis.prometheus) is empty too.
std::vector<int> StepsWithoutPrometheus(const Strategy& strategy,
                                        const std::string& default_prometheus);

// "spec.strategy.rollingSync.steps[0].analysis (step 1), ... and ...steps[3].analysis (step 4)"
// followed by " has" or " have": the fields of those steps, for a message.
std::string AnalysisFieldsHave(const std::vector<int>& steps);

// "spec.strategy.rollingSync.steps[0].analysis (step 1) has no prometheus and fleetwave.yaml
// sets no analysis.prometheus: ..." for those steps; empty for none.
std::string MissingPrometheusMessage(const std::vector<int>& steps);

// ErrorOccurred=True, reason AnalysisPrometheusMissing, with that message; nullopt when every
// analysis step has a Prometheus.
std::optional<AppSetCondition> MissingPrometheusCondition(const Strategy& strategy,
                                                          const std::string& default_prometheus);

}  // namespace fleetwave::engine
