// `fleetwave get ... --watch`: one watch stream per collection the view needs (the API's
// ?watch=1 JSON lines), merged into a FleetState and rendered by the same views as a one-shot
// get. On a terminal the view is redrawn in place (and again each second, for the ages); on a
// pipe the first view is printed whole and then one line per object whose line changed. A
// stream that ends (the daemon restarted, or dropped a slow reader) is started again, and its
// new snapshot replaces what the client had.
//
// The pure parts (which lines a change prints, the redraw's escape codes) are functions here so
// tests pin them (GetWatchTest.*); the tmux test drives the whole loop (get_watch_tty_test.py).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "tools/fleetwave/daemon_client.h"
#include "tools/fleetwave/rollout_view.h"

namespace fleetwave::cli {

struct GetRequest {
  // kAppSetSummary: `get appset NAME` (summary_view.h); kAppSetSteps: with --all; kRows: apps
  // or a set's apps through filters (--status, --step, --cluster, -l, --appset).
  enum class Kind { kAppSets, kAppSetSteps, kAppSetSummary, kApps, kRows, kClusters, kWorkloads };
  Kind kind = Kind::kAppSets;
  std::string collection;  // the resource asked for, as the API names it
  std::string name;        // "" = all
  std::string format;      // "", "wide", "json", "yaml"
  bool terminal = false;   // stdout is a terminal: redraw in place
  bool color = false;
  std::string rows_query;  // kRows: the API's filter query ("appset=web&status=failed")
};

GetRequest::Kind GetKindOf(const std::string& collection, const std::string& name);
// The collections a view reads (each one a watch stream).
std::vector<std::string> CollectionsFor(GetRequest::Kind kind);
// The API path a view reads a collection from: "/api/v1/<collection>", with the view's filter.
std::string PathFor(const GetRequest& request, const std::string& collection);
View RenderGet(const GetRequest& request, const FleetState& state, const ViewOptions& options);

// The lines a watch on a pipe prints going from `before` to `after`: each key whose line is new
// or different, in `after`'s order, then "<last line> (deleted)" for each key that went away.
std::vector<std::string> ChangedLines(const View& before, const View& after);

// The bytes that replace a terminal's previous drawing of `previous_lines` lines with `text`:
// cursor up to its first line, each line of `text` cut to `width` columns (0 = no limit) and
// followed by erase-to-end-of-line, at most `height - 1` lines (0 = no limit) so nothing wraps
// or scrolls, then erase below. Sets `*lines` to the lines drawn (GetWatchTest.Redraw).
std::string Redraw(size_t previous_lines, const std::string& text, size_t width, size_t height,
                   size_t* lines);

// Runs the watch until interrupted (or a stream fails before it ever started: exit 1).
int WatchGet(DaemonClient& client, const ClientSettings& settings, const GetRequest& request,
             std::ostream& out, std::ostream& err);

}  // namespace fleetwave::cli
