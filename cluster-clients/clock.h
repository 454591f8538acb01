// Time for the client engine. Backoff, rate limiting, timeouts and stall detection read time
// only through `Clock`, so unit tests drive them with `FakeClock` and never sleep. Monotonic
// (steady) time only; credential expiry, which is wall time, has its own seam in
// credentials.h. Implementations are thread-safe.
#pragma once

#include <atomic>
#include <chrono>

namespace fleetwave::clients {

using SteadyTime = std::chrono::steady_clock::time_point;
using Duration = std::chrono::steady_clock::duration;
using std::chrono::milliseconds;
using std::chrono::seconds;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual SteadyTime Now() const = 0;
};

class SystemClock final : public Clock {
 public:
  SteadyTime Now() const override { return std::chrono::steady_clock::now(); }
};

// A clock that moves only when told to.
class FakeClock final : public Clock {
 public:
  SteadyTime Now() const override { return SteadyTime(Duration(ticks_.load())); }
  void Advance(Duration d) { ticks_ += d.count(); }

 private:
  std::atomic<Duration::rep> ticks_{Duration(std::chrono::hours(1)).count()};
};

inline long long ToMillis(Duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

}  // namespace fleetwave::clients
