// The fleet view's routes (issue 33): filtered, paged lists of Applications and of their rows,
// and the per-set summaries, answered from the StatusBoard's derived views (status_board.h) with
// the engine's filters (engine/appset/app_query.h). The router (api_routes.h) dispatches to them.
//
//   GET /api/v1/applications?FILTERS     the Applications whose rows match, paged
//   GET /api/v1/rows?FILTERS             ApplicationRowList: the rows themselves, paged
//   GET /api/v1/rows?FILTERS&watch=1     a watch of the matching rows
//   GET /api/v1/summaries[?appset=a,b]   ApplicationSetSummaryList; with watch=1 a watch
//   GET /api/v1/applicationsets/NAME/summary
//
// A list answer carries `metadata.continue` and `metadata.remainingItemCount` when a `limit` cut
// it; the next page is the same request with `continue` set. Pages follow names in order, so an
// app that exists throughout a paged read is on exactly one page (one created or deleted
// meanwhile may or may not be).
#pragma once

#include <string>

#include "actors/status_board.h"
#include "api/api_routes.h"

namespace fleetwave::api {

// Whether the query names a filter or paging parameter (not just watch): the Applications list
// then goes through FilteredApplications.
bool HasFleetQuery(const std::string& query);

ApiResponse FilteredApplications(const actors::StatusBoard& board, const ApiRequest& request);
ApiResponse RowsRoute(const actors::StatusBoard& board, const ApiRequest& request);
ApiResponse SummariesRoute(const actors::StatusBoard& board, const ApiRequest& request);
ApiResponse SummaryRoute(const actors::StatusBoard& board, const std::string& appset);

}  // namespace fleetwave::api
