// An ApplicationSet at a glance, at any size: per step the number of apps in each display
// status (engine/appset/app_query.h) and a heat strip of its apps, and the apps that need an
// operator (failed, degraded, late, skipped) first. No per-app entries beyond the attention list,
// so a 2,000-app set summarises in a few kilobytes. Pure; tests/engine/fleetview/.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "engine/appset/app_query.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

constexpr size_t kDisplayStatusCount = 8;
using StatusCounts = std::array<size_t, kDisplayStatusCount>;  // by AppDisplayStatus

struct StepSummary {
  int step = 0;  // 1-based; 0 collects the apps no step selects
  size_t total = 0;
  StatusCounts counts{};
  // One character per app, ordered by cluster then name: the digit of its AppDisplayStatus
  // ('0' Failed ... '7' Healthy), so a view draws the strip without per-app objects.
  std::string strip;
  // The declared step as written (absent for step 0): its matchExpressions and maxUpdate.
  Json match_expressions = Json::array();
  Json max_update;  // null when absent (unlimited)

  bool operator==(const StepSummary&) const = default;
};

struct AppSetSummary {
  std::string name;
  // The rollout in one word, from the set's conditions: Progressing, Complete, Paused,
  // Deadline exceeded, Failed (a step failed), Aborted (issue 29), Rolled back (issue 29: an
  // operator's rollback; a failed step's stays Failed), Held by sync window (issue 29: it would
  // progress but a sync window holds its next syncs; SyncWindowHold's message), Invalid, Error,
  // or "-" (none yet); with that condition's message.
  std::string rollout_status;
  std::string rollout_message;
  std::string strategy;  // spec.strategy.type, "AllAtOnce" when absent
  int current_step = 0;  // status.rollout.step; 0 when complete or without RollingSync
  size_t total = 0;
  StatusCounts counts{};
  std::vector<StepSummary> steps;  // every declared step in order (empty ones too), then step 0
  std::vector<AppRow> attention;   // NeedsAttention rows, most urgent first, at most the limit
  size_t attention_total = 0;
  // [issue 29] The current step's analysis so far (AnalysisOf); null when none was measured.
  Json analysis;
  // [issue 29] The set's rollback, running or finished (RollbackSummaryOf,
  // engine/rollingsync/rollback_summary.h); null when none.
  Json rollback;

  bool operator==(const AppSetSummary&) const = default;
};

// The set's rollout in one word and its message (see AppSetSummary::rollout_status).
std::string RolloutStatusWord(const Json& appset, std::string* message);

// [issue 29] status.rollout.analysis with its step's query, condition and count, as the views
// show it: {"step", "query", "successCondition", "count", "measurements": [{"time", "value"?,
// "passed", "error"?}]}; null when the set has no measurement.
Json AnalysisOf(const Json& appset);

// `rows` as AppRowsOf(appset, ...) returned them.
AppSetSummary Summarize(const Json& appset, const std::vector<AppRow>& rows,
                        size_t attention_limit);

// {"kind": "ApplicationSetSummary", "metadata": {"name"}, "statuses": [names by digit],
//  "strategy", "rollout": {"status", "message"}, "currentStep", "total",
//  "counts": {"Healthy": n, ...},
//  "steps": [{"step", "matchExpressions", "maxUpdate"?, "total", "counts", "strip"}],
//  "attention": [AppRowJson...], "attentionTotal", "analysis"? (AnalysisOf),
//  "rollback"? (RollbackSummaryOf)}.
// Counts list every status, zeros too (a stable shape).
Json SummaryJson(const AppSetSummary& summary);
// One row as lists and the attention list show it: {"name", "appset", "cluster", "step",
// "status", "health", "sync", "rollout"?, "operation"?, "message"?, "labels"?}.
Json AppRowJson(const AppRow& row);
// The row back from that JSON (a watch filters the rows it streams with it); fields of the
// wrong type read as absent.
AppRow AppRowFromJson(const Json& json);

}  // namespace fleetwave::engine
