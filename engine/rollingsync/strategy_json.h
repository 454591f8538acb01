// The rollout strategy of an ApplicationSet as the API shows it (the set's `spec.strategy` in
// GET /api/v1/applicationsets): Argo CD's shape, values as written, so a client can draw each
// step's selector and maxUpdate and mark a manual gate (maxUpdate 0) without the set's file.
#pragma once

#include "engine/appset/appset.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

// {"type": T, "deletionOrder": D, "rollingSync": {"steps": [{"matchExpressions": [{"key",
// "operator", "values"}], "maxUpdate": int or "N%", "progressDeadlineSeconds": S, "maxFailures":
// int or "N%", "minSuccessTime": "<seconds>s"}]}}; absent fields stay absent, and an empty type (no
// strategy written) is "AllAtOnce". Pinned by StrategyJsonTest.*.
Json StrategyJson(const Strategy& strategy);

}  // namespace fleetwave::engine
