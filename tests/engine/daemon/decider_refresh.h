// What the decider tests share: handing a decider an app's fresh observation as the appset actor
// does (FeedDecider), and comparing Applications without the time they were reconciled.
#pragma once

#include <string>

#include "engine/rollingsync/appset_decider.h"

namespace fleetwave::engine::daemon_testing {

// The fresh facts, with the Application memo the decider keeps for the app carried over, so
// that an unchanged app's Application is not rebuilt.
inline void PutRefreshed(RollingSyncDecider& decider, const std::string& app, ObservedApp fresh) {
  ObservedApp held = decider.TakeObserved(app);
  fresh.application = held.application;  // the memo stays with the app
  fresh.application_sync = held.application_sync;
  fresh.application_key = held.application_key;
  fresh.application_built = held.application_built;
  decider.PutObserved(std::move(fresh));
}

// An Application without status.reconciledAt, which only says when it was built.
inline Json WithoutReconciledAt(const Json& application) {
  Json out = application;
  out["status"].erase("reconciledAt");
  return out;
}

}  // namespace fleetwave::engine::daemon_testing
