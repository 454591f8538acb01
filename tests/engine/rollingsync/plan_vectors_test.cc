// Conformance: every vector in spec/vectors/plan through engine::RunPlanOnText, the code path
// of `fleetwave plan` after reading the files. Only what each vector's `expect` lists is
// compared (vectors/README.md).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/appset/plan_input.h"
#include "engine/yaml_json.h"
#include "tests/engine/rollingsync/plan_oracle.h"
#include "tests/engine/rollingsync/vector_expect.h"

namespace fleetwave::engine {
namespace {

namespace fs = std::filesystem;
using namespace vector_expect;

class PlanVector : public testing::TestWithParam<std::string> {};

TEST_P(PlanVector, MatchesExpect) {
  const Json vector = ReadJson(GetParam());
  const std::string id = vector["id"];
  SCOPED_TRACE(id + ": " + vector.value("derivedFrom", ""));
  auto now = ParseRfc3339(vector["now"].get<std::string>());
  ASSERT_TRUE(now);
  PlanRun run = RunPlanOnText(vector["appset"].dump(), id + "/appset.json", vector["apps"].dump(),
                              id + "/apps.json", *now);
  for (const auto& issue : run.issues) ADD_FAILURE() << FormatIssue(issue);
  ASSERT_TRUE(run.result);
  ExpectMatches(vector["expect"], PlanOutputJson(*run.result));
}

// Idempotence: the plan's own status fed back with the same live
// apps at the same `now` yields the same output, for every conformance input.
TEST_P(PlanVector, PlanningAgainOnItsOwnOutputChangesNothing) {
  Json vector = ReadJson(GetParam());
  const std::string id = vector["id"];
  const Time now = *ParseRfc3339(vector["now"].get<std::string>());
  PlanRun first = RunPlanOnText(vector["appset"].dump(), id + "/appset.json", vector["apps"].dump(),
                                id + "/apps.json", now);
  ASSERT_TRUE(first.result);
  const Json out = PlanOutputJson(*first.result);
  vector["appset"]["status"] = out["status"];
  PlanRun second = RunPlanOnText(vector["appset"].dump(), id + "/appset.json",
                                 vector["apps"].dump(), id + "/apps.json", now);
  ASSERT_TRUE(second.result);
  EXPECT_EQ(PlanOutputJson(*second.result), out);
}

// The incremental RolloutTracker loaded from the vector's stored status decides as Plan does, and
// so does it again after the decision is fed back (issue 25: every vector through both paths).
TEST_P(PlanVector, RolloutTrackerDecidesAsPlan) {
  const Json vector = ReadJson(GetParam());
  const std::string id = vector["id"];
  const Time now = *ParseRfc3339(vector["now"].get<std::string>());
  PlanInputs in = DecodePlanInputs(vector["appset"].dump(), id + "/appset.json",
                                   vector["apps"].dump(), id + "/apps.json");
  ASSERT_TRUE(in.appset);
  const PlanResult first = testing_builders::PlanChecked(*in.appset, in.desired, in.live, now);
  in.appset->status = PlanStatusJson(first);
  testing_builders::PlanChecked(*in.appset, in.desired, in.live, now + std::chrono::seconds(30));
}

INSTANTIATE_TEST_SUITE_P(Conformance, PlanVector, testing::ValuesIn(VectorFiles()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return fs::path(info.param).stem().string();
                         });

TEST(PlanVectors, AllSixtyFiveArePresent) {
  // A vector directory that silently lost files would make the suite above pass vacuously.
  EXPECT_EQ(VectorFiles().size(), 65u);
}

}  // namespace
}  // namespace fleetwave::engine
