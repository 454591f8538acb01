// What a reload of the daemon's inputs changes, as a pure function (issue 25: the coordinator's
// rules, out of the actor): which ApplicationSet files are in force (a file that fails keeps its
// last good version; one that left the directory takes its sets with it; an unreadable or empty
// directory keeps everything), whether the inputs are trusted enough to mark anything for
// deletion (product §3.5), what each file's status became, and which definition of a set wins
// when two files define it (the first file, in path order). The coordinator logs, publishes and
// spawns from the result. Pinned by tests/engine/core/reload_plan_test.cc.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/appset/app_project.h"
#include "engine/appset/appset.h"

namespace fleetwave::engine {

// One ApplicationSet file as a load read it.
struct AppSetFile {
  std::vector<ApplicationSet> appsets;  // only when `errors` is empty
  std::vector<AppProject> projects;     // [issue 29] likewise; zones resolved
  std::vector<std::string> errors;      // each "file:line:col: message"
};

// What the coordinator keeps between loads.
struct ReloadState {
  std::map<std::string, std::vector<ApplicationSet>> good_files;  // path -> last good sets
  std::map<std::string, std::vector<std::string>> file_errors;    // what was reported last
  std::set<std::string> files_seen;  // the files of the last load that read the directory
};

// What happened to one file, in the order the coordinator reports them.
struct FileEvent {
  enum class Kind {
    kRemoved,  // left the directory: its published errors go (had_error: it showed one)
    kClean,    // loads without errors (again: was_failing)
    kFailed,   // has errors; `changed` when they differ from the last reported ones, `kept`
               // when its last good version stays in force
  };
  Kind kind = Kind::kClean;
  std::string path;
  std::vector<std::string> errors;
  bool had_error = false;
  bool was_failing = false;
  bool changed = false;
  bool kept = false;
};

struct ReloadPlan {
  ReloadState next;
  bool trusted = false;
  bool directory_empty = false;  // readable and holds no file: the sets in force stay
  std::vector<FileEvent> events;
};

// `config_ok`: fleetwave.yaml and its kubeconfigs loaded; `directory_error`: the ApplicationSet
// directory could not be read; `files`: every file the load read (path -> content).
ReloadPlan PlanReload(const ReloadState& previous, bool config_ok,
                      const std::optional<std::string>& directory_error,
                      const std::map<std::string, AppSetFile>& files);

// The sets in force by name, from the good files in path order: the first definition wins.
struct WantedSet {
  std::string file;
  const ApplicationSet* set = nullptr;  // points into the good files
};
struct DuplicateSet {
  std::string file;  // the file whose definition is ignored
  std::string name;
  std::string used_file;  // the file whose definition is used
};
std::map<std::string, WantedSet> WantedSets(
    const std::map<std::string, std::vector<ApplicationSet>>& good_files,
    std::vector<DuplicateSet>* duplicates);

}  // namespace fleetwave::engine
