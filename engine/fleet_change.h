// What the coordinator does to its running actors after a load, as pure functions (issue 25:
// the coordinator's rules, out of the actor). PlanFleetChange says which cluster contexts get a
// new actor, which restart (their configuration changed), which retire (they left the
// kubeconfig but run on while a pending deletion needs them), which ApplicationSets are spawned,
// get a new spec, or are no longer defined (marked PendingDeletion only while the inputs are
// trusted, product §3.5), and the lines the coordinator logs about it. PlanConfigLoad says
// whether a fresh fleetwave.yaml replaces the one in force. The coordinator spawns, stops and
// sends from the results; the log texts are the daemon's (e2e tests grep them). Pinned by
// tests/engine/core/fleet_change_test.cc.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/operator_command.h"
#include "engine/reload_plan.h"
#include "engine/time.h"

namespace fleetwave::engine {

// A context of the kubeconfig in force. `same_as_running`: a running (not retired) cluster actor
// has exactly this configuration; the actor compares whole values, since any changed field (a
// rotated key, a new exec plugin, proxy, server name, skip-verify or password) must reach the
// cluster's client, which only a new actor builds.
struct WantedCluster {
  std::string name;
  bool same_as_running = false;
};

// An ApplicationSet the coordinator runs an actor for.
struct RunningSet {
  bool defined = true;  // false once marked PendingDeletion
  std::string file;     // the file that defined it last
};

struct FleetNow {
  std::vector<WantedCluster> clusters;  // in kubeconfig order
  std::set<std::string> running_clusters;
  std::set<std::string> retired_clusters;
  const std::map<std::string, std::vector<ApplicationSet>>* good_files = nullptr;
  std::map<std::string, RunningSet> sets;
  bool trusted = false;
  std::int64_t deletion_grace_seconds = 0;
};

// A set that no file defines any more: its actor keeps its last good spec with these fields.
struct UndefinedSet {
  std::string name;
  bool defined = true;  // still true while untrusted inputs cannot mark it
  bool marked_now = false;
};

struct FleetChange {
  // Retired actors of contexts that are back: they stop before the context's new actor spawns.
  std::vector<std::string> stop_retired;
  std::vector<std::string> spawn_clusters;       // no running actor (new, or back from retired)
  std::vector<std::string> restart_clusters;     // running with another configuration
  std::vector<std::string> retire_clusters;      // running, no longer in the kubeconfig
  std::map<std::string, WantedSet> spawn_sets;   // by name: no actor yet
  std::map<std::string, WantedSet> respec_sets;  // by name: their actor gets the new spec
  std::vector<UndefinedSet> undefined_sets;
  bool inputs_trusted = false;
  std::int64_t deletion_grace_seconds = 0;  // never negative
  std::vector<std::string> log;             // in the order the coordinator logs them
};

FleetChange PlanFleetChange(const FleetNow& now);

// What a load's fleetwave.yaml (and kubeconfigs) changes.
struct ConfigLoad {
  const std::vector<std::string>* errors = nullptr;         // of the fresh load
  const std::vector<std::string>* errors_before = nullptr;  // reported last time
  bool load_failed = false;  // the load itself failed (already counted where it failed)
  bool first = false;        // the daemon's first load: nothing was in force before
};
struct ConfigVerdict {
  bool take_fresh = false;          // the fresh configuration replaces the one in force
  std::optional<std::string> line;  // logged
  bool degraded = false;            // counts fleetwave_degraded_total{reason="file"}
};
ConfigVerdict PlanConfigLoad(const ConfigLoad& load);

// What the coordinator logs about one file of a reload (PlanReload's events), and whether it
// counts fleetwave_degraded_total{reason="file"}: only news is logged and counted (a file whose
// errors changed, one that loads again, a removed file that showed an error).
struct FileReport {
  std::vector<std::string> lines;
  bool degraded = false;
};
FileReport ReportFileEvent(const FileEvent& event);

// Whether a reload succeeded, as its ticket's answer says: it was applied without an internal
// error, fleetwave.yaml loaded, the directory was read and every file loaded.
bool ReloadSucceeded(bool applied, bool config_ok, bool directory_ok,
                     const std::map<std::string, AppSetFile>& files);

// The line a reload logs about the ApplicationSet directory, if any: an unreadable one, or an
// empty one while sets were loaded before (both keep the sets in force).
std::optional<std::string> DirectoryLine(const std::optional<std::string>& directory_error,
                                         bool directory_empty, bool had_sets,
                                         const std::string& directory);

// Retired contexts that may stop now: no pending deletion needs them and the marks their
// removal causes had `settle` to be stored.
std::vector<std::string> RetiredToStop(const std::map<std::string, Time>& retired_at,
                                       const std::set<std::string>& needed, Time now,
                                       std::chrono::seconds settle);

// An operator's deletion of a set the coordinator runs: refused while a file still defines it
// (files are the source of truth: a set still defined would be re-created on the next reload),
// with the line to log; nothing when the deletion actor may take it.
struct DeletionRefusal {
  CommandAnswer answer;
  std::string line;
};
std::optional<DeletionRefusal> RefuseOperatorDeletion(const std::string& appset,
                                                      const RunningSet& set,
                                                      const std::string& caller);

// How long a retired context waits for those marks: an appset actor stores them after its next
// reconcile, which comes at once (the reload sends the new spec) and within a poll interval at
// the latest.
std::chrono::seconds RetireSettle(std::int64_t git_poll_interval_seconds);

// The timings a set's actor runs with: polls at least a second apart (a `git.pollInterval` of
// zero or less polls every second, never in a loop), a deletion grace never negative.
struct SetTimings {
  std::chrono::seconds poll_interval;
  std::chrono::seconds deletion_grace;
};
SetTimings SetTimingsOf(std::int64_t git_poll_interval_seconds,
                        std::int64_t deletion_grace_period_seconds);

}  // namespace fleetwave::engine
