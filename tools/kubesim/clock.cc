#include "tools/kubesim/clock.h"

#include <cctype>
#include <cstdio>
#include <ctime>

namespace fleetwave::kubesim {

namespace {
TimePoint WallNow() {
  return std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now());
}
}  // namespace

Clock::Clock(bool manual) : manual_(manual), frozen_(WallNow()) {}

TimePoint Clock::Now() const { return manual_ ? frozen_ : WallNow(); }

void Clock::Advance(Duration d) { frozen_ += d; }

std::string FormatTime(TimePoint t) {
  std::time_t secs = std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string FormatMicroTime(TimePoint t) {
  auto us = t.time_since_epoch().count();
  std::time_t secs = us / 1000000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[48];
  std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%06lldZ", static_cast<long long>(us % 1000000));
  return buf;
}

std::optional<Duration> ParseDuration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  double total_us = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t start = i;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
      ++i;
    if (start == i) return std::nullopt;
    double value = std::stod(std::string(text.substr(start, i - start)));
    std::size_t unit_start = i;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    std::string_view unit = text.substr(unit_start, i - unit_start);
    double scale;
    if (unit == "h") {
      scale = 3600e6;
    } else if (unit == "m") {
      scale = 60e6;
    } else if (unit == "s") {
      scale = 1e6;
    } else if (unit == "ms") {
      scale = 1e3;
    } else if (unit == "us") {
      scale = 1;
    } else {
      return std::nullopt;
    }
    total_us += value * scale;
  }
  return Duration(static_cast<long long>(total_us));
}

}  // namespace fleetwave::kubesim
