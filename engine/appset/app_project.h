// Argo CD's AppProject (argoproj.io/v1alpha1), as far as fleetwave enforces it (issue 29):
// `destinations`, `sourceRepos`, `clusterResourceWhitelist` and `syncWindows`. AppProject
// documents live in the ApplicationSet directory next to the sets. Pinned by
// tests/engine/windows/app_project_test.cc.
//
// Which project an app belongs to: its `spec.project` ("" reads as "default"). The project must
// be defined, except `default`, which allows everything while no AppProject named `default` is.
// While the directory holds no AppProject at all, nothing is enforced (Argo CD files without
// projects behave as before).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "engine/appset/generate.h"
#include "engine/issue.h"
#include "engine/object_ref.h"
#include "engine/sync/sync_windows.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

struct ProjectDestination {
  std::string server;  // globs; a leading '!' denies
  std::string name;
  std::string namespace_;
};

struct GroupKind {
  std::string group;  // globs
  std::string kind;
};

struct AppProject {
  std::string file;
  std::string name;
  std::vector<ProjectDestination> destinations;
  std::vector<std::string> source_repos;
  std::vector<GroupKind> cluster_resource_whitelist;
  std::vector<SyncWindow> sync_windows;
};

// Every AppProject of the directory, by name.
struct AppProjects {
  std::vector<AppProject> projects;  // sorted by name, unique
  const AppProject* Find(const std::string& name) const;
};
using AppProjectsPtr = std::shared_ptr<const AppProjects>;

bool IsAppProjectDocument(const YAML::Node& doc);  // kind: AppProject

// What `fleetwave validate` says of each window's syncOverrun (a warning, never an error): the
// field has no effect in fleetwave, which lets every sync already running finish (retries
// included) whatever its windows say; with `false`, Argo CD would stop such a sync when the
// window closes and fleetwave does not. One issue per window that sets it, naming
// spec.syncWindows[i].syncOverrun.
Issues SyncOverrunWarnings(const AppProject& project);

struct DecodedAppProject {
  std::optional<AppProject> project;  // set only without issues
  Issues issues;                      // each names the file and the field
};

// Decodes one AppProject document. Time zones are left for the caller to resolve (the engine
// reads no file): SyncWindow::zone stays null.
DecodedAppProject DecodeAppProject(const YAML::Node& doc, const std::string& file);

// The app's project name: spec.project, "" read as "default".
std::string ProjectOf(const Json& app_spec);

// What a project check sees of one app.
struct ProjectCheckInput {
  std::string app;
  const Json* spec = nullptr;  // the Application spec
  std::string cluster;         // the context its destination resolved to ("" unknown)
  // The rendered objects, when known: cluster-scoped ones (empty namespace) must be whitelisted.
  const std::vector<ObjectRef>* objects = nullptr;
};

// Why the app is refused by its project, in Argo CD's words; "" when it is permitted. `projects`
// null: no AppProject is defined, nothing is enforced.
std::string ProjectRefusal(const AppProjects* projects, const ProjectCheckInput& in);

// The app's sync windows (those of its project; none for an undefined `default`) and what
// they match against.
const std::vector<SyncWindow>* WindowsOf(const AppProjects* projects, const Json& app_spec);
WindowTarget WindowTargetOf(const GeneratedApplication& app);

}  // namespace fleetwave::engine
