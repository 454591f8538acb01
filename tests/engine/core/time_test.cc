#include "engine/time.h"

#include <gtest/gtest.h>

namespace fleetwave::engine {
namespace {

TEST(Rfc3339, ParsesUtcAndFormatsBack) {
  auto t = ParseRfc3339("2026-03-01T12:00:00Z");
  ASSERT_TRUE(t);
  EXPECT_EQ(FormatRfc3339(*t), "2026-03-01T12:00:00Z");
}

TEST(Rfc3339, FormatsEveryFieldWithItsWidth) {
  struct Case {
    const char* name;
    long long unix_seconds;
    const char* want;
  };
  const Case cases[] = {
      {"the epoch", 0, "1970-01-01T00:00:00Z"},
      {"single digits padded", 1'012'615'509, "2002-02-02T02:05:09Z"},
      {"last second of a year", 1'798'761'599, "2026-12-31T23:59:59Z"},
      {"leap day", 1'709'164'800, "2024-02-29T00:00:00Z"},
      {"before the epoch", -1, "1969-12-31T23:59:59Z"},
      {"a three-digit year", -49'981'104'000, "0386-03-01T00:00:00Z"},
      {"a five-digit year", 253'402'300'800, "10000-01-01T00:00:00Z"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(FormatRfc3339(FromUnixSeconds(c.unix_seconds)), c.want);
  }
}

TEST(Rfc3339, FractionalSecondsAreKeptInValueAndTruncatedInOutput) {
  auto a = ParseRfc3339("2026-03-01T12:00:00.250Z");
  auto b = ParseRfc3339("2026-03-01T12:00:00Z");
  ASSERT_TRUE(a && b);
  EXPECT_EQ((*a - *b).count(), 250000);
  EXPECT_EQ(FormatRfc3339(*a), "2026-03-01T12:00:00Z");
}

TEST(Rfc3339, OffsetsAreConvertedToUtc) {
  auto t = ParseRfc3339("2026-03-01T14:30:00+02:30");
  ASSERT_TRUE(t);
  EXPECT_EQ(FormatRfc3339(*t), "2026-03-01T12:00:00Z");
}

TEST(Rfc3339, RejectsMalformedText) {
  for (const char* bad : {"", "2026-03-01", "2026-03-01T12:00:00", "2026-13-01T12:00:00Z",
                          "2026-02-30T12:00:00Z", "2026-03-01T12:00:00.Z", "yesterday"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(ParseRfc3339(bad));
  }
}

}  // namespace
}  // namespace fleetwave::engine
