#include "sources/fetch_schedule.h"

namespace fleetwave::sources {

bool FetchDue(const FetchState& state, engine::Time now, engine::Duration poll_interval) {
  if (!state.fetched_before || state.refresh_requested) return true;
  return now - state.last_fetch >= poll_interval;
}

engine::Time NextFetchAt(const FetchState& state, engine::Time now,
                         engine::Duration poll_interval) {
  if (FetchDue(state, now, poll_interval)) return now;
  return state.last_fetch + poll_interval;
}

}  // namespace fleetwave::sources
