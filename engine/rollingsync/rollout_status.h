// The per-Application RollingSync status (`status.applicationStatus[]` of an ApplicationSet)
// and its state machine (tests/engine/rollingsync/rollout_status_test.cc): Waiting -> Pending ->
// Progressing -> Healthy, back to Waiting on any revision or spec change, and [fleetwave] on drift
// when the set heals it (issue 32). Messages are exact: users alert on them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/appset/application.h"
#include "engine/issue.h"
#include "engine/time.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

enum class RolloutAppState { kWaiting, kPending, kProgressing, kHealthy };

const char* ToString(RolloutAppState state);
std::optional<RolloutAppState> ParseRolloutAppState(const std::string& text);

// One entry of status.applicationStatus, as Argo CD stores it.
struct AppRolloutStatus {
  std::string application;
  RolloutAppState status = RolloutAppState::kWaiting;
  std::string message;
  std::string step;                           // 1-based, or "-1" for an app no step selects
  std::vector<std::string> target_revisions;  // the pinned revisions
  std::optional<Time> last_transition_time;
  // [fleetwave, issue 29] For a rollback (engine/rollingsync/rollback.h): the revisions the app was
  // last Healthy at before its pin (carried over a pin that never became Healthy, or that a
  // rollback returned), and the rollout generation whose revision change set the pin (0: unknown).
  // Written only on a revision change.
  std::vector<std::string> previous_healthy_revisions;
  long long pinned_in_generation = 0;

  bool operator==(const AppRolloutStatus&) const = default;
};

// Decodes status.applicationStatus. Entries with an unknown status or no application name are
// issues and dropped (the app then starts over as Waiting, which is always safe).
std::vector<AppRolloutStatus> DecodeAppRolloutStatuses(const Json& list, Issues& issues);
Json EncodeAppRolloutStatus(const AppRolloutStatus& entry);

// What changed between the pinned and the desired state of an app (§3.2).
struct PendingChange {
  bool revision = false;
  bool spec = false;
  // [fleetwave] A Healthy entry whose app is OutOfSync at its pinned revisions, with neither a
  // revision nor a spec change: what is live was changed by someone else (an object deleted, a
  // field edited). Argo CD keeps such an entry Healthy (its #29240).
  bool drift = false;
  bool Any() const { return revision || spec; }
};

// Revisions differ (order-sensitive) and/or the caller found the desired spec differs from the
// live one while the entry is Progressing or Healthy (a Waiting or Pending entry's coming sync
// carries the desired spec already).
PendingChange DetectChange(const AppRolloutStatus& previous, const Application& live,
                           bool spec_differs);

struct AppStatusUpdate {
  AppRolloutStatus entry;
  // The app entered Waiting through change detection this reconcile (§3.2): this is what
  // starts a new rollout generation.
  bool changed = false;
  // DetectChange found drift (see PendingChange::drift); `healed` when the entry went back to
  // Waiting for it (which also sets `changed`), else it stays Healthy and the drift is reported.
  bool drifted = false;
  bool healed = false;
};

// One reconcile of one app's entry (§3 steps 1-5). `previous` is null for an app without an
// entry. `step` is the recomputed 1-based step ("-1" for none). Transitions chain until the
// entry is stable (Pending -> Progressing -> Healthy in one call when the live data says so),
// so applying it again to its own result at the same `now` changes nothing.
// REQUIRES: `now` has second precision (callers truncate), as stored times do.
// `heal_drift`: drift sends a Healthy entry back to Waiting (the set heals drift), so the rollout
// syncs the app again in step order, within its step's maxUpdate, as it would a new revision of
// that app alone; the pin stays.
// [issue 29] What a revision change records for a later rollback: `next_generation` is the
// generation the change starts (the stored one + 1), `rolled_back` that the stored rollback
// returned this app (RolledBack), so its pin never counts as its last healthy revisions.
struct RevisionMemory {
  long long next_generation = 0;
  bool rolled_back = false;
};

AppStatusUpdate UpdateAppRolloutStatus(const AppRolloutStatus* previous, const Application& live,
                                       bool spec_differs, const std::string& step, Time now,
                                       bool heal_drift = false, RevisionMemory memory = {});
// The same with the stored entry handed over (nullopt: none): its strings move into the
// result instead of being copied, which matters in a reconcile of many thousand apps.
AppStatusUpdate UpdateAppRolloutStatus(std::optional<AppRolloutStatus> previous,
                                       const Application& live, bool spec_differs,
                                       const std::string& step, Time now, bool heal_drift = false,
                                       RevisionMemory memory = {});

// Moves an entry on from its current status using the live data (§3 step 4); returns true if
// it changed. Used by UpdateAppRolloutStatus and again after a promotion to Pending.
bool AdvanceAppRolloutStatus(AppRolloutStatus& entry, const Application& live, Time now);

}  // namespace fleetwave::engine
