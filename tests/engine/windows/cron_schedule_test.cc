// The cron matcher of sync windows (engine/cron_schedule.h) as tables: what parses, what a
// schedule matches, and where its next and last minutes fall, in UTC and across a zone's
// daylight-saving changes.
#include <string>

#include <gtest/gtest.h>

#include "engine/cron_schedule.h"

namespace fleetwave::engine {
namespace {

Time T(const char* text) { return *ParseRfc3339(text); }

CronSchedule Cron(const char* text) {
  std::string why;
  auto s = ParseCron(text, &why);
  EXPECT_TRUE(s) << text << ": " << why;
  return s.value_or(CronSchedule{});
}

TEST(CronScheduleTest, RefusesWhatCronRefuses) {
  struct Row {
    const char* text;
    const char* why;
  };
  for (const Row& row :
       {Row{"* * * *", "5 fields"}, Row{"* * * * * *", "5 fields"},
        Row{"60 * * * *", "minute \"60\": out of range 0-59"},
        Row{"* 24 * * *", "hour \"24\": out of range"},
        Row{"* * 0 * *", "day of month \"0\": out of range"}, Row{"* * * 13 *", "month \"13\""},
        Row{"* * * * 8", "day of week \"8\""}, Row{"*/0 * * * *", "step must be a positive number"},
        Row{"5-1 * * * *", "out of range"}, Row{"? * * * *", "not a value"},
        Row{"* * * FOO *", "not a value of month"}, Row{"@every 1h", "unknown descriptor"},
        Row{"", "5 fields"}}) {
    std::string why;
    EXPECT_FALSE(ParseCron(row.text, &why)) << row.text;
    EXPECT_NE(why.find(row.why), std::string::npos) << row.text << " -> " << why;
  }
}

TEST(CronScheduleTest, NextMatchInUtc) {
  const ZoneRules utc;
  struct Row {
    const char* schedule;
    const char* after;
    const char* next;
  };
  for (const Row& row : {
           Row{"0 22 * * *", "2026-03-02T10:00:00Z", "2026-03-02T22:00:00Z"},
           Row{"0 22 * * *", "2026-03-02T22:00:00Z", "2026-03-03T22:00:00Z"},  // strictly after
           Row{"*/15 * * * *", "2026-03-02T10:07:30Z", "2026-03-02T10:15:00Z"},
           Row{"10-40/10 9 * * *", "2026-03-02T09:21:00Z", "2026-03-02T09:30:00Z"},
           Row{"5/20 * * * *", "2026-03-02T09:46:00Z", "2026-03-02T10:05:00Z"},
           Row{"0 0 * * MON-fri", "2026-03-06T12:00:00Z", "2026-03-09T00:00:00Z"},  // Fri->Mon
           Row{"0 0 * * 7", "2026-03-02T00:00:00Z", "2026-03-08T00:00:00Z"},        // 7 = Sunday
           Row{"0 0 29 2 *", "2026-03-01T00:00:00Z", "2028-02-29T00:00:00Z"},
           Row{"30 10 1,15 jan,JUL *", "2026-03-02T00:00:00Z", "2026-07-01T10:30:00Z"},
           // Both day fields restricted: either matches (the 13th, or any Friday).
           Row{"0 0 13 * 5", "2026-03-02T00:00:00Z", "2026-03-06T00:00:00Z"},
           Row{"0 0 13 * 5", "2026-03-07T00:00:00Z", "2026-03-13T00:00:00Z"},
           // One restricted, the other '?': both must (here: only the day of month counts).
           Row{"0 0 13 * ?", "2026-03-02T00:00:00Z", "2026-03-13T00:00:00Z"},
           Row{"@daily", "2026-03-02T10:00:00Z", "2026-03-03T00:00:00Z"},
           Row{"@hourly", "2026-03-02T10:00:00Z", "2026-03-02T11:00:00Z"},
       }) {
    auto next = NextCronMatch(Cron(row.schedule), utc, T(row.after), T("2031-01-01T00:00:00Z"));
    ASSERT_TRUE(next) << row.schedule << " after " << row.after;
    EXPECT_EQ(FormatRfc3339(*next), row.next) << row.schedule << " after " << row.after;
  }
  EXPECT_FALSE(
      NextCronMatch(Cron("0 0 30 2 *"), utc, T("2026-03-02T00:00:00Z"), T("2031-01-01T00:00:00Z")));
  EXPECT_FALSE(NextCronMatch(Cron("0 22 * * *"), utc, T("2026-03-02T10:00:00Z"),
                             T("2026-03-02T21:59:59Z")));  // past the limit
}

TEST(CronScheduleTest, LastMatchInUtc) {
  const ZoneRules utc;
  auto last =
      LastCronMatch(Cron("0 22 * * *"), utc, T("2026-03-03T21:59:00Z"), T("2026-03-01T00:00:00Z"));
  ASSERT_TRUE(last);
  EXPECT_EQ(FormatRfc3339(*last), "2026-03-02T22:00:00Z");
  last =
      LastCronMatch(Cron("0 22 * * *"), utc, T("2026-03-03T22:00:00Z"), T("2026-03-01T00:00:00Z"));
  ASSERT_TRUE(last);
  EXPECT_EQ(FormatRfc3339(*last), "2026-03-03T22:00:00Z");  // at counts
  EXPECT_FALSE(
      LastCronMatch(Cron("0 22 * * *"), utc, T("2026-03-03T21:59:00Z"), T("2026-03-02T22:00:01Z")));
}

// Berlin in 2026: CET (+1) until 2026-03-29T01:00Z, CEST (+2) until 2026-10-25T01:00Z.
ZoneRules Berlin() {
  ZoneRules z;
  z.name = "Europe/Berlin";
  z.initial_offset = 3600;
  z.transitions = {1774746000, 1792890000};
  z.offsets = {7200, 3600};
  return z;
}

TEST(CronScheduleTest, MatchesLocalTimeAcrossDaylightSaving) {
  const ZoneRules berlin = Berlin();
  // 22:00 Berlin is 21:00Z in winter and 20:00Z in summer.
  auto next = NextCronMatch(Cron("0 22 * * *"), berlin, T("2026-03-28T12:00:00Z"),
                            T("2027-01-01T00:00:00Z"));
  ASSERT_TRUE(next);
  EXPECT_EQ(FormatRfc3339(*next), "2026-03-28T21:00:00Z");
  next = NextCronMatch(Cron("0 22 * * *"), berlin, *next, T("2027-01-01T00:00:00Z"));
  ASSERT_TRUE(next);
  EXPECT_EQ(FormatRfc3339(*next), "2026-03-29T20:00:00Z");
  // 02:30 does not exist on 2026-03-29 in Berlin: the match falls past the gap (01:30Z = 03:30).
  next = NextCronMatch(Cron("30 2 * * *"), berlin, T("2026-03-28T12:00:00Z"),
                       T("2027-01-01T00:00:00Z"));
  ASSERT_TRUE(next);
  EXPECT_EQ(FormatRfc3339(*next), "2026-03-29T01:30:00Z");
  // 02:30 happens twice on 2026-10-25: the first one (00:30Z, still summer time) counts.
  next = NextCronMatch(Cron("30 2 * * *"), berlin, T("2026-10-24T12:00:00Z"),
                       T("2027-01-01T00:00:00Z"));
  ASSERT_TRUE(next);
  EXPECT_EQ(FormatRfc3339(*next), "2026-10-25T00:30:00Z");
}

}  // namespace
}  // namespace fleetwave::engine
