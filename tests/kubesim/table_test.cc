#include "tools/kubesim/table.h"

#include <gtest/gtest.h>

namespace fleetwave::kubesim {
namespace {

TEST(HumanDurationTest, MatchesKubectlAges) {
  using std::chrono::hours;
  using std::chrono::minutes;
  using std::chrono::seconds;
  struct Case {
    Duration d;
    const char* want;
  } cases[] = {{seconds(0), "0s"},         {seconds(119), "119s"}, {seconds(150), "2m30s"},
               {minutes(5), "5m"},         {minutes(45), "45m"},   {hours(4) + minutes(7), "4h7m"},
               {hours(20), "20h"},         {hours(50), "2d2h"},    {hours(24 * 30), "30d"},
               {hours(24 * 365 * 3), "3y"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.want);
    EXPECT_EQ(HumanDuration(c.d), c.want);
  }
}

TEST(TableTest, NamespaceRowsShowPhase) {
  Json ns = {{"apiVersion", "v1"},
             {"kind", "Namespace"},
             {"metadata", {{"name", "team"}, {"creationTimestamp", "2026-01-01T00:00:00Z"}}},
             {"status", {{"phase", "Terminating"}}}};
  TimePoint now(std::chrono::seconds(1767225600 + 90));  // 90 s after creation
  Json t = ToTable(Resource(kNamespaces), {ns}, {{"resourceVersion", "7"}}, now, false);
  EXPECT_EQ(t["kind"], "Table");
  EXPECT_EQ(t["columnDefinitions"][1]["name"], "Status");
  EXPECT_EQ(t["rows"][0]["cells"], Json::array({"team", "Terminating", "90s"}));
  EXPECT_EQ(t["rows"][0]["object"]["kind"], "PartialObjectMetadata");
  EXPECT_TRUE(WantsTable("application/json;as=Table;v=v1;g=meta.k8s.io,application/json"));
  EXPECT_FALSE(WantsTable("application/json"));
}

}  // namespace
}  // namespace fleetwave::kubesim
