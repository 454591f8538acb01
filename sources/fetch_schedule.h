// When the daemon fetches a repository (product rule: a fetch every `git.pollInterval`, and at
// once on a refresh request). A pure decision on values; the caller owns the clock and the
// timer. Plain values, no thread-safety concerns.
#pragma once

#include "engine/time.h"

namespace fleetwave::sources {

struct FetchState {
  bool fetched_before = false;     // false until the first fetch finished
  engine::Time last_fetch{};       // when the last fetch finished (valid if fetched_before)
  bool refresh_requested = false;  // POST /api/v1/refresh since the last fetch
};

// True when a fetch should start now: never fetched, a refresh was requested, or at least
// `poll_interval` has passed since the last fetch. Pinned by fetch_schedule_test.cc.
bool FetchDue(const FetchState& state, engine::Time now, engine::Duration poll_interval);

// When the next periodic fetch falls due (for arming the timer): `now` when FetchDue, else
// last_fetch + poll_interval.
engine::Time NextFetchAt(const FetchState& state, engine::Time now, engine::Duration poll_interval);

}  // namespace fleetwave::sources
