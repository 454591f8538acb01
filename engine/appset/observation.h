// How an ApplicationSet's actor turns what it holds about one app (its render, its cluster's
// reports) into the engine's ObservedApp, and what a cluster report changes (issue 25: these
// rules lived in actors/appset_actor.cc). The actor only looks the inputs up and sends the
// messages. Pinned by tests/engine/appset/observation_test.cc.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/appset/app_project.h"
#include "engine/error.h"
#include "engine/rollingsync/appset_reconcile.h"

namespace fleetwave::engine {

// One app's render as the set's last generation holds it.
struct RenderSeen {
  std::vector<std::string> revisions;
  std::shared_ptr<const std::vector<RenderedObject>> objects;  // null when the render failed
  std::optional<Error> error;                                  // the render's problems, if any
  std::vector<Error> repository_errors;
};

// Sets `o`'s revisions, rendered objects and source error from its render (`render` null: the
// generation has no render for it, a Permanent "not rendered" error). A rendered app that its
// AppProject refuses (issue 29; `projects` null enforces nothing) is reported as an InvalidInput
// source error: never synced, its step held, the refusal in its condition. Resets `o.compared`
// when the rendered objects or the source error changed.
void ObserveRender(const AppProjects* projects, const RenderSeen* render, ObservedApp& o);

// What a reconcile refreshes of an app's observation kept from the last one (refreshing only what
// changed, as copying every live object of a set into every reconcile was a fifth of the daemon's
// CPU at 1,000 apps). Its cluster's flags (ObserveCluster) are refreshed always.
struct ObservationRefresh {
  bool desired = false;  // take the newly generated app: it moved or its content differs
  bool render = false;   // ObserveRender again: a new generation
  bool live = false;     // its live objects: it moved, or its cluster reported them changed
  bool applied = false;  // its apply results: an attempt of it ended
};

// `kept`: the generated app the observation was made of; `app`: the reconcile's. A reconcile of
// the same generation (a cluster event, a poll that found no new commit) compares neither the
// app nor its render again: they would be found equal. `live_changed`: the app's cluster (its
// new one) reported the app's live objects changed; `applied_changed`: an attempt ended.
ObservationRefresh RefreshOf(const GeneratedApplication& kept, const GeneratedApplication& app,
                             bool same_generation, bool live_changed, bool applied_changed);

// What a cluster's actor last reported of it, as an ApplicationSet keeps it.
struct ClusterFlags {
  bool reachable = false;
  bool synced = false;
  bool listed = false;  // synced at least once in this process: its health data means something
  // Reachable and its watches synced: its live data can be trusted.
  bool up() const { return reachable && synced; }
};

// Sets `o`'s reachable (the cluster is up) and observed (listed) flags; `cluster` null: the
// cluster never reported. Resets `o.compared` when reachability changed.
void ObserveCluster(const ClusterFlags* cluster, ObservedApp& o);

// What one report of a cluster's actor (`reachable`, `synced`) does to the set's flags for it.
struct ClusterReportEffect {
  ClusterFlags flags;  // the flags after the report; listed never goes back to false
  // Up or listed changed: every app on the cluster is observed again.
  bool changed = false;
  // "cluster=NAME is reachable" / "is unreachable" when up changed, else "" (tests grep it).
  std::string log;
};
ClusterReportEffect ApplyClusterReport(const std::string& cluster, const ClusterFlags& before,
                                       bool reachable, bool synced);

}  // namespace fleetwave::engine
