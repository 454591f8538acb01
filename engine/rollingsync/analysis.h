// Prometheus analysis of a RollingSync step as pure rules (issue 29; pinned by
// tests/engine/rollingsync/analysis_test.cc): the step's `analysis` field decoded, one
// measurement judged from Prometheus' answer to an instant query (/api/v1/query), the step's
// verdict from the measurements taken so far, and those measurements as stored in
// status.rollout.analysis so that a restart goes on with them. Nothing here queries Prometheus:
// a decision asks for a measurement (AnalysisRequest), the daemon queries and hands the answer
// in. The step's gate is in rollout_safety.h (StepAnalysisState, AnalysisDue).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/issue.h"
#include "engine/time.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

// `successCondition`: an operator and a number, compared with the query's single value.
struct SuccessCondition {
  enum class Op { kLess, kLessOrEqual, kGreater, kGreaterOrEqual, kEqual };
  Op op = Op::kLess;
  double threshold = 0;
  std::string written;  // as in the file, for messages

  bool Holds(double value) const;
};

// "< 0.5", "<=1", ">= 99.9", "== 0": nullopt with `why` when it is not one of those.
std::optional<SuccessCondition> ParseSuccessCondition(const std::string& text, std::string* why);

struct AnalysisSpec {
  std::string prometheus;  // base URL; empty: `analysis.prometheus` of fleetwave.yaml
  std::string query;
  SuccessCondition success;
  long long interval_seconds = 60;  // between measurements
  long long count = 1;              // passing measurements the step needs
  long long failure_limit = 0;      // failed measurements tolerated; one more fails the step

  bool operator==(const AnalysisSpec& o) const {
    return prometheus == o.prometheus && query == o.query && success.written == o.success.written &&
           interval_seconds == o.interval_seconds && count == o.count &&
           failure_limit == o.failure_limit;
  }
};

// Decodes a step's `analysis` object (`path` names it, e.g.
// spec.strategy.rollingSync.steps[1].analysis). Every problem is an issue naming its field;
// nullopt when there is any. Required: query, successCondition. Defaults: interval 1m, count 1,
// failureLimit 0.
std::optional<AnalysisSpec> DecodeAnalysis(const Json& analysis, const std::string& path,
                                           Issues& issues);

// One measurement: when, the value (absent when none could be read), whether it passed and,
// for a failed one without a value, why.
struct AnalysisMeasurement {
  Time at;
  std::optional<double> value;
  bool passed = false;
  std::string error;

  bool operator==(const AnalysisMeasurement&) const = default;
};

// What Prometheus answered: its JSON body, or why there is none (unreachable, an HTTP error).
struct PrometheusAnswer {
  std::optional<Json> body;
  std::string error;  // set when body is absent
};

// Judges one answer at `at`. Only a single finite value that meets the condition passes:
// an unreachable Prometheus, a query error, no series, several series or NaN fail it (never
// a pass), with the reason in `error`.
AnalysisMeasurement Measure(const AnalysisSpec& spec, const PrometheusAnswer& answer, Time at);

// The step's analysis so far.
struct AnalysisVerdict {
  enum class State { kRunning, kPassed, kFailed };
  State state = State::kRunning;
  long long passed = 0;
  long long failed = 0;
  // While running: when the next measurement is due (the first one at once).
  std::optional<Time> next_at;
  std::string message;  // for the condition when it failed: the failed values and why
};

// Passed once `count` measurements passed; failed once more than `failureLimit` failed
// (whichever comes first, in measurement order); otherwise running, the next measurement one
// interval after the last.
AnalysisVerdict JudgeAnalysis(const AnalysisSpec& spec,
                              const std::vector<AnalysisMeasurement>& measurements, Time now);

// What a decision asks of the daemon while a step's analysis runs: one measurement of `spec`'s
// query, due at `due`, for step `step` (1-based) of rollout generation `generation`. The daemon
// queries Prometheus then and hands the measurement back (RecordAnalysisMeasurement,
// rollout_state.h), which refuses it when the rollout moved on meanwhile.
struct AnalysisRequest {
  long long generation = 0;
  int step = 0;
  Time due;
  AnalysisSpec spec;

  bool operator==(const AnalysisRequest&) const = default;
};

// status.rollout.analysis: the step (1-based) the measurements belong to and the measurements
// in time order.
struct StepAnalysisRecord {
  int step = 0;
  std::vector<AnalysisMeasurement> measurements;

  bool operator==(const StepAnalysisRecord&) const = default;
};

Json EncodeStepAnalysisRecord(const StepAnalysisRecord& record);
// Strict: a wrong field is an issue naming it (status.rollout.analysis.measurements[2].passed).
StepAnalysisRecord DecodeStepAnalysisRecord(const Json& record, Issues& issues);

}  // namespace fleetwave::engine
