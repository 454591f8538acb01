// Jittered exponential backoff for transient failures, after client-go's wait.Backoff: the
// n-th delay is min(cap, initial * factor^n) with up to `jitter` of it added at random, so a
// thousand clusters failing together do not retry in lockstep. A Retry-After from the server
// overrides the computed delay (bounded by `max_retry_after`). Not thread-safe: each retrying
// request or watch owns one.
#pragma once

#include <cstdint>
#include <optional>
#include <random>

#include "cluster-clients/clock.h"

namespace fleetwave::clients {

struct BackoffPolicy {
  Duration initial = milliseconds(200);
  double factor = 2.0;
  double jitter = 0.5;  // up to +50% of the step, like client-go's Jitter
  Duration cap = seconds(30);
  Duration max_retry_after = seconds(120);
};

class Backoff {
 public:
  explicit Backoff(BackoffPolicy policy = {}, std::uint64_t seed = 0);

  // The delay before the next attempt; advances the step. `retry_after`, when the server sent
  // one, wins over the computed delay.
  Duration Next(std::optional<Duration> retry_after = std::nullopt);
  // After a success: the next failure starts again from `initial`.
  void Reset() { step_ = 0; }
  int steps() const { return step_; }

 private:
  BackoffPolicy policy_;
  int step_ = 0;
  std::mt19937_64 rng_;
};

}  // namespace fleetwave::clients
