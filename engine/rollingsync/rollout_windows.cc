#include "engine/rollingsync/rollout_windows.h"

namespace fleetwave::engine {

WindowClock::WindowClock(const AppProjects* projects, Time now) : projects_(projects) {
  if (projects == nullptr) return;
  active_.reserve(projects->projects.size());
  for (const AppProject& p : projects->projects) {
    std::vector<bool>& flags = active_.emplace_back();
    for (const SyncWindow& w : p.sync_windows) {
      any_windows_ = true;
      flags.push_back(WindowActive(w, now));
      if (auto edge = NextWindowEdge(w, now); edge && (!next_edge_ || *edge < *next_edge_)) {
        next_edge_ = edge;
      }
    }
  }
}

std::string WindowClock::HoldOf(const GeneratedApplication& app) const {
  if (!any_windows_) return "";
  auto spec = app.object.find("spec");
  if (spec == app.object.end()) return "";
  const std::string project = ProjectOf(*spec);
  const AppProject* p = projects_->Find(project);
  if (p == nullptr || p->sync_windows.empty()) return "";
  const auto& active = active_[static_cast<size_t>(p - projects_->projects.data())];
  const SyncVerdict v = CanSyncWith(p->sync_windows, active, WindowTargetOf(app), false);
  return HoldReason(v, project);
}

std::vector<AppSetCondition> WithSyncWindowCondition(std::vector<AppSetCondition> conditions,
                                                     const WindowHeldApps& held, Time now) {
  if (held.count == 0) {
    return MergeConditions(conditions, {}, {kSyncWindowHoldCondition}, now);
  }
  const std::string apps =
      held.count == 1 ? "1 application" : std::to_string(held.count) + " applications";
  AppSetCondition c{kSyncWindowHoldCondition, "True", "SyncWindowDenied",
                    "ApplicationSet rollout step " + std::to_string(held.step) + ": " + apps +
                        " held (" + held.first + ": " + held.reason + ")",
                    std::nullopt};
  return MergeConditions(conditions, {c}, {}, now);
}

}  // namespace fleetwave::engine
