#include "cluster-clients/rate_limiter.h"

#include <algorithm>
#include <cmath>

namespace fleetwave::clients {

RateLimiter::RateLimiter(RateLimit limit, SteadyTime now)
    : limit_(limit), tokens_(std::max(1, limit.burst)), last_(now) {}

void RateLimiter::Refill(SteadyTime now) {
  if (now <= last_) return;
  const double elapsed = std::chrono::duration<double>(now - last_).count();
  tokens_ = std::min<double>(std::max(1, limit_.burst), tokens_ + elapsed * limit_.qps);
  last_ = now;
}

double RateLimiter::Tokens(SteadyTime now) {
  Refill(now);
  return tokens_;
}

Duration RateLimiter::Reserve(SteadyTime now) {
  if (limit_.qps <= 0) return Duration::zero();  // unlimited
  Refill(now);
  tokens_ -= 1.0;
  if (tokens_ >= 0) return Duration::zero();
  const double wait_s = -tokens_ / limit_.qps;
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(wait_s));
}

}  // namespace fleetwave::clients
