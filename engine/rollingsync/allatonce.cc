#include "engine/rollingsync/allatonce.h"

namespace fleetwave::engine {
namespace {

const Json* Child(const Json* object, const char* key) {
  if (object == nullptr || !object->is_object()) return nullptr;
  auto it = object->find(key);
  return it == object->end() || it->is_null() ? nullptr : &*it;
}

bool BoolChild(const Json* object, const char* key) {
  const Json* v = Child(object, key);
  return v != nullptr && v->is_boolean() && v->get<bool>();
}

}  // namespace

bool AutomatedSyncEnabled(const Json& app_spec) {
  const Json* automated = Child(Child(&app_spec, "syncPolicy"), "automated");
  if (automated == nullptr || !automated->is_object()) return false;
  const Json* enabled = Child(automated, "enabled");
  return enabled == nullptr || !enabled->is_boolean() || enabled->get<bool>();
}

AutoSyncDecision DecideAutoSync(const AutoSyncInput& in, Time now) {
  if (in.operation_running) return {AutoSyncAction::kNone, "an operation is running", {}};
  switch (in.sync.status) {
    case SyncCode::kUnknown:
      return {AutoSyncAction::kNone, "sync status Unknown: " + in.sync.message, {}};
    case SyncCode::kSynced:
      if (in.revision != in.pinned_revision) {
        return {AutoSyncAction::kFastForward,
                "rendered objects at " + in.revision + " are already live; pin moves",
                {}};
      }
      return {};
    case SyncCode::kOutOfSync:
      break;
  }
  const Json* automated = Child(Child(&in.app_spec, "syncPolicy"), "automated");
  if (!AutomatedSyncEnabled(in.app_spec)) {
    return {AutoSyncAction::kWaitForManualSync,
            "OutOfSync (" + in.sync.message + "); automated sync is off: waiting for a manual sync",
            {}};
  }
  if (BoolChild(automated, "prune") && in.desired_objects == 0 &&
      !BoolChild(automated, "allowEmpty")) {
    return {AutoSyncAction::kNone,
            "Skipping sync attempt to " + in.revision +
                ": auto-sync will wipe out all resources (set allowEmpty to allow it)",
            {}};
  }
  const bool attempted = in.last_sync && in.last_sync->revision == in.revision;
  if (!attempted) {
    return {
        AutoSyncAction::kSync, "OutOfSync (" + in.sync.message + "): syncing " + in.revision, {}};
  }
  if (!in.last_sync->succeeded) {
    return {AutoSyncAction::kNone,
            "Skipping auto-sync: failed previous sync attempt to " + in.revision,
            {}};
  }
  if (!BoolChild(automated, "selfHeal")) {
    return {AutoSyncAction::kNone,
            "Skipping auto-sync: most recent sync already to " + in.revision,
            {}};
  }
  if (in.last_sync->finished) {
    const Time due = *in.last_sync->finished + in.self_heal_timeout;
    if (now < due) {
      return {AutoSyncAction::kNone, "Self-heal of " + in.sync.message + " is due later",
              std::chrono::duration_cast<Duration>(due - now)};
    }
  }
  return {AutoSyncAction::kSync, "Self-healing: " + in.sync.message, {}};
}

ReconcileGate GateProgressiveSyncs(bool progressive_syncs, const Strategy& strategy) {
  if (progressive_syncs || !strategy.IsRollingSync()) return {};
  return {false, AppSetCondition{"ErrorOccurred", "True", "ProgressiveSyncsDisabled",
                                 kProgressiveSyncsDisabledMessage, std::nullopt}};
}

AutomatedDisabled DisableAutomatedForRollingSync(const ApplicationSet& appset,
                                                 std::vector<GeneratedApplication> apps,
                                                 bool already_warned) {
  AutomatedDisabled out;
  out.warned = already_warned;
  if (!appset.strategy.RollingSyncEnabled()) {
    out.apps = std::move(apps);
    return out;
  }
  bool asked = false;
  for (auto& app : apps) {
    const Json* spec = Child(&app.object, "spec");
    if (spec == nullptr || !AutomatedSyncEnabled(*spec)) continue;
    asked = true;
    app.object["spec"]["syncPolicy"]["automated"]["enabled"] = false;
  }
  if (asked && !already_warned) {
    out.warning = "ApplicationSet " + appset.name +
                  " uses RollingSync: automated sync of its Applications is disabled; only the "
                  "rollout or a manual sync starts syncs";
    out.warned = true;
  }
  out.apps = std::move(apps);
  return out;
}

}  // namespace fleetwave::engine
