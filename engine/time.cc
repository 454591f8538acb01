#include "engine/time.h"

#include <cctype>
#include <cstdio>

namespace fleetwave::engine {
namespace {

bool ReadDigits(std::string_view s, size_t pos, size_t n, int& out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    v = v * 10 + (s[i] - '0');
  }
  out = v;
  return true;
}

}  // namespace

std::optional<Time> ParseRfc3339(std::string_view s) {
  int year, month, day, hour, minute, second;
  if (!ReadDigits(s, 0, 4, year) || s.size() < 20 || s[4] != '-' || !ReadDigits(s, 5, 2, month) ||
      s[7] != '-' || !ReadDigits(s, 8, 2, day) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
      !ReadDigits(s, 11, 2, hour) || s[13] != ':' || !ReadDigits(s, 14, 2, minute) ||
      s[16] != ':' || !ReadDigits(s, 17, 2, second)) {
    return std::nullopt;
  }
  using namespace std::chrono;
  const year_month_day ymd{std::chrono::year{year},
                           std::chrono::month{static_cast<unsigned>(month)},
                           std::chrono::day{static_cast<unsigned>(day)}};
  if (!ymd.ok() || hour > 23 || minute > 59 || second > 60) return std::nullopt;
  size_t pos = 19;
  long long micros = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    long long scale = 100000;
    size_t digits = 0;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
      micros += (s[pos] - '0') * scale;
      scale /= 10;
      ++pos;
      ++digits;
    }
    if (digits == 0) return std::nullopt;
  }
  long long offset_seconds = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh, om;
    if (!ReadDigits(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !ReadDigits(s, pos + 4, 2, om)) {
      return std::nullopt;
    }
    offset_seconds = (oh * 3600LL + om * 60LL) * (s[pos] == '+' ? 1 : -1);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  const sys_days days{ymd};
  return Time{duration_cast<microseconds>(days.time_since_epoch()) + hours{hour} + minutes{minute} +
              seconds{second - offset_seconds} + microseconds{micros}};
}

std::string FormatRfc3339(Time t) {
  using namespace std::chrono;
  const auto secs = floor<seconds>(t);
  const auto days = floor<std::chrono::days>(secs);
  const year_month_day ymd{days};
  const hh_mm_ss hms{secs - days};
  const int year = static_cast<int>(ymd.year());
  const int hour = static_cast<int>(hms.hours().count());
  const int minute = static_cast<int>(hms.minutes().count());
  const int second = static_cast<int>(hms.seconds().count());
  const int month = static_cast<int>(static_cast<unsigned>(ymd.month()));
  const int day = static_cast<int>(static_cast<unsigned>(ymd.day()));
  if (year < 0 || year > 9999) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ", year, month, day, hour, minute,
                  second);
    return buf;
  }
  // Digit by digit: the daemon formats a time for every app and every status entry of a set
  // on each reconcile, and snprintf was most of that cost (bench/reconcile_bench.cc).
  std::string out = "0000-00-00T00:00:00Z";
  auto put = [&out](size_t at, int value, int digits) {
    for (int i = digits - 1; i >= 0; --i, value /= 10)
      out[at + i] = static_cast<char>('0' + value % 10);
  };
  put(0, year, 4);
  put(5, month, 2);
  put(8, day, 2);
  put(11, hour, 2);
  put(14, minute, 2);
  put(17, second, 2);
  return out;
}

Time TruncateToSeconds(Time t) { return std::chrono::floor<std::chrono::seconds>(t); }

double ToSeconds(Duration d) { return static_cast<double>(d.count()) / 1e6; }

Time FromUnixSeconds(long long seconds) { return Time{std::chrono::seconds{seconds}}; }

}  // namespace fleetwave::engine
