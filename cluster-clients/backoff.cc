#include "cluster-clients/backoff.h"

#include <algorithm>
#include <cmath>

namespace fleetwave::clients {

Backoff::Backoff(BackoffPolicy policy, std::uint64_t seed)
    : policy_(policy), rng_(seed == 0 ? std::random_device{}() : seed) {}

Duration Backoff::Next(std::optional<Duration> retry_after) {
  const int step = step_++;
  if (retry_after) return std::min(*retry_after, policy_.max_retry_after);
  const double base =
      static_cast<double>(policy_.initial.count()) * std::pow(policy_.factor, std::min(step, 62));
  const double capped = std::min(base, static_cast<double>(policy_.cap.count()));
  std::uniform_real_distribution<double> dist(0.0, policy_.jitter);
  // Jitter is added on top of the capped step and then capped again, so the cap is a hard
  // bound while the spread survives until the cap is reached.
  const double jittered =
      std::min(capped * (1.0 + dist(rng_)), static_cast<double>(policy_.cap.count()));
  return Duration(static_cast<Duration::rep>(std::max(jittered, capped)));
}

}  // namespace fleetwave::clients
