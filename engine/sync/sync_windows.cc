#include "engine/sync/sync_windows.h"

#include <chrono>

namespace fleetwave::engine {
namespace {

const ZoneRules& ZoneOf(const SyncWindow& w) {
  static const ZoneRules kUtc;
  return w.zone ? *w.zone : kUtc;
}

bool AnyMatches(const std::vector<std::string>& patterns, const std::string& a,
                const std::string& b = std::string()) {
  for (const auto& p : patterns) {
    if (GlobMatch(p, a) || (!b.empty() && GlobMatch(p, b))) return true;
  }
  return false;
}

// Four years and a day: a schedule for February 29th still matches within it.
constexpr auto kHorizon = std::chrono::hours(24 * (4 * 366 + 1));

}  // namespace

bool GlobMatch(const std::string& pattern, const std::string& text) {
  // Iterative wildcard matching with one backtrack point: linear in practice, never recursive.
  size_t p = 0, t = 0, star = std::string::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool WindowApplies(const SyncWindow& w, const WindowTarget& t) {
  const bool has_apps = !w.applications.empty(), has_clusters = !w.clusters.empty(),
             has_ns = !w.namespaces.empty();
  const bool apps = has_apps && AnyMatches(w.applications, t.app);
  const bool clusters = has_clusters && AnyMatches(w.clusters, t.server, t.cluster_name);
  const bool ns = has_ns && AnyMatches(w.namespaces, t.namespace_);
  if (w.and_operator) {
    if (!has_apps && !has_clusters && !has_ns) return false;
    return (!has_apps || apps) && (!has_clusters || clusters) && (!has_ns || ns);
  }
  return apps || clusters || ns;
}

bool WindowActive(const SyncWindow& w, Time now) {
  if (w.duration_seconds <= 0) return false;
  const Time since = now - std::chrono::seconds(w.duration_seconds) + std::chrono::seconds(1);
  return LastCronMatch(w.schedule, ZoneOf(w), now, since).has_value();
}

std::optional<Time> NextWindowEdge(const SyncWindow& w, Time now) {
  std::optional<Time> edge = NextCronMatch(w.schedule, ZoneOf(w), now, now + kHorizon);
  if (w.duration_seconds > 0) {
    const auto d = std::chrono::seconds(w.duration_seconds);
    if (auto last = LastCronMatch(w.schedule, ZoneOf(w), now, now - d + std::chrono::seconds(1))) {
      const Time end = *last + d;
      if (!edge || end < *edge) edge = end;
    }
  }
  return edge;
}

SyncVerdict CanSync(const std::vector<SyncWindow>& windows, const WindowTarget& target, Time now,
                    bool manual) {
  std::vector<bool> active;
  active.reserve(windows.size());
  for (const SyncWindow& w : windows) active.push_back(WindowActive(w, now));
  return CanSyncWith(windows, active, target, manual);
}

SyncVerdict CanSyncWith(const std::vector<SyncWindow>& windows, const std::vector<bool>& active,
                        const WindowTarget& target, bool manual) {
  const SyncWindow* active_deny = nullptr;
  const SyncWindow* first_allow = nullptr;
  bool deny_manual = true, allow_active = false, allow_manual = false;
  for (size_t i = 0; i < windows.size(); ++i) {
    const SyncWindow& w = windows[i];
    const bool on = i < active.size() && active[i];
    if (!WindowApplies(w, target)) continue;
    if (w.deny) {
      if (!on) continue;
      if (!active_deny) active_deny = &w;
      deny_manual = deny_manual && w.manual_sync;
    } else {
      if (!first_allow) first_allow = &w;
      allow_manual = allow_manual || w.manual_sync;
      allow_active = allow_active || on;
    }
  }
  if (active_deny) {
    if (manual && deny_manual) return {};
    return {false, active_deny};
  }
  if (first_allow && !allow_active && !(manual && allow_manual)) return {false, first_allow};
  return {};
}

std::string HoldReason(const SyncVerdict& v, const std::string& project) {
  if (v.allowed || v.window == nullptr) return "";
  const SyncWindow& w = *v.window;
  const std::string tz = w.time_zone.empty() ? "UTC" : w.time_zone;
  const std::string described = "'" + w.schedule_text + "' " + w.duration_text + " (" + tz + ")" +
                                (w.description.empty() ? "" : " \"" + w.description + "\"");
  if (w.deny) {
    return "sync window deny " + described + " of project '" + project + "' is active";
  }
  return "no allow sync window of project '" + project + "' is active (allow " + described + ")";
}

}  // namespace fleetwave::engine
