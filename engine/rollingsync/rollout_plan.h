// One RollingSync reconcile of an ApplicationSet as a pure function (what `fleetwave plan`
// prints; pinned by the conformance vectors in tests/vectors/plan and rollout_plan_test.cc): from
// the set (with its stored status), the desired Applications and the live ones, compute the next
// status (per-app entries, conditions, `status.rollout`), the apps whose sync starts now and the
// operation for each. The daemon and `fleetwave plan` both call Plan; nothing here reads a clock or
// does I/O.
//
// Idempotent: planning again with the result's status at the same `now` and the same live
// apps yields the same result.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/appset/application.h"
#include "engine/appset/appset.h"
#include "engine/appset/generate.h"
#include "engine/issue.h"
#include "engine/rollingsync/rollback.h"
#include "engine/rollingsync/rollout_conditions.h"
#include "engine/rollingsync/rollout_spec_diff.h"
#include "engine/rollingsync/rollout_state.h"
#include "engine/rollingsync/rollout_status.h"
#include "engine/time.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

// The rollout's part of an ApplicationSet status, decoded: what Plan reads back each
// reconcile. The daemon keeps it in this form; `plan` decodes it from the input file.
struct StoredRolloutStatus {
  std::vector<AppRolloutStatus> application_status;
  std::vector<AppSetCondition> conditions;
  RolloutState rollout;
  bool has_rollout = false;     // status.rollout was present
  Json other = Json::object();  // every other status field, passed through unchanged
};

// Decodes status.{applicationStatus, conditions, rollout}; malformed parts are issues.
StoredRolloutStatus DecodeStoredRolloutStatus(const Json& status, Issues& issues);

struct PlanResult {
  // False when the set cannot be planned at all (an unsupported strategy type); `issues` says
  // why and nothing else is set.
  bool planned = true;
  Issues issues;  // problems in the stored status (malformed entries are dropped and reported)

  std::vector<AppRolloutStatus> application_status;  // sorted by application
  std::vector<AppSetCondition> conditions;           // sorted by type
  std::optional<RolloutState> rollout;               // RollingSync only
  Json other_status = Json::object();      // stored status fields the rollout does not own
  std::vector<std::string> apps_to_sync;   // sorted
  std::map<std::string, int> steps;        // every desired or live app: 1-based, -1 = none
  std::map<std::string, Json> operations;  // per app to sync: the Argo-shaped operation
  // [issue 29] The syncs back a rollback lists now (engine/rollingsync/rollback.h), name order; not
  // in apps_to_sync, which a rollback empties.
  std::vector<RollbackSync> rollback_syncs;
  // When the current step's progress deadline expires (for the daemon's timer), if it has one
  // and has not expired yet.
  std::optional<Time> step_deadline;
  // When the current step's soak (minSuccessTime) ends, while it soaks: the daemon's timer.
  std::optional<Time> soak_ends_at;
  // [issue 29] When a sync window of the set's projects may start or end a hold next: the
  // daemon's timer (rollout_windows.h).
  std::optional<Time> window_edge_at;
  // [issue 29] While the current step's analysis runs: the next measurement the daemon takes
  // (query Prometheus at `due`, then RecordAnalysisMeasurement and decide again).
  std::optional<AnalysisRequest> analysis_due;
  // Apps found drifted this reconcile (Healthy entry, OutOfSync at the pin), sorted: `healed`
  // those sent back to Waiting to be synced again (RollingSyncHealsDrift), `drifted` those
  // left Healthy and only reported.
  std::vector<std::string> drifted;
  std::vector<std::string> healed;
};

// Whether a RollingSync set re-syncs drift in step order (issue 32): its template asks for
// `syncPolicy.automated.selfHeal: true` (RollingSync turns automated sync off on the generated
// apps, so the template is where the wish is read), unless the set's annotation
// `fleetwave.io/drift: report` opts out; `fleetwave.io/drift: heal` asks for it whatever the
// template says. Otherwise drift is reported (the app OutOfSync, fleetwave_app_drifted) and
// its entry stays Healthy, as in Argo CD.
bool RollingSyncHealsDrift(const ApplicationSet& appset);

// The desired Applications of a set without generators: the live ones, as they are
// (a set given as an excerpt, used only for planning).
std::vector<GeneratedApplication> DesiredFromLive(const std::vector<Application>& live);

// One reconcile at `now`. `desired` are the generated apps (DesiredFromLive for a set without
// generators); `live` the existing Applications. Names are unique in each.
PlanResult Plan(const ApplicationSet& appset, const std::vector<GeneratedApplication>& desired,
                const std::vector<Application>& live, Time now);

// The same with the stored status already decoded (appset.status is not read): the daemon's
// form, which skips re-reading a large status document every reconcile. The status is taken
// by value: a caller that hands it over (std::move) has its entries moved into the result
// instead of copied. The phases are in rollout_phases.h. `observation_complete` false: some
// live app's health is Unknown only because its cluster has not been observed yet (the
// daemon's first reconciles after a start); the current step then never goes back
// (FinishRollout).
PlanResult Plan(const ApplicationSet& appset, StoredRolloutStatus stored,
                const std::vector<GeneratedApplication>& desired,
                const std::vector<Application>& live, Time now, bool observation_complete = true);

// The ApplicationSet status after the reconcile, as stored and printed: applicationStatus,
// conditions, rollout (RollingSync only) and the passed-through fields.
Json PlanStatusJson(const PlanResult& result);

// The `fleetwave plan -o json` document: {status, appsToSync, steps, operations}.
Json PlanOutputJson(const PlanResult& result);

}  // namespace fleetwave::engine
