// [issue 29] The stored state of a rollback (status.rollout.rollback and
// status.rollout.rollbackRequested): which apps a failed step's `onFailure: Rollback` or an
// operator's `fleetwave rollback` returns to earlier revisions, each one's progress, and why.
// Values with their JSON form; the rules that start and advance a rollback are in
// engine/rollingsync/rollback.h. Stored with the rest of status.rollout, so a restart continues the
// same rollback: apps already returned are not synced again, the next ones follow in order.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/issue.h"
#include "engine/time.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

// Why a rollback started: the values of fleetwave_rollbacks_total's `reason` label.
inline constexpr const char* kRollbackStepFailed = "StepFailed";  // onFailure: Rollback
inline constexpr const char* kRollbackOperator = "Operator";      // fleetwave rollback

// `fleetwave rollback SET [--to REVISION]` accepted by the API: the next decision, which sees
// every app, starts the rollback (StartRollback) and drops the request.
struct RollbackRequest {
  std::string by;  // the caller, as logged
  std::string to;  // "" = each app's last healthy revisions
  Time at{};

  bool operator==(const RollbackRequest&) const = default;
};

enum class RollbackAppPhase {
  kWaiting,     // to be synced back, in rollback order
  kSyncing,     // its sync back started at `since`
  kRolledBack,  // that sync succeeded and the app is Healthy again
  kFailed,      // that sync failed (after its retries), or the Application is gone
};
const char* ToString(RollbackAppPhase phase);
std::optional<RollbackAppPhase> ParseRollbackAppPhase(const std::string& text);

struct RollbackApp {
  std::string app;
  int step = 0;                   // 1-based: the rollout step it was synced in
  std::vector<std::string> from;  // the revisions rolled back (the failed rollout's pin)
  std::vector<std::string> to;    // the revisions it returns to
  RollbackAppPhase phase = RollbackAppPhase::kWaiting;
  std::optional<Time> since;  // when it entered `phase` (Syncing: its sync's start)
  std::string message;        // a failure's reason

  bool operator==(const RollbackApp&) const = default;
};

struct RollbackState {
  std::string reason;   // kRollbackStepFailed or kRollbackOperator
  std::string by;       // the operator; "" for a failed step's
  int failed_step = 0;  // 1-based, for kRollbackStepFailed
  std::string to;       // the operator's --to; "" = each app's last healthy revisions
  Time started_at{};
  std::optional<Time> finished_at;  // every app rolled back or failed
  std::vector<RollbackApp> apps;    // in name order
  // Apps the rollout had synced that have nothing to return to (never Healthy at an earlier
  // revision, or several sources with --to): they stay where they are, named in the message.
  std::vector<std::string> kept;

  bool operator==(const RollbackState&) const = default;
};

// status.rollout.rollback's JSON; decoding is strict (a wrong type is an issue under `path`,
// and the caller holds the set as for every stored field).
Json EncodeRollbackState(const RollbackState& state);
std::optional<RollbackState> DecodeRollbackState(const Json& value, const std::string& path,
                                                 Issues& issues);
Json EncodeRollbackRequest(const RollbackRequest& request);
std::optional<RollbackRequest> DecodeRollbackRequest(const Json& value, const std::string& path,
                                                     Issues& issues);

// The reason (kRollbackStepFailed, kRollbackOperator) of a rollback that `after` started and
// `before` (the stored state the decision began from) did not have, or "" when none started:
// what fleetwave_rollbacks_total counts, once per rollback.
std::string RollbackStarted(const std::optional<RollbackState>& before,
                            const std::optional<RollbackState>& after);

}  // namespace fleetwave::engine
