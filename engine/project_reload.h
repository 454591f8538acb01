// The AppProjects in force across reloads (issue 29), by the rules of the sets in force
// (reload_plan.h): a file that fails keeps its last good projects, a file that left the
// directory takes its projects with it, and an unreadable or empty directory changes nothing.
// So a project file with a typo never turns every app of its project into "a project which does
// not exist". Pinned by tests/engine/core/project_reload_test.cc.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/appset/app_project.h"
#include "engine/reload_plan.h"

namespace fleetwave::engine {

using GoodProjects = std::map<std::string, std::vector<AppProject>>;  // path -> last good

GoodProjects NextGoodProjects(const GoodProjects& previous,
                              const std::optional<std::string>& directory_error,
                              const std::map<std::string, AppSetFile>& files);

// Every project of the good files, the first definition of a name (path order) winning; null
// when there is none (nothing is enforced).
AppProjectsPtr ProjectsInForce(const GoodProjects& good);

}  // namespace fleetwave::engine
