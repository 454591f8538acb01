// When an ApplicationSet decides, and what it does with a generation that failed (issue 25:
// the rules the appset actor used to hold, so the actor only gathers the facts and follows the
// answer). Pinned by tests/engine/appset/decision_gate_test.cc.
#pragma once

#include <chrono>
#include <optional>

#include "engine/time.h"

namespace fleetwave::engine {

// A set re-decides with nothing changed every kResyncPolls poll intervals (3 minutes at the
// default 60 s poll, Argo CD's reconciliation period): a safety net for a lost event, and what
// moves the Applications' reconciledAt.
inline constexpr int kResyncPolls = 3;

// The last from-scratch decision (at `decided_at`, none yet: nullopt) is a resync period old at
// `now` (truncated to seconds, as decisions see time).
bool ResyncDue(std::optional<Time> decided_at, Time now, std::chrono::seconds poll_interval);

// What a poll's gather finds, compared with what the last decision that landed decided on.
struct PollFacts {
  std::optional<Time> decided_at;  // when that decision ran; nullopt: none yet
  Time now;                        // truncated to seconds
  // Not truncated: a wake-up the engine asked for at a fraction of a second must not be seen
  // as early when its timer fires, or it would be armed again at once until the second passes.
  Time precise_now;
  std::chrono::seconds poll_interval{60};
  // Something asked for a decision since: an event, an operator action, a refresh, a new spec,
  // a failed commit, a dirty mark.
  bool asked_since = false;
  bool store_loaded = false;  // the gather carries the set's stored records (a first load)
  bool same_generation = false;
  bool same_clusters = false;
  bool same_deletions = false;
  bool undecided_observations = false;  // live changes or apply results not decided on yet
  std::optional<Time> engine_wake_at;   // the last decision's wake-up (a deadline, a retry)
};

// True when deciding again would produce the same decision: the same generation (no new
// commit, no new spec), the same clusters and deletion records, no live change or apply result,
// no engine wake-up due, nothing else asked, and the last decision is younger than the resync
// period. At 2,000 apps a decision costs tens of milliseconds, and deciding every set at every
// poll was most of an idle daemon's CPU.
bool NothingToDecide(const PollFacts& facts);

// A generation failed. `repository_errors`: it failed only on repositories the set's git
// generators read; `has_last`: an earlier generation of this process is in force.
enum class FailedGeneration {
  // Keep the last decision in force and try again at the next poll: a partial app list would
  // read as apps disappearing.
  kWaitForNextPoll,
  // Decide again on the last generation, carrying the repository errors, so they show on the
  // set as an app's repository error does.
  kDecideOnLastGeneration,
  // No generation yet (after a start): show the stored status with the repository errors;
  // nothing is decided, stored or synced until a generation succeeds.
  kShowStoredStatus,
};
FailedGeneration OnFailedGeneration(bool repository_errors, bool has_last);

}  // namespace fleetwave::engine
