#include "engine/fleet_change.h"

#include <algorithm>

namespace fleetwave::engine {
namespace {

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : "; ") + l;
  return out;
}

void PlanClusters(const FleetNow& now, FleetChange* change) {
  std::set<std::string> wanted;
  for (const WantedCluster& c : now.clusters) {
    wanted.insert(c.name);
    const bool running = now.running_clusters.count(c.name) > 0;
    if (running && c.same_as_running) continue;
    if (now.retired_clusters.count(c.name) > 0) change->stop_retired.push_back(c.name);
    if (running) {
      change->log.push_back("cluster=" + c.name + " changed in the kubeconfig; its actor restarts");
      change->restart_clusters.push_back(c.name);
    } else {
      change->spawn_clusters.push_back(c.name);
    }
  }
  for (const std::string& name : now.running_clusters) {
    if (wanted.count(name) > 0) continue;
    // Its apps disappear from cluster generators and are marked PendingDeletion; deleting them
    // needs the cluster, so its actor runs on (retired) until no deletion needs it.
    change->log.push_back("cluster=" + name +
                          " left the kubeconfig; its actor runs on while a pending deletion "
                          "needs it");
    change->retire_clusters.push_back(name);
  }
}

void PlanSets(const FleetNow& now, FleetChange* change) {
  std::vector<DuplicateSet> duplicates;
  static const std::map<std::string, std::vector<ApplicationSet>> kNoFiles;
  const std::map<std::string, WantedSet> wanted =
      WantedSets(now.good_files != nullptr ? *now.good_files : kNoFiles, &duplicates);
  for (const auto& d : duplicates) {
    change->log.push_back(d.file + ": ApplicationSet " + d.name + " is also defined in " +
                          d.used_file + "; the first one is used");
  }
  for (const auto& [name, where] : wanted) {
    auto running = now.sets.find(name);
    if (running == now.sets.end()) {
      change->spawn_sets.emplace(name, where);
      change->log.push_back("appset=" + name + " loaded from " + where.file);
    } else {
      if (!running->second.defined) {
        change->log.push_back("appset=" + name + " is defined again in " + where.file);
      }
      change->respec_sets.emplace(name, where);
    }
  }
  // A set that is no longer defined keeps its actor with its last good spec: the actor marks it
  // PendingDeletion, and the deletion actor deletes it after the grace period (product §3.5).
  // Never while the inputs did not load: then the set simply stays as it was.
  for (const auto& [name, running] : now.sets) {
    if (wanted.count(name) > 0) continue;
    UndefinedSet undefined{name, running.defined, false};
    if (now.trusted && running.defined) {
      change->log.push_back("appset=" + name + " is no longer defined (was in " + running.file +
                            "); it is marked PendingDeletion");
      undefined.defined = false;
      undefined.marked_now = true;
    }
    change->undefined_sets.push_back(std::move(undefined));
  }
}

}  // namespace

FleetChange PlanFleetChange(const FleetNow& now) {
  FleetChange change;
  change.inputs_trusted = now.trusted;
  change.deletion_grace_seconds = std::max<std::int64_t>(0, now.deletion_grace_seconds);
  PlanClusters(now, &change);
  PlanSets(now, &change);
  return change;
}

ConfigVerdict PlanConfigLoad(const ConfigLoad& load) {
  static const std::vector<std::string> kNone;
  const std::vector<std::string>& errors = load.errors != nullptr ? *load.errors : kNone;
  const std::vector<std::string>& before =
      load.errors_before != nullptr ? *load.errors_before : kNone;
  ConfigVerdict verdict;
  if (errors.empty()) {
    verdict.take_fresh = true;
    return verdict;
  }
  verdict.line = std::string(load.first ? "" : "reload: ") + Join(errors) +
                 (load.first ? "" : "; the previous configuration stays in force");
  // Counted once per new set of errors; a load that failed outright was counted where it failed.
  verdict.degraded = errors != before && !load.load_failed;
  return verdict;
}

FileReport ReportFileEvent(const FileEvent& e) {
  FileReport report;
  switch (e.kind) {
    case FileEvent::Kind::kRemoved:
      if (e.had_error) report.lines.push_back(e.path + ": removed; its error is gone");
      break;
    case FileEvent::Kind::kClean:
      if (e.was_failing) report.lines.push_back(e.path + ": loads again");
      break;
    case FileEvent::Kind::kFailed:
      if (e.changed) {
        report.degraded = true;
        report.lines = e.errors;
        report.lines.push_back(e.path + (e.kept ? ": the last good version stays in force"
                                                : ": not loaded (no earlier good version)"));
      }
      break;
  }
  return report;
}

bool ReloadSucceeded(bool applied, bool config_ok, bool directory_ok,
                     const std::map<std::string, AppSetFile>& files) {
  bool ok = applied && config_ok && directory_ok;
  for (const auto& [path, file] : files) ok = ok && file.errors.empty();
  return ok;
}

std::optional<std::string> DirectoryLine(const std::optional<std::string>& directory_error,
                                         bool directory_empty, bool had_sets,
                                         const std::string& directory) {
  if (directory_error) {
    return "reload: " + *directory_error + "; the ApplicationSets loaded before stay in force";
  }
  if (directory_empty && had_sets) {
    return "reload: the ApplicationSet directory " + directory +
           " is empty; the ApplicationSets loaded before stay in force and nothing is deleted";
  }
  return std::nullopt;
}

std::vector<std::string> RetiredToStop(const std::map<std::string, Time>& retired_at,
                                       const std::set<std::string>& needed, Time now,
                                       std::chrono::seconds settle) {
  std::vector<std::string> stop;
  for (const auto& [name, at] : retired_at) {
    if (needed.count(name) == 0 && at + settle <= now) stop.push_back(name);
  }
  return stop;
}

std::optional<DeletionRefusal> RefuseOperatorDeletion(const std::string& appset,
                                                      const RunningSet& set,
                                                      const std::string& caller) {
  if (!set.defined) return std::nullopt;
  DeletionRefusal refusal;
  refusal.line = "appset=" + appset + " deletion requested by " + caller + " refused: " + set.file +
                 " still defines it; remove the file";
  refusal.answer = {CommandOutcome::kConflict,
                    "applicationset " + appset + " is defined by " + set.file +
                        "; remove that file to delete it (files are the source of truth: a set "
                        "still defined would be re-created on the next reload)"};
  return refusal;
}

std::chrono::seconds RetireSettle(std::int64_t git_poll_interval_seconds) {
  return std::chrono::seconds(2 * std::max<std::int64_t>(1, git_poll_interval_seconds) + 5);
}

SetTimings SetTimingsOf(std::int64_t git_poll_interval_seconds,
                        std::int64_t deletion_grace_period_seconds) {
  return {std::chrono::seconds(std::max<std::int64_t>(1, git_poll_interval_seconds)),
          std::chrono::seconds(std::max<std::int64_t>(0, deletion_grace_period_seconds))};
}

}  // namespace fleetwave::engine
