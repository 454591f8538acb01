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

#include "engine/plan_input.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> VectorFiles() {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(FLEETWAVE_VECTORS_DIR "/plan")) {
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

Json ReadJson(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  return Json::parse(buf.str());
}

// Follows a dotted path ("sync.revision", "retry.limit") through objects.
const Json* At(const Json& doc, const std::string& dotted) {
  const Json* cur = &doc;
  std::stringstream parts(dotted);
  std::string key;
  while (std::getline(parts, key, '.')) {
    if (!cur->is_object() || !cur->contains(key)) return nullptr;
    cur = &(*cur)[key];
  }
  return cur;
}

void ExpectMatches(const Json& expect, const Json& out) {
  const Json& status = out["status"];
  if (expect.contains("applicationStatus")) {
    const Json& want = expect["applicationStatus"];
    const Json& got = status["applicationStatus"];
    ASSERT_EQ(got.size(), want.size()) << "applicationStatus: " << got.dump();
    for (size_t i = 0; i < want.size(); ++i) {
      for (const auto& [field, value] : want[i].items()) {
        EXPECT_EQ(got[i].value(field, Json()), value)
            << "applicationStatus[" << i << "]." << field << " in " << got[i].dump();
      }
    }
  }
  if (expect.contains("appsToSync")) {
    EXPECT_EQ(out["appsToSync"], expect["appsToSync"]);
  }
  if (expect.contains("steps")) {
    EXPECT_EQ(out["steps"], expect["steps"]);
  }
  if (expect.contains("conditions")) {
    for (const auto& [type, want] : expect["conditions"].items()) {
      const Json* found = nullptr;
      for (const auto& c : status["conditions"]) {
        if (c["type"] == type) found = &c;
      }
      ASSERT_NE(found, nullptr) << "condition " << type << " missing";
      for (const auto& [field, value] : want.items()) {
        EXPECT_EQ((*found).value(field, Json()), value) << "condition " << type << "." << field;
      }
    }
  }
  if (expect.contains("absentConditions")) {
    for (const auto& type : expect["absentConditions"]) {
      for (const auto& c : status["conditions"]) {
        EXPECT_NE(c["type"], type) << "condition " << type << " must be absent";
      }
    }
  }
  if (expect.contains("operations")) {
    for (const auto& [app, paths] : expect["operations"].items()) {
      ASSERT_TRUE(out["operations"].contains(app)) << "no operation for " << app;
      const Json& op = out["operations"][app];
      for (const auto& [path, value] : paths.items()) {
        const Json* got = At(op, path);
        ASSERT_NE(got, nullptr) << app << ": " << path << " missing in " << op.dump();
        EXPECT_EQ(*got, value) << app << ": " << path;
      }
    }
  }
}

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

// Idempotence (rollingsync.md, issue 3): the plan's own status fed back with the same live
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
