#include "engine/cron_schedule.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <vector>

namespace fleetwave::engine {
namespace {

struct FieldSpec {
  const char* name;
  int min;
  int max;
  const char* const* names;  // by value - min; null: numbers only
  bool day_field;            // accepts `?`
};

const char* const kMonthNames[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                   "jul", "aug", "sep", "oct", "nov", "dec"};
const char* const kWeekdayNames[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

std::optional<int> Value(std::string_view text, const FieldSpec& f) {
  if (text.empty() || text.size() > 4) return std::nullopt;
  if (std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    int v = 0;
    for (char c : text) v = v * 10 + (c - '0');
    return v;
  }
  if (f.names == nullptr) return std::nullopt;
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (int i = 0; i <= f.max - f.min; ++i) {
    if (lower == f.names[i]) return f.min + i;
  }
  return std::nullopt;
}

// Sets the field's bits in `bits` (index = value); returns "" or why the field is wrong.
template <size_t N>
std::string ParseField(std::string_view text, const FieldSpec& f, std::bitset<N>& bits, bool& any) {
  any = false;
  const int max = f.max == 6 && f.names == kWeekdayNames ? 7 : f.max;  // weekday 7 = Sunday
  for (std::string_view part : Split(text, ',')) {
    const std::string where = std::string(f.name) + " \"" + std::string(part) + "\"";
    std::string_view range = part;
    int step = 1;
    if (const size_t slash = part.find('/'); slash != std::string_view::npos) {
      range = part.substr(0, slash);
      const std::string_view s = part.substr(slash + 1);
      FieldSpec plain{f.name, 1, 0, nullptr, false};
      const std::optional<int> v = Value(s, plain);
      if (!v || *v <= 0) return where + ": step must be a positive number";
      step = *v;
    }
    int lo = 0, hi = 0;
    if (range == "*" || (range == "?" && f.day_field)) {
      lo = f.min;
      hi = f.max;
      if (step == 1 && part.size() == range.size()) any = true;
    } else {
      const size_t dash = range.find('-');
      const std::optional<int> a = Value(range.substr(0, dash), f);
      if (!a) return where + ": not a value of " + f.name;
      lo = *a;
      if (dash != std::string_view::npos) {
        const std::optional<int> b = Value(range.substr(dash + 1), f);
        if (!b) return where + ": not a value of " + f.name;
        hi = *b;
      } else {
        hi = part.size() != range.size() ? f.max : lo;  // "5/20": from 5 to the end
      }
    }
    if (lo < f.min || hi > max || lo > hi) {
      return where + ": out of range " + std::to_string(f.min) + "-" + std::to_string(max);
    }
    for (int v = lo; v <= hi; v += step) bits.set(static_cast<size_t>(v == 7 && max == 7 ? 0 : v));
  }
  return "";
}

const FieldSpec kFields[] = {{"minute", 0, 59, nullptr, false},
                             {"hour", 0, 23, nullptr, false},
                             {"day of month", 1, 31, nullptr, true},
                             {"month", 1, 12, kMonthNames, false},
                             {"day of week", 0, 6, kWeekdayNames, true}};

std::string_view Descriptor(std::string_view text) {
  if (text == "@yearly" || text == "@annually") return "0 0 1 1 *";
  if (text == "@monthly") return "0 0 1 * *";
  if (text == "@weekly") return "0 0 * * 0";
  if (text == "@daily" || text == "@midnight") return "0 0 * * *";
  if (text == "@hourly") return "0 * * * *";
  return {};
}

constexpr long long kDay = 86400;

long long FloorDiv(long long a, long long b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

long long Seconds(Time t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

Time FromSeconds(long long s) { return Time(std::chrono::seconds(s)); }

// Calls `try_minute(utc)` for the schedule's minutes of local day `day` (days since the epoch,
// local), ascending or descending; stops when it returns true.
template <typename Fn>
bool ForMinutesOfDay(const CronSchedule& s, const ZoneRules& zone, long long day, bool ascending,
                     Fn try_minute) {
  const std::chrono::year_month_day ymd{std::chrono::sys_days{std::chrono::days{day}}};
  const int weekday = static_cast<int>(
      std::chrono::weekday{std::chrono::sys_days{std::chrono::days{day}}}.c_encoding());
  if (!s.MatchesDay(static_cast<int>(static_cast<unsigned>(ymd.month())),
                    static_cast<int>(static_cast<unsigned>(ymd.day())), weekday)) {
    return false;
  }
  for (int hi = 0; hi < 24; ++hi) {
    const int h = ascending ? hi : 23 - hi;
    if (!s.hours.test(static_cast<size_t>(h))) continue;
    for (int mi = 0; mi < 60; ++mi) {
      const int m = ascending ? mi : 59 - mi;
      if (!s.minutes.test(static_cast<size_t>(m))) continue;
      if (try_minute(zone.UtcOfWall(day * kDay + h * 3600 + m * 60))) return true;
    }
  }
  return false;
}

}  // namespace

bool CronSchedule::MatchesDay(int month, int day, int weekday) const {
  if (!months.test(static_cast<size_t>(month))) return false;
  const bool dom = days.test(static_cast<size_t>(day));
  const bool dow = weekdays.test(static_cast<size_t>(weekday));
  if (any_day || any_weekday) return dom && dow;
  return dom || dow;
}

std::optional<CronSchedule> ParseCron(std::string_view text, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<CronSchedule> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  if (!text.empty() && text.front() == '@') {
    const std::string_view expanded = Descriptor(text);
    if (expanded.empty()) {
      return fail("unknown descriptor \"" + std::string(text) +
                  "\" (supported: @yearly, @annually, @monthly, @weekly, @daily, @midnight, "
                  "@hourly)");
    }
    text = expanded;
  }
  std::vector<std::string_view> fields;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    const size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > start) fields.push_back(text.substr(start, i - start));
  }
  if (fields.size() != 5) {
    return fail("a schedule has 5 fields (minute hour day-of-month month day-of-week), not " +
                std::to_string(fields.size()));
  }
  CronSchedule s;
  bool any = false;
  std::string why = ParseField(fields[0], kFields[0], s.minutes, any);
  if (why.empty()) why = ParseField(fields[1], kFields[1], s.hours, any);
  if (why.empty()) why = ParseField(fields[2], kFields[2], s.days, s.any_day);
  if (why.empty()) why = ParseField(fields[3], kFields[3], s.months, any);
  if (why.empty()) why = ParseField(fields[4], kFields[4], s.weekdays, s.any_weekday);
  if (!why.empty()) return fail(why);
  return s;
}

std::optional<Time> NextCronMatch(const CronSchedule& schedule, const ZoneRules& zone, Time after,
                                  Time limit) {
  const long long from = Seconds(after), to = Seconds(limit);
  if (to <= from) return std::nullopt;
  // Local days, from the one before `after`'s (a repeated hour may reach back) to the one after
  // `limit`'s.
  const long long first = FloorDiv(from + zone.OffsetAt(from), kDay) - 1;
  const long long last = FloorDiv(to + zone.OffsetAt(to), kDay) + 1;
  std::optional<long long> found;
  for (long long day = first; day <= last && !found; ++day) {
    ForMinutesOfDay(schedule, zone, day, true, [&](long long utc) {
      if (utc > from && utc <= to) found = utc;
      return found.has_value();
    });
  }
  if (!found) return std::nullopt;
  return FromSeconds(*found);
}

std::optional<Time> LastCronMatch(const CronSchedule& schedule, const ZoneRules& zone, Time at,
                                  Time not_before) {
  const long long to = Seconds(at), from = Seconds(not_before);
  if (to < from) return std::nullopt;
  const long long last = FloorDiv(to + zone.OffsetAt(to), kDay) + 1;
  const long long first = FloorDiv(from + zone.OffsetAt(from), kDay) - 1;
  std::optional<long long> found;
  for (long long day = last; day >= first && !found; --day) {
    ForMinutesOfDay(schedule, zone, day, false, [&](long long utc) {
      if (utc <= to && utc >= from) found = utc;
      return found.has_value();
    });
  }
  if (!found) return std::nullopt;
  return FromSeconds(*found);
}

}  // namespace fleetwave::engine
