// Hands a decider an app's fresh observation as the appset actor does (FeedDecider): the new
// facts, with the Application memo the decider keeps for that app carried over, so that an
// unchanged app's Application is not rebuilt. Shared by the decider tests.
#pragma once

#include <string>

#include "engine/rollingsync/appset_decider.h"

namespace fleetwave::engine::daemon_testing {

inline void PutRefreshed(RollingSyncDecider& decider, const std::string& app, ObservedApp fresh) {
  ObservedApp held = decider.TakeObserved(app);
  fresh.application = held.application;  // the memo stays with the app
  fresh.application_sync = held.application_sync;
  fresh.application_key = held.application_key;
  fresh.application_built = held.application_built;
  decider.PutObserved(std::move(fresh));
}

}  // namespace fleetwave::engine::daemon_testing
