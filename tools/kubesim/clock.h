// The simulator's notion of time. By default simulated time is wall time (fleetwave's own
// deadlines run on the wall clock); with a manual clock, time stands still until Advance().
// Not thread-safe: owned by the single io thread, like everything in the simulator.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace fleetwave::kubesim {

using TimePoint = std::chrono::sys_time<std::chrono::microseconds>;
using Duration = std::chrono::microseconds;

class Clock {
 public:
  explicit Clock(bool manual);
  TimePoint Now() const;
  bool manual() const { return manual_; }
  // REQUIRES: manual(). Moves simulated time forward.
  void Advance(Duration d);

 private:
  bool manual_;
  TimePoint frozen_;
};

// "2026-03-01T12:00:00Z": second precision, as metav1.Time serialises.
std::string FormatTime(TimePoint t);
// "2026-03-01T12:00:00.123456Z": metav1.MicroTime.
std::string FormatMicroTime(TimePoint t);
// Go-style durations: "5s", "250ms", "1m30s", "2h". nullopt when malformed.
std::optional<Duration> ParseDuration(std::string_view text);

}  // namespace fleetwave::kubesim
