#include "engine/rollingsync/max_failures.h"

#include <limits>
#include <string_view>

#include "engine/rollingsync/max_update.h"

namespace fleetwave::engine {

std::optional<std::string> InvalidMaxFailures(const IntOrString& value) {
  if (value.is_int) {
    if (value.int_value < 0) return "must not be negative";
    return std::nullopt;
  }
  if (!ParsePercent(value.string_value)) return "a string must be a percentage like \"10%\"";
  return std::nullopt;
}

std::optional<long long> MaxFailuresLimit(const std::optional<IntOrString>& value,
                                          long long total) {
  if (!value) return std::nullopt;
  if (value->is_int) return value->int_value < 0 ? 0 : value->int_value;
  const long long percent = ParsePercent(value->string_value).value_or(0);
  if (total <= 0) return 0;
  // floor(P * total / 100) without overflow for absurd percentages.
  // More than all of the step's apps cannot fail: a huge percentage is the whole step.
  if (percent >= 100 || percent > std::numeric_limits<long long>::max() / total) return total;
  return percent * total / 100;
}

std::string FailureOf(const AppRolloutStatus& entry, const Application& live) {
  if (entry.status != RolloutAppState::kProgressing && entry.status != RolloutAppState::kHealthy)
    return "";
  if (live.health_status == "Degraded") return "health is Degraded";
  // A Healthy entry's last operation is the one that made it Healthy, or an older one.
  if (entry.status == RolloutAppState::kProgressing && live.operation_state &&
      (live.operation_state->phase == "Failed" || live.operation_state->phase == "Error"))
    return "sync " + live.operation_state->phase;
  return "";
}

namespace {
constexpr std::string_view kFailedPrefix = "Application failed (";
}  // namespace

std::string FailedAppMessage(const std::string& failure) {
  return std::string(kFailedPrefix) + failure + "), counted against the step's maxFailures";
}

bool IsFailedAppMessage(const std::string& message) {
  return message.compare(0, kFailedPrefix.size(), kFailedPrefix) == 0;
}

}  // namespace fleetwave::engine
