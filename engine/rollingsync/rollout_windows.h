// Sync windows in a RollingSync rollout (issue 29), the rules both deciders share: Plan
// (rollout_plan.cc) and the incremental RolloutTracker call these same functions. An app whose
// sync a window denies now is "window-held": a Waiting entry is not promoted and a Pending one
// is not listed for sync, so the rollout's next syncs wait while an app already syncing
// finishes; the held app keeps its step incomplete. The set shows the hold in condition
// SyncWindowHold (naming the window), and the decision returns the next window edge, when a
// hold may start or end, for the daemon's timer. Pinned by
// tests/engine/rollingsync/rollout_windows_test.cc.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/appset/app_project.h"
#include "engine/appset/appset.h"
#include "engine/appset/generate.h"
#include "engine/rollingsync/rollout_conditions.h"
#include "engine/time.h"

namespace fleetwave::engine {

inline constexpr const char* kSyncWindowHoldCondition = "SyncWindowHold";

// Every window's activity of every project at one time: computed once per decision.
class WindowClock {
 public:
  WindowClock() = default;
  WindowClock(const AppProjects* projects, Time now);

  // Why a rollout sync of `app` may not start now ("" when it may).
  std::string HoldOf(const GeneratedApplication& app) const;
  // When any window of any project may change state next (nullopt: no window).
  std::optional<Time> next_edge() const { return next_edge_; }
  bool any_windows() const { return any_windows_; }

 private:
  const AppProjects* projects_ = nullptr;
  std::vector<std::vector<bool>> active_;  // per project, per window
  std::optional<Time> next_edge_;
  bool any_windows_ = false;
};

// The held apps of the open step (unskipped, Waiting or Pending, held), counted by a decider.
struct WindowHeldApps {
  int step = 0;  // 1-based open step
  long long count = 0;
  std::string first;   // first held app in name order
  std::string reason;  // its hold
};

// The conditions after a decision: SyncWindowHold True naming the step, the count, the first
// app and its window while `held.count` > 0, gone otherwise.
std::vector<AppSetCondition> WithSyncWindowCondition(std::vector<AppSetCondition> conditions,
                                                     const WindowHeldApps& held, Time now);

}  // namespace fleetwave::engine
