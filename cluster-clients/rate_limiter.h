// Client-side rate limiting per cluster, as client-go's token bucket (flowcontrol
// NewTokenBucketRateLimiter): `burst` requests may go at once, then `qps` per second. A
// request reserves a token and learns how long to wait for it, so the caller schedules the
// request instead of blocking a thread. Time comes from the caller. Not thread-safe: each
// cluster client owns one and uses it on its I/O thread.
#pragma once

#include "cluster-clients/clock.h"

namespace fleetwave::clients {

struct RateLimit {
  double qps = 5.0;  // client-go's defaults
  int burst = 10;
};

class RateLimiter {
 public:
  RateLimiter(RateLimit limit, SteadyTime now);

  // Reserves one token; returns how long the caller must wait before using it (zero when a
  // token is available now). Reservations queue: each one waits behind the previous ones.
  Duration Reserve(SteadyTime now);
  // Tokens available now (may be negative while reservations are outstanding).
  double Tokens(SteadyTime now);

 private:
  void Refill(SteadyTime now);

  RateLimit limit_;
  double tokens_;
  SteadyTime last_;
};

}  // namespace fleetwave::clients
