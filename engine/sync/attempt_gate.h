// When a sync operation's next attempt starts, and with which render. The set's actor asks
// these after every decision (and on its wake-ups) for each app with a stored operation; it only
// looks the facts up and acts on the answer. Pure: `now` is a parameter. Pinned by
// tests/engine/sync/attempt_gate_test.cc.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "engine/sync/operation_record.h"
#include "engine/time.h"

namespace fleetwave::engine {

// What the actor knows of one app when it considers its next attempt.
struct AttemptFacts {
  const OperationRecord* operation = nullptr;  // the stored operation; null when none
  bool in_flight = false;                      // an attempt of the app runs in this process
  bool generated = false;                      // the app is in the set's last generation
  bool cluster_reachable = false;              // its cluster's last request or watch succeeded
  bool cluster_synced = false;                 // every watch of its cluster has listed
};

enum class AttemptReadiness { kStart, kWaitUntil, kNotDue };

// Why an attempt is not due (kNotDue), for tests and traces.
enum class AttemptNotDueReason {
  kNone,             // due (kStart) or only waiting (kWaitUntil)
  kInFlight,         // one attempt at a time per app
  kNotRunning,       // no operation, or it has ended
  kNotGenerated,     // the app is gone: its operation stays as it is
  kClusterNotReady,  // unreachable, or its watches have not listed yet
};
std::string_view AttemptNotDueReasonName(AttemptNotDueReason reason);

struct AttemptDecision {
  AttemptReadiness readiness = AttemptReadiness::kNotDue;
  std::optional<Time> wake_at;  // kWaitUntil: when the retry is due (the actor wakes then)
  AttemptNotDueReason reason = AttemptNotDueReason::kNone;
};

// An attempt starts for a Running operation without one in flight, of an app still generated,
// against a cluster that is reachable and whose watches have listed, once its next_attempt_at
// has come (absent: at once). The cluster rule is the restart rule: an attempt planned before
// the live objects arrive would re-apply objects that already carry the applied hash. A retry
// whose time has not come waits until then (kWaitUntil); every other case is not due.
AttemptDecision DecideAttempt(const AttemptFacts& facts, Time now);

// The app's render at its current revisions, as the last gather made it.
struct CurrentRender {
  bool ok = false;                                      // rendered without a problem
  const std::vector<std::string>* revisions = nullptr;  // null when there is no render
};

enum class AttemptRenderChoice {
  kUseCurrent,      // the current render is the operation's
  kRenderAtPinned,  // render again at the operation's pinned revisions
};

// The current render serves the attempt only when it is ok and made at exactly the operation's
// pinned revisions (one per source); otherwise the attempt renders at the pinned revisions, so
// that a retry or a resumed operation applies what the operation started with.
AttemptRenderChoice ChooseAttemptRender(const CurrentRender& current,
                                        const std::vector<std::string>& pinned);

enum class AfterPinnedRender {
  kFinishWithRenderError,  // the operation's revisions do not render: the attempt ends Error
  kDrop,                   // the app is no longer generated: its operation stays as it is
  kSend,                   // apply the render
};

// What happens once the render at the pinned revisions is back. A failed render ends the
// attempt even when the app has gone meanwhile, so that the operation records why.
AfterPinnedRender AfterAttemptRender(bool render_ok, bool still_generated);

}  // namespace fleetwave::engine
