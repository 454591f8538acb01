// maxFailures of a RollingSync step (issue 29, tests/engine/rollingsync/max_failures_test.cc):
// how many of the step's apps may fail while the step still completes. A fleetwave extension;
// Argo CD files without it behave exactly as before (no budget, no RolloutFailed).
#pragma once

#include <optional>
#include <string>

#include "engine/appset/appset.h"
#include "engine/rollingsync/rollout_status.h"

namespace fleetwave::engine {

// Why a maxFailures value is invalid, or nullopt when it is valid: an integer >= 0 or a string
// "<digits>%". Unlike maxUpdate (whose invalid values Argo CD gives a meaning) an invalid value
// is refused when the set is decoded.
std::optional<std::string> InvalidMaxFailures(const IntOrString& value);

// The budget of a step with `total` live apps: nullopt when the step has none (the field is
// absent). Integer N -> N; "P%" -> floor(P * total / 100), never raised: a budget rounds towards
// safety ("10%" of 5 apps is 0).
// REQUIRES: !value || !InvalidMaxFailures(*value).
std::optional<long long> MaxFailuresLimit(const std::optional<IntOrString>& value, long long total);

// Why an app this rollout synced counts as failed, or "" when it does not (issue 29): its live
// health is Degraded (which includes a workload past its progress deadline: health_workloads.cc
// reports that as Degraded), or its last sync operation ended Failed or Error, which it does
// only after its retries (operation_record.h keeps a retried attempt Running). Only entries past
// Pending count: a Waiting or Pending app has not been synced by this rollout yet. A skipped
// app never counts (the caller checks).
std::string FailureOf(const AppRolloutStatus& entry, const Application& live);

// The status message of a failed app: the failure and that the step's budget carries it.
std::string FailedAppMessage(const std::string& failure);
bool IsFailedAppMessage(const std::string& message);
// The message of an app that recovered while its entry stayed where it was.
inline constexpr const char* kRecoveredAppMessage =
    "Application recovered from its failure and counts as complete again";

}  // namespace fleetwave::engine
