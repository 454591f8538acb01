#include "engine/rollingsync/rollout_status.h"

#include "engine/stored_fields.h"

namespace fleetwave::engine {
namespace {

constexpr const char* kNoEntry = "No Application status found, defaulting status to Waiting";
constexpr const char* kChangedBoth =
    "Application has pending changes (revision and spec differ), setting status to Waiting";
constexpr const char* kChangedRevision =
    "Application has pending changes, setting status to Waiting";
constexpr const char* kChangedSpec =
    "Application has pending changes (spec differs), setting status to Waiting";
constexpr const char* kSyncedHealthy =
    "Application resource has synced, updating status to Healthy";
constexpr const char* kSyncedProgressing =
    "Application resource has synced, updating status to Progressing";
constexpr const char* kSyncSucceeded =
    "Application resource completed a sync successfully, updating status from Pending to "
    "Progressing";
constexpr const char* kSyncCompleted =
    "Application resource completed a sync, updating status from Pending to Progressing";
constexpr const char* kSyncRunning =
    "Application resource became Progressing, updating status from Pending to Progressing";
constexpr const char* kAppError =
    "Application resource has error and cannot sync, updating status to Progressing";
constexpr const char* kDrifted =
    "Application resource drifted from its pinned revision, setting status to Waiting";
constexpr const char* kBecameHealthy =
    "Application resource became Healthy, updating status from Progressing to Healthy";

void Transition(AppRolloutStatus& entry, RolloutAppState to, const char* message, Time now) {
  entry.status = to;
  entry.message = message;
  entry.last_transition_time = now;
}

// "At or after" the entry's transition [fleetwave: Argo says strictly after]; an entry
// without a transition time accepts anything.
bool AtOrAfterTransition(const AppRolloutStatus& entry, Time t) {
  return !entry.last_transition_time || t >= *entry.last_transition_time;
}

std::string StringAt(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

const char* ToString(RolloutAppState state) {
  switch (state) {
    case RolloutAppState::kWaiting:
      return "Waiting";
    case RolloutAppState::kPending:
      return "Pending";
    case RolloutAppState::kProgressing:
      return "Progressing";
    case RolloutAppState::kHealthy:
      return "Healthy";
  }
  return "Waiting";
}

std::optional<RolloutAppState> ParseRolloutAppState(const std::string& text) {
  if (text == "Waiting") return RolloutAppState::kWaiting;
  if (text == "Pending") return RolloutAppState::kPending;
  if (text == "Progressing") return RolloutAppState::kProgressing;
  if (text == "Healthy") return RolloutAppState::kHealthy;
  return std::nullopt;
}

std::vector<AppRolloutStatus> DecodeAppRolloutStatuses(const Json& list, Issues& issues) {
  std::vector<AppRolloutStatus> out;
  if (list.is_null()) return out;
  if (!list.is_array()) {
    issues.push_back({"", {}, "status.applicationStatus", "must be a list"});
    return out;
  }
  out.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& e = list[i];
    const std::string path = "status.applicationStatus[" + std::to_string(i) + "]";
    if (!e.is_object()) {
      issues.push_back({"", {}, path, "must be an object"});
      continue;
    }
    // Strict (issue 30): a field of the wrong type is an issue, never read as "".
    const size_t before = issues.size();
    for (const char* key : {"application", "status", "message", "step", "lastTransitionTime"}) {
      stored::String(e, key, path, issues);
    }
    stored::Strings(e, "targetRevisions", path, issues);
    if (issues.size() != before) continue;
    AppRolloutStatus entry;
    entry.application = StringAt(e, "application");
    auto state = ParseRolloutAppState(StringAt(e, "status"));
    if (entry.application.empty() || !state) {
      issues.push_back({"",
                        {},
                        path,
                        "needs an application name and a status of Waiting, "
                        "Pending, Progressing or Healthy"});
      continue;
    }
    entry.status = *state;
    entry.message = StringAt(e, "message");
    entry.step = StringAt(e, "step");
    if (auto it = e.find("targetRevisions"); it != e.end() && it->is_array()) {
      for (const auto& r : *it) {
        entry.target_revisions.push_back(r.is_string() ? r.get<std::string>() : "");
      }
    }
    if (auto it = e.find("previousHealthyRevisions"); it != e.end() && it->is_array()) {
      for (const auto& r : *it) {
        entry.previous_healthy_revisions.push_back(r.is_string() ? r.get<std::string>() : "");
      }
    }
    if (auto it = e.find("pinnedInGeneration"); it != e.end() && it->is_number_integer()) {
      entry.pinned_in_generation = it->get<long long>();
    }
    if (std::string t = StringAt(e, "lastTransitionTime"); !t.empty()) {
      entry.last_transition_time = ParseRfc3339(t);
      if (!entry.last_transition_time) {
        issues.push_back({"", {}, path + ".lastTransitionTime", "not an RFC 3339 time: " + t});
      }
    }
    out.push_back(std::move(entry));
  }
  return out;
}

// Built member by member (an initializer list copies each value once more): a set's status
// encodes every entry on each reconcile (bench/reconcile_bench.cc).
Json EncodeAppRolloutStatus(const AppRolloutStatus& entry) {
  Json j = Json::object();
  j["application"] = entry.application;
  j["status"] = ToString(entry.status);
  j["message"] = entry.message;
  j["step"] = entry.step;
  j["targetRevisions"] = entry.target_revisions;
  if (entry.last_transition_time) {
    j["lastTransitionTime"] = FormatRfc3339(*entry.last_transition_time);
  }
  if (!entry.previous_healthy_revisions.empty()) {
    j["previousHealthyRevisions"] = entry.previous_healthy_revisions;
  }
  if (entry.pinned_in_generation != 0) j["pinnedInGeneration"] = entry.pinned_in_generation;
  return j;
}

PendingChange DetectChange(const AppRolloutStatus& previous, const Application& live,
                           bool spec_differs) {
  // A spec difference counts only once the app has synced (Progressing or Healthy). A Waiting
  // or Pending app's next sync is built from the current desired spec anyway, and the live
  // spec catches up only when that sync runs: counting the difference there would send the
  // app back to Waiting on every reconcile until then, and planning would not be idempotent.
  const bool synced_before = previous.status == RolloutAppState::kProgressing ||
                             previous.status == RolloutAppState::kHealthy;
  PendingChange change{previous.target_revisions != live.revisions, spec_differs && synced_before};
  change.drift = !change.Any() && previous.status == RolloutAppState::kHealthy &&
                 live.sync_status == "OutOfSync";
  return change;
}

bool AdvanceAppRolloutStatus(AppRolloutStatus& entry, const Application& live, Time now) {
  switch (entry.status) {
    case RolloutAppState::kWaiting:
      if (live.sync_status != "Synced") return false;
      if (live.health_status == "Healthy") {
        Transition(entry, RolloutAppState::kHealthy, kSyncedHealthy, now);
      } else {
        Transition(entry, RolloutAppState::kProgressing, kSyncedProgressing, now);
      }
      return true;
    case RolloutAppState::kPending: {
      // Data older than the transition says nothing about the sync we asked for.
      if (live.reconciled_at && !AtOrAfterTransition(entry, *live.reconciled_at)) return false;
      const auto& op = live.operation_state;
      if (op && op->started_at && AtOrAfterTransition(entry, *op->started_at)) {
        if (op->phase == "Succeeded") {
          Transition(entry, RolloutAppState::kProgressing, kSyncSucceeded, now);
          return true;
        }
        if (op->phase == "Failed" || op->phase == "Error") {
          Transition(entry, RolloutAppState::kProgressing, kSyncCompleted, now);
          return true;
        }
        if (op->phase == "Running" || op->phase == "Terminating") {
          Transition(entry, RolloutAppState::kProgressing, kSyncRunning, now);
          return true;
        }
      }
      if (live.HasCondition("InvalidSpecError") || live.HasCondition("UnknownError")) {
        Transition(entry, RolloutAppState::kProgressing, kAppError, now);
        return true;
      }
      return false;
    }
    case RolloutAppState::kProgressing:
      if (live.health_status == "Healthy" && live.sync_status == "Synced") {
        Transition(entry, RolloutAppState::kHealthy, kBecameHealthy, now);
        return true;
      }
      return false;
    case RolloutAppState::kHealthy:
      return false;  // drift is UpdateAppRolloutStatus's (heal_drift); nothing moves it here
  }
  return false;
}

AppStatusUpdate UpdateAppRolloutStatus(std::optional<AppRolloutStatus> previous,
                                       const Application& live, bool spec_differs,
                                       const std::string& step, Time now, bool heal_drift,
                                       RevisionMemory memory) {
  AppStatusUpdate out;
  AppRolloutStatus& entry = out.entry;
  if (!previous) {
    entry.application = live.name;
    entry.target_revisions = live.revisions;
    Transition(entry, RolloutAppState::kWaiting, kNoEntry, now);
  } else {
    entry = std::move(*previous);
    // DetectChange reads the stored status and pin, which `entry` still holds here.
    const PendingChange change = DetectChange(entry, live, spec_differs);
    if (change.Any()) {
      if (change.revision) {
        // [issue 29] What a rollback of the new pin returns to: the old pin if the app was
        // Healthy at it (and no rollback returned it from there), else what it already kept.
        if (entry.status == RolloutAppState::kHealthy && !memory.rolled_back) {
          entry.previous_healthy_revisions = entry.target_revisions;
        }
        entry.pinned_in_generation = memory.next_generation;
      }
      // The new pin is stored whatever status the entry ends in [fleetwave].
      entry.target_revisions = live.revisions;
      Transition(entry, RolloutAppState::kWaiting,
                 change.revision && change.spec ? kChangedBoth
                 : change.revision              ? kChangedRevision
                                                : kChangedSpec,
                 now);
      out.changed = true;
    } else if (change.drift) {
      out.drifted = true;
      if (heal_drift) {
        // The pin stays: the app is synced again to what it was synced to.
        Transition(entry, RolloutAppState::kWaiting, kDrifted, now);
        out.changed = true;
        out.healed = true;
      }
    }
  }
  entry.step = step;
  // Each transition needs a different status, so this ends after at most three rounds.
  while (AdvanceAppRolloutStatus(entry, live, now)) {
  }
  return out;
}

AppStatusUpdate UpdateAppRolloutStatus(const AppRolloutStatus* previous, const Application& live,
                                       bool spec_differs, const std::string& step, Time now,
                                       bool heal_drift, RevisionMemory memory) {
  return UpdateAppRolloutStatus(
      previous ? std::optional<AppRolloutStatus>(*previous) : std::nullopt, live, spec_differs,
      step, now, heal_drift, memory);
}

}  // namespace fleetwave::engine
