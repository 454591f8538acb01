#include "engine/poll_schedule.h"

#include <algorithm>

namespace fleetwave::engine {

Duration NextPollDelay(Duration interval, int consecutive_failures, double jitter) {
  if (interval <= Duration::zero()) return interval;
  const Duration cap = std::max(interval, kMaxPollBackoff);
  Duration delay = interval;
  for (int i = 0; i < consecutive_failures && delay < cap; ++i) delay *= 2;
  delay = std::min(delay, cap);
  const double spread = 0.9 + 0.2 * std::clamp(jitter, 0.0, 1.0);
  return Duration(static_cast<Duration::rep>(static_cast<double>(delay.count()) * spread));
}

}  // namespace fleetwave::engine
