// What `fleetwave get` shows, as pure functions of what the daemon's API served (no I/O, no
// clock), so each view is pinned by a table test with hand-written output
// (tests/fleetwave/rollout_view_test.cc).
//
// FleetState holds the API's objects by collection and takes watch events, so a one-shot get
// (the lists) and a --watch (the lists, then events) render through the same functions. Every
// read of an object is type-checked: a field of the wrong type shows as absent, never throws.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/time.h"
#include "engine/yaml_json.h"

namespace fleetwave::cli {

struct FleetState {
  // Collections as the API names them: "applicationsets", "applications", "clusters",
  // "workloads"; objects keyed by KeyOf().
  std::map<std::string, std::map<std::string, engine::Json>> collections;

  // The key of an object in its collection: metadata.name (sets, apps), name (clusters),
  // "cluster/namespace/kind/name" (workloads); "" when it has none.
  static std::string KeyOf(const std::string& collection, const engine::Json& object);
  // Replaces the collection with a list body's "items".
  void SetList(const std::string& collection, const engine::Json& list);
  // Applies one watch line's event; false for a line that is not ADDED/MODIFIED/DELETED of an
  // object with a key (BOOKMARK, garbage).
  bool Apply(const std::string& collection, const engine::Json& event);

  const std::map<std::string, engine::Json>& Of(const std::string& collection) const;
};

struct ViewOptions {
  bool wide = false;   // -o wide: the extra columns
  bool color = false;  // a colour terminal (isatty and no NO_COLOR)
  engine::Time now{};
};

// A rendered view: the whole text (printed once, or redrawn in place on a terminal), and one
// line per object keyed by a stable name, which a watch on a pipe prints when it changes.
struct View {
  std::string text;
  std::vector<std::pair<std::string, std::string>> lines;
  // False when the one object asked for is not (yet) in the state: a watch on a pipe waits for it
  // instead of printing "not found" as its first view (a daemon still loading publishes it soon).
  bool found = true;
};

// `name` empty: every object; else just that one (an empty table when it is missing).
View AppSetsView(const FleetState& state, const std::string& name, const ViewOptions& options);
View AppsView(const FleetState& state, const std::string& name, const ViewOptions& options);
View ClustersView(const FleetState& state, const std::string& name, const ViewOptions& options);
View WorkloadsView(const FleetState& state, const std::string& name, const ViewOptions& options);

// [issue 29] Appends a set's analysis (engine::AnalysisOf, or a summary's "analysis") to a
// view: the passed/needed count with the query and condition, then a table of the measurements
// (time, value, result, error), one watch line each. Nothing for null.
void AppendAnalysis(const engine::Json& analysis, View& view, bool color);

// The one-object view of a set that is not (yet) in the state (View::found false).
View SetNotFoundView(const std::string& name);

// SGR styles for a health ("Healthy" green, ...), a sync status and a rollout or step state;
// nullptr for plain text.
const char* HealthStyle(const std::string& health);
const char* SyncStyle(const std::string& sync);
const char* StateStyle(const std::string& state);
// kubectl's text of a step's selector: "env in (qa,staging),region notin (eu)"; "<none>".
std::string SelectorText(const engine::Json& step);

// `fleetwave get appset NAME --all`: the set's line, one row per step (selector, apps
// complete/total beside a progress bar, maxUpdate, state), and the apps of the current step
// (health, sync, cluster). The current step is highlighted when options.color.
View AppSetStepView(const FleetState& state, const std::string& name, const ViewOptions& options);

}  // namespace fleetwave::cli
