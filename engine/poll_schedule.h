// When a set polls its repositories next (`git.pollInterval`, issue 27): at the interval,
// spread so that sets started together do not all poll at once, and further apart while the
// remote keeps failing, so that a git host that is down is not asked by every set at every
// interval (a webhook or a refresh still polls at once).
#pragma once

#include "engine/time.h"

namespace fleetwave::engine {

// How far apart polls may get while failing: ten minutes, or the interval when it is longer.
inline constexpr Duration kMaxPollBackoff = std::chrono::minutes(10);

// The delay until the next poll: `interval` doubled for each consecutive poll whose fetch
// failed (capped at max(interval, kMaxPollBackoff)), then spread by up to ±10 %: `jitter` in
// [0, 1) is a uniform random sample (0.5 = no spread). A non-positive interval is returned as
// it is (polling off is the caller's business).
Duration NextPollDelay(Duration interval, int consecutive_failures, double jitter);

// The jitter of a daemon given no random source (tests, a replay): polls are not spread, each
// comes exactly at its (backed-off) interval.
inline constexpr double kUnspreadJitter = 0.5;

}  // namespace fleetwave::engine
