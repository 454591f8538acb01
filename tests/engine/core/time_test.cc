#include "engine/time.h"

#include <gtest/gtest.h>

namespace fleetwave::engine {
namespace {

TEST(Rfc3339, ParsesUtcAndFormatsBack) {
  auto t = ParseRfc3339("2026-03-01T12:00:00Z");
  ASSERT_TRUE(t);
  EXPECT_EQ(FormatRfc3339(*t), "2026-03-01T12:00:00Z");
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
