#include "engine/reload_plan.h"

namespace fleetwave::engine {

ReloadPlan PlanReload(const ReloadState& previous, bool config_ok,
                      const std::optional<std::string>& directory_error,
                      const std::map<std::string, AppSetFile>& files) {
  ReloadPlan plan;
  plan.next = previous;
  ReloadState& next = plan.next;
  plan.directory_empty = !directory_error && files.empty();
  // Deletion trusts only complete inputs: a configuration that failed, or an empty or
  // unreadable directory, marks nothing.
  plan.trusted = config_ok && !directory_error && !plan.directory_empty;
  if (directory_error) return plan;  // nothing of the directory changes

  for (const auto& path : previous.files_seen) {
    if (files.count(path) > 0) continue;
    FileEvent e;
    e.kind = FileEvent::Kind::kRemoved;
    e.path = path;
    e.had_error = next.file_errors.erase(path) > 0;
    plan.events.push_back(std::move(e));
  }
  next.files_seen.clear();
  for (const auto& [path, file] : files) next.files_seen.insert(path);
  if (plan.directory_empty) return plan;  // the sets loaded before stay, nothing is deleted

  // A file that disappeared takes its sets with it; a file that fails keeps its last good one.
  std::map<std::string, std::vector<ApplicationSet>> good;
  for (const auto& [path, file] : files) {
    FileEvent e;
    e.path = path;
    if (file.errors.empty()) {
      e.kind = FileEvent::Kind::kClean;
      e.was_failing = next.file_errors.erase(path) > 0;
      good[path] = file.appsets;
    } else {
      e.kind = FileEvent::Kind::kFailed;
      e.errors = file.errors;
      auto reported = next.file_errors.find(path);
      e.changed = reported == next.file_errors.end() || reported->second != file.errors;
      next.file_errors[path] = file.errors;
      auto last_good = previous.good_files.find(path);
      e.kept = last_good != previous.good_files.end();
      if (e.kept) good[path] = last_good->second;
    }
    plan.events.push_back(std::move(e));
  }
  next.good_files = std::move(good);
  return plan;
}

std::map<std::string, WantedSet> WantedSets(
    const std::map<std::string, std::vector<ApplicationSet>>& good_files,
    std::vector<DuplicateSet>* duplicates) {
  std::map<std::string, WantedSet> wanted;
  for (const auto& [file, sets] : good_files) {
    for (const auto& set : sets) {
      auto [it, inserted] = wanted.try_emplace(set.name, WantedSet{file, &set});
      if (!inserted && duplicates != nullptr) {
        duplicates->push_back({file, set.name, it->second.file});
      }
    }
  }
  return wanted;
}

}  // namespace fleetwave::engine
