// Time values for the engine. The engine never reads a clock: every decision takes `now` as
// a parameter of this type. Microsecond resolution because `--now` may carry fractional
// seconds; Kubernetes timestamps themselves have second precision.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace fleetwave::engine {

using Time = std::chrono::sys_time<std::chrono::microseconds>;
using Duration = std::chrono::microseconds;

// Parses RFC 3339 ("2026-03-01T12:00:00Z", "...12:00:00.250Z", "...12:00:00+02:00").
// Returns nullopt for anything else.
std::optional<Time> ParseRfc3339(std::string_view text);

// Formats as Kubernetes does: UTC, second precision, "2026-03-01T12:00:00Z".
// Fractions are truncated, as metav1.Time serialisation truncates them.
std::string FormatRfc3339(Time t);

// Truncates to whole seconds (the precision of Kubernetes timestamps).
Time TruncateToSeconds(Time t);

// Seconds as a double, for JSON outputs such as requeueAfterSeconds.
double ToSeconds(Duration d);

Time FromUnixSeconds(long long seconds);

}  // namespace fleetwave::engine
