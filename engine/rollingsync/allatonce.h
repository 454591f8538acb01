// The strategy decisions outside the RollingSync planner: AllAtOnce automated sync (sync
// when OutOfSync, self-heal drift, otherwise wait for a person), the `progressiveSyncs: false`
// gate that keeps a RollingSync set from being reconciled at all, and RollingSync's disabling
// of automated sync on the Applications it generates. Pure; `now` is a parameter.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/appset/appset.h"
#include "engine/appset/generate.h"
#include "engine/rollingsync/rollout_conditions.h"
#include "engine/sync/sync_status.h"
#include "engine/time.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

// spec.syncPolicy.automated is present and not `enabled: false`.
bool AutomatedSyncEnabled(const Json& app_spec);

// The last sync operation an app ran, as far as automated sync cares.
struct LastSync {
  std::string revision;          // the revision it synced to
  bool succeeded = false;        // phase Succeeded
  std::optional<Time> finished;  // unset while it runs
};

struct AutoSyncInput {
  Json app_spec = Json::object();  // the Application spec (syncPolicy read from it)
  AppSync sync;                    // CompareApp at `revision`
  std::string revision;            // the revision resolved from git this reconcile
  std::string pinned_revision;     // the revision the app is pinned to ("" none yet)
  std::optional<LastSync> last_sync;
  bool operation_running = false;
  size_t desired_objects = 0;  // rendered objects at `revision`
  Duration self_heal_timeout = std::chrono::seconds(5);
};

enum class AutoSyncAction {
  kNone,               // nothing to do (Synced, Unknown, running, or skipped: see message)
  kFastForward,        // Synced at a new revision: move the pin, apply nothing
  kSync,               // start an automated sync at `revision`
  kWaitForManualSync,  // OutOfSync without `automated`: a person decides
};

struct AutoSyncDecision {
  AutoSyncAction action = AutoSyncAction::kNone;
  std::string message;                    // why, for logs and status; "" when in sync
  std::optional<Duration> requeue_after;  // self-heal held back by its timeout
};

// AllAtOnce, as Argo CD's automated sync: OutOfSync at a revision not yet attempted → sync;
// at the revision already synced, only `selfHeal` re-syncs (drift), and only after the last
// sync finished at least `self_heal_timeout` ago; a failed attempt at the same revision is not
// repeated (the retry policy owns retries); with `prune` and no desired object, nothing is
// synced unless `allowEmpty` (an empty render would wipe the app out).
AutoSyncDecision DecideAutoSync(const AutoSyncInput& input, Time now);

// progressiveSyncs: false: a RollingSync set is not reconciled at all (never rolled out all at
// once) and carries ErrorOccurred=True, reason ProgressiveSyncsDisabled.
struct ReconcileGate {
  bool reconcile = true;
  std::optional<AppSetCondition> condition;  // to merge into the set's conditions
};
ReconcileGate GateProgressiveSyncs(bool progressive_syncs, const Strategy& strategy);

inline constexpr const char* kProgressiveSyncsDisabledMessage =
    "Progressive syncs are disabled (progressiveSyncs: false); this RollingSync ApplicationSet "
    "is not reconciled";

// RollingSync: only the rollout (or a person) starts syncs, so every generated app's
// syncPolicy.automated gets `enabled: false` — as Argo CD writes it, keeping `prune` for the
// rollout's sync operation. `warning` is set when an app asked for automated sync and
// `already_warned` is false; `warned` is what the caller remembers for this set.
struct AutomatedDisabled {
  std::vector<GeneratedApplication> apps;
  std::optional<std::string> warning;
  bool warned = false;
};
AutomatedDisabled DisableAutomatedForRollingSync(const ApplicationSet& appset,
                                                 std::vector<GeneratedApplication> apps,
                                                 bool already_warned);

}  // namespace fleetwave::engine
