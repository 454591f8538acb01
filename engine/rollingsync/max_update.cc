#include "engine/rollingsync/max_update.h"

#include <cctype>
#include <limits>

namespace fleetwave::engine {

// "99999999999999999999%" is a (silly) valid percentage.
std::optional<long long> ParsePercent(const std::string& s) {
  if (s.size() < 2 || s.back() != '%') return std::nullopt;
  long long p = 0;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
    if (p < std::numeric_limits<long long>::max() / 100) p = p * 10 + (s[i] - '0');
  }
  return p;
}

std::optional<std::string> InvalidMaxUpdate(const IntOrString& value) {
  if (value.is_int) {
    if (value.int_value < 0) return "must not be negative";
    return std::nullopt;
  }
  if (!ParsePercent(value.string_value))
    return "a string maxUpdate must be a percentage like \"25%\"";
  return std::nullopt;
}

std::string MaxUpdateAsWritten(const IntOrString& value) {
  return value.is_int ? std::to_string(value.int_value) : value.string_value;
}

std::optional<long long> MaxUpdateLimit(const std::optional<IntOrString>& value, long long total) {
  if (!value) return std::nullopt;
  if (value->is_int) return value->int_value < 0 ? 0 : value->int_value;
  auto percent = ParsePercent(value->string_value);
  if (!percent) return 1;  // Argo CD: the scaling error leaves 0, then the >0% floor makes it 1
  if (value->string_value == "0%") return 0;
  // floor(P * total / 100) without overflow for absurd percentages.
  long long limit = *percent > std::numeric_limits<long long>::max() / (total > 0 ? total : 1)
                        ? std::numeric_limits<long long>::max() / 100
                        : *percent * total / 100;
  return limit < 1 ? 1 : limit;
}

}  // namespace fleetwave::engine
