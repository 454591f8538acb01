#include "engine/sync/retry_policy.h"

#include <algorithm>
#include <cmath>

namespace fleetwave::engine {
namespace {

const Json* Child(const Json* object, const char* key) {
  if (object == nullptr || !object->is_object()) return nullptr;
  auto it = object->find(key);
  return it == object->end() || it->is_null() ? nullptr : &*it;
}

// A duration field: a string as ParseGoDuration reads it, or a bare integer of seconds.
bool ReadDuration(const Json* v, const char* name, Duration& out, std::optional<Error>& error) {
  if (v == nullptr) return true;
  std::optional<Duration> d;
  if (v->is_number_integer() && v->get<int64_t>() >= 0) {
    d = std::chrono::seconds(v->get<int64_t>());
  } else if (v->is_string()) {
    d = ParseGoDuration(v->get<std::string>());
  }
  if (!d) {
    error = InvalidInputError("", std::string("invalid retry backoff ") + name + " " + v->dump());
    return false;
  }
  out = *d;
  return true;
}

}  // namespace

std::optional<Duration> ParseGoDuration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  bool digits_only = true;
  for (char c : text) digits_only = digits_only && c >= '0' && c <= '9';
  if (digits_only) {
    if (text.size() > 12) return std::nullopt;
    return std::chrono::seconds(std::stoll(std::string(text)));
  }
  double total_us = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
    if (i == start) return std::nullopt;
    const std::string number(text.substr(start, i - start));
    if (std::count(number.begin(), number.end(), '.') > 1 || number == ".") return std::nullopt;
    const double value = std::stod(number);
    start = i;
    while (i < text.size() && !((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
    const std::string_view unit = text.substr(start, i - start);
    double us_per_unit = 0;
    if (unit == "ns") {
      us_per_unit = 1e-3;
    } else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") {
      us_per_unit = 1;
    } else if (unit == "ms") {
      us_per_unit = 1e3;
    } else if (unit == "s") {
      us_per_unit = 1e6;
    } else if (unit == "m") {
      us_per_unit = 60e6;
    } else if (unit == "h") {
      us_per_unit = 3600e6;
    } else {
      return std::nullopt;
    }
    total_us += value * us_per_unit;
  }
  if (total_us > 1e16) return std::nullopt;
  return Duration(static_cast<int64_t>(std::llround(total_us)));
}

DecodedRetryPolicy DecodeRetryPolicy(const Json& retry) {
  DecodedRetryPolicy out;
  if (const Json* limit = Child(&retry, "limit"); limit && limit->is_number_integer()) {
    out.policy.limit = limit->get<int64_t>();
  }
  const Json* backoff = Child(&retry, "backoff");
  if (!ReadDuration(Child(backoff, "duration"), "duration", out.policy.duration, out.error) ||
      !ReadDuration(Child(backoff, "maxDuration"), "maxDuration", out.policy.max_duration,
                    out.error)) {
    return out;
  }
  if (const Json* factor = Child(backoff, "factor")) {
    if (!factor->is_number_integer()) {
      out.error = InvalidInputError("", "invalid retry backoff factor " + factor->dump());
      return out;
    }
    out.policy.factor = factor->get<int64_t>();
  }
  return out;
}

Duration RetryBackoff(const RetryPolicy& policy, int64_t retry_count) {
  // Argo: timeToWait = duration * factor^retryCount, then min(maxDuration, timeToWait).
  double wait = static_cast<double>(policy.duration.count()) *
                std::pow(static_cast<double>(policy.factor), static_cast<double>(retry_count));
  if (policy.max_duration.count() > 0) {
    wait = std::min(wait, static_cast<double>(policy.max_duration.count()));
  }
  // Without a cap the wait can overflow; a century is "never" for a retry.
  wait = std::clamp(wait, 0.0, 3.15e15);
  return Duration(static_cast<int64_t>(wait));
}

bool MayRetry(const RetryPolicy& policy, int64_t retry_count) {
  return policy.limit < 0 || retry_count < policy.limit;
}

}  // namespace fleetwave::engine
