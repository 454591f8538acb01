// `fleetwave get appset NAME` at any size, from the set's summary (the API's "summaries") and
// its rows ("rows"): the set's line, one line per step with its counts by status, the apps that
// need attention (failed, degraded, late, skipped) first, and the current step's apps only when
// there are few. A 2,000-app set fits in 40 lines; `--all` is the full step view
// (rollout_view.h), filters list rows (RowsView). Pure functions; tests/cli/summary_view_test.cc.
#pragma once

#include <cstddef>
#include <string>

#include "tools/fleetwave/rollout_view.h"

namespace fleetwave::cli {

// How many apps of the current step are listed by name (more: a line says how to list them),
// and how many of those needing attention.
constexpr size_t kStepAppsShown = 20;
constexpr size_t kAttentionShown = 10;

View AppSetSummaryView(const FleetState& state, const std::string& name,
                       const ViewOptions& options);

// The rows in state's "rows": NAME APPSET CLUSTER STEP STATUS HEALTH SYNC (+ MESSAGE wide).
View RowsView(const FleetState& state, const ViewOptions& options);

}  // namespace fleetwave::cli
