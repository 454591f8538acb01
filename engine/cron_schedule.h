// A five-field cron schedule (minute hour day-of-month month day-of-week), as Argo CD's sync
// windows write it (issue 29), and where its matching minutes fall in a time zone. Pure: the
// zone's rules are a value (zone_rules.h). Pinned by tests/engine/windows/cron_schedule_test.cc.
//
// Fields: `*`, `?` (day fields), numbers, `a-b` ranges, `,` lists and `/step` (`*/15`,
// `10-40/10`, `5/20` = from 5 to the field's end); months JAN-DEC and weekdays SUN-SAT by name
// (any case); weekday 7 is Sunday too. As in cron (and Argo CD's parser), when both day fields
// are restricted a day matches either; when one is `*` or `?`, both must. Descriptors
// @yearly/@annually, @monthly, @weekly, @daily/@midnight and @hourly.
#pragma once

#include <bitset>
#include <optional>
#include <string>
#include <string_view>

#include "engine/rollingsync/zone_rules.h"
#include "engine/time.h"

namespace fleetwave::engine {

struct CronSchedule {
  std::bitset<60> minutes;
  std::bitset<24> hours;
  std::bitset<32> days;     // 1..31
  std::bitset<13> months;   // 1..12
  std::bitset<7> weekdays;  // 0 = Sunday
  bool any_day = true;      // day-of-month is * or ?
  bool any_weekday = true;  // day-of-week is * or ?

  // Whether the schedule selects this local calendar day (month, day of month, weekday).
  bool MatchesDay(int month, int day, int weekday) const;
};

// Parses a schedule; on failure returns nullopt and says why in `error`.
std::optional<CronSchedule> ParseCron(std::string_view text, std::string* error);

// The first matching minute strictly after `after` and no later than `limit`, in the zone's
// local time; nullopt when none (a schedule like "0 0 30 2 *" never matches).
std::optional<Time> NextCronMatch(const CronSchedule& schedule, const ZoneRules& zone, Time after,
                                  Time limit);

// The last matching minute at or before `at` and no earlier than `not_before`.
std::optional<Time> LastCronMatch(const CronSchedule& schedule, const ZoneRules& zone, Time at,
                                  Time not_before);

}  // namespace fleetwave::engine
