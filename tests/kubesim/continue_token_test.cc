#include "tools/kubesim/continue_token.h"

#include <gtest/gtest.h>

namespace fleetwave::kubesim {
namespace {

TEST(ContinueTokenTest, RoundTrips) {
  ContinueToken t{1234, "default/web", TimePoint(std::chrono::seconds(1'800'000'000))};
  auto back = ContinueToken::Decode(t.Encode());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->resource_version, 1234u);
  EXPECT_EQ(back->start_after, "default/web");
  EXPECT_EQ(back->issued, t.issued);
}

TEST(ContinueTokenTest, RejectsGarbage) {
  for (const char* bad : {"", "!!!", "bm90IGpzb24=", "eyJydiI6LTF9"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(ContinueToken::Decode(bad));
  }
}

TEST(ContinueTokenTest, ExpiresAfterTheWindow) {
  TimePoint issued(std::chrono::seconds(1000));
  ContinueToken t{1, "a/b", issued};
  const Duration window = std::chrono::minutes(5);
  EXPECT_FALSE(t.ExpiredAt(issued + std::chrono::minutes(5), window));
  EXPECT_TRUE(t.ExpiredAt(issued + std::chrono::minutes(5) + std::chrono::seconds(1), window));
}

}  // namespace
}  // namespace fleetwave::kubesim
