#include "engine/project_reload.h"

#include <algorithm>
#include <set>

namespace fleetwave::engine {

GoodProjects NextGoodProjects(const GoodProjects& previous,
                              const std::optional<std::string>& directory_error,
                              const std::map<std::string, AppSetFile>& files) {
  if (directory_error || files.empty()) return previous;
  GoodProjects next;
  for (const auto& [path, file] : files) {
    if (file.errors.empty()) {
      if (!file.projects.empty()) next[path] = file.projects;
    } else if (auto kept = previous.find(path); kept != previous.end()) {
      next[path] = kept->second;
    }
  }
  return next;
}

AppProjectsPtr ProjectsInForce(const GoodProjects& good) {
  auto out = std::make_shared<AppProjects>();
  std::set<std::string> names;
  for (const auto& [path, projects] : good) {
    for (const AppProject& p : projects) {
      if (names.insert(p.name).second) out->projects.push_back(p);
    }
  }
  if (out->projects.empty()) return nullptr;
  std::sort(out->projects.begin(), out->projects.end(),
            [](const AppProject& a, const AppProject& b) { return a.name < b.name; });
  return out;
}

}  // namespace fleetwave::engine
