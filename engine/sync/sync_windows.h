// Argo CD's sync windows of an AppProject (issue 29), as pure rules over a time given as a
// parameter. Pinned by tests/engine/windows/sync_windows_test.cc.
//
// A window is active from each minute its `schedule` matches (in its `timeZone`, UTC by
// default) for `duration`. It applies to an app when one of its `applications`, `clusters`
// (destination server or name) or `namespaces` (destination namespace) globs matches (all of
// the given lists with `andOperator: true`). Argo CD's rules, for the windows that apply:
//   - none: every sync is allowed;
//   - an active deny window denies (a manual sync passes when every active deny window has
//     `manualSync: true`), even when an allow window is active too;
//   - otherwise, with allow windows, a sync is allowed only while one is active (a manual sync
//     passes when one of them has `manualSync: true`).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/cron_schedule.h"
#include "engine/issue.h"
#include "engine/rollingsync/zone_rules.h"
#include "engine/time.h"

namespace fleetwave::engine {

struct SyncWindow {
  int index = 0;      // in spec.syncWindows, for messages
  bool deny = false;  // kind: deny (else allow)
  std::string schedule_text;
  CronSchedule schedule;
  std::string duration_text;
  long long duration_seconds = 0;
  std::string time_zone;                  // as written; "" = UTC
  std::shared_ptr<const ZoneRules> zone;  // resolved by the binary; null = UTC
  std::vector<std::string> applications;
  std::vector<std::string> clusters;
  std::vector<std::string> namespaces;
  bool manual_sync = false;
  bool and_operator = false;
  // Argo CD's syncOverrun as written (absent: nullopt). It cannot change what fleetwave does: a
  // sync already running always finishes, its retries included, as if every window had
  // syncOverrun: true (issue 29's rule). So it is only told about (SyncOverrunWarnings).
  std::optional<bool> sync_overrun;
  SourcePos sync_overrun_pos;
  std::string description;
};

// What a window is matched against: an Application and its destination.
struct WindowTarget {
  std::string app;
  std::string server;        // destination.server (or the server its name resolves to)
  std::string cluster_name;  // destination.name (or the cluster the server belongs to)
  std::string namespace_;    // destination.namespace
};

// `*` any run of characters, `?` one character; anything else literally. Argo CD's globs.
bool GlobMatch(const std::string& pattern, const std::string& text);

bool WindowApplies(const SyncWindow& window, const WindowTarget& target);
bool WindowActive(const SyncWindow& window, Time now);
// The next time after `now` the window may become active or inactive (a schedule minute, or
// the end of the current activity); nullopt when its schedule never matches again within four
// years. Waking at it re-decides; it never comes later than a change.
std::optional<Time> NextWindowEdge(const SyncWindow& window, Time now);

struct SyncVerdict {
  bool allowed = true;
  // Why not: the window that denies (an active deny window) or, for an allow-only hold, the
  // first allow window that applies; null when allowed.
  const SyncWindow* window = nullptr;
};

// Whether a sync of `target` may start at `now` under `windows` (one project's); `manual` for
// an operator's sync.
SyncVerdict CanSync(const std::vector<SyncWindow>& windows, const WindowTarget& target, Time now,
                    bool manual);
// The same with each window's activity already known (`active[i]` for `windows[i]`): a
// decision over many apps computes it once.
SyncVerdict CanSyncWith(const std::vector<SyncWindow>& windows, const std::vector<bool>& active,
                        const WindowTarget& target, bool manual);

// The hold's words, for a condition and a log line: "sync window deny '0 22 * * *' 1h (UTC)
// of project 'prod' is active" or "no allow sync window of project 'prod' is active".
std::string HoldReason(const SyncVerdict& verdict, const std::string& project);

}  // namespace fleetwave::engine
