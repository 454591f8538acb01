// Stored records are read strictly (issue 30): a field of the wrong type is an issue naming
// the field, never a default. `paused: "yes"` is an error, not "not paused"; a deletion or
// operation record with a wrong-typed field is not used at all. Every record the encoders
// write decodes without an issue.
#include <gtest/gtest.h>

#include "engine/deletion/deletion_state.h"
#include "engine/rollingsync/rollout_conditions.h"
#include "engine/rollingsync/rollout_plan.h"
#include "engine/rollingsync/rollout_state.h"
#include "engine/rollingsync/rollout_status.h"
#include "engine/sync/operation_record.h"

namespace fleetwave::engine {
namespace {

Time T(const char* rfc3339) { return *ParseRfc3339(rfc3339); }

std::vector<std::string> Formatted(const Issues& issues) {
  std::vector<std::string> out;
  for (const auto& i : issues) out.push_back(FormatIssue(i));
  return out;
}

TEST(StoredStateStrict, PausedYesIsAnErrorNotNotPaused) {
  Issues issues;
  const RolloutState s = DecodeRolloutState(Json::parse(R"({"paused": "yes", "step": 1})"), issues);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "status.rollout.paused");
  EXPECT_EQ(issues[0].message, "must be a boolean, not a string");
  EXPECT_EQ(s.step, 1);
}

TEST(StoredStateStrict, EveryRolloutFieldIsChecked) {
  Issues issues;
  DecodeRolloutState(Json::parse(R"({"generation": "2", "stepDeadlineExceeded": 1,
                                     "pausedSeconds": 1.5, "skipped": {"a": 5}})"),
                     issues);
  std::vector<std::string> paths;
  for (const auto& i : issues) paths.push_back(i.path + ": " + i.message);
  EXPECT_EQ(paths, (std::vector<std::string>{
                       "status.rollout.generation: must be an integer, not a string",
                       "status.rollout.pausedSeconds: must be an integer, not a number",
                       "status.rollout.stepDeadlineExceeded: must be a boolean, not a number",
                       "status.rollout.skipped.a: must be a string (the reason), not a number",
                   }))
      << ::testing::PrintToString(Formatted(issues));
  issues.clear();
  DecodeRolloutState(Json::parse(R"({"skipped": ["a"]})"), issues);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "status.rollout.skipped");
}

TEST(StoredStateStrict, TheStoredStatusNamesWrongTypedEntries) {
  Issues issues;
  DecodeStoredRolloutStatus(
      Json::parse(R"({"applicationStatus": [{"application": "a", "status": "Healthy",
                                             "targetRevisions": [5]}],
                      "conditions": [{"type": "RolloutProgressing", "status": false}],
                      "rollout": {"paused": "yes"}})"),
      issues);
  std::vector<std::string> paths;
  for (const auto& i : issues) paths.push_back(i.path);
  EXPECT_EQ(paths,
            (std::vector<std::string>{"status.applicationStatus[0].targetRevisions[0]",
                                      "status.conditions[0].status", "status.rollout.paused"}))
      << ::testing::PrintToString(Formatted(issues));
}

DeletionRecord ARecord() {
  DeletionRecord r = MarkPending(T("2026-03-01T12:00:00Z"), std::chrono::seconds(60), "gone");
  r.apps = {{"a", "dev", {{"env", "dev"}}, {{"apps/v1", "Deployment"}}}};
  r.gone = {"b"};
  r.step = 1;
  return r;
}

TEST(StoredStateStrict, AnEncodedDeletionRecordDecodesWithoutIssues) {
  Issues issues;
  auto decoded = DecodeDeletionRecord(EncodeDeletionRecord(ARecord()), issues);
  EXPECT_TRUE(issues.empty()) << ::testing::PrintToString(Formatted(issues));
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->apps, ARecord().apps);
}

TEST(StoredStateStrict, AWrongTypedDeletionFieldMakesTheRecordUnusable) {
  struct Case {
    const char* field;
    Json value;
    const char* path;
  };
  for (const Case& c : std::vector<Case>{
           {"preserveResources", "yes", "deletion.preserveResources"},
           {"step", "2", "deletion.step"},
           {"gone", Json::array({5}), "deletion.gone[0]"},
           {"reason", 5, "deletion.reason"},
           {"apps", Json::object(), "deletion.apps"},
       }) {
    Json stored = EncodeDeletionRecord(ARecord());
    stored[c.field] = c.value;
    Issues issues;
    EXPECT_FALSE(DecodeDeletionRecord(stored, issues)) << c.field;
    ASSERT_EQ(issues.size(), 1u) << c.field << ::testing::PrintToString(Formatted(issues));
    EXPECT_EQ(issues[0].path, c.path);
  }
  Json stored = EncodeDeletionRecord(ARecord());
  stored["apps"][0]["labels"]["env"] = 1;
  Issues issues;
  EXPECT_FALSE(DecodeDeletionRecord(stored, issues));
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "deletion.apps[0].labels.env");
}

TEST(StoredStateStrict, AWrongTypedOperationFieldMakesTheRecordUnusable) {
  OperationRecord r =
      StartOperation("op-1", {{"sync", Json::object()}}, {"abc"}, T("2026-03-01T12:00:00Z"));
  r = FinishAttempt(r, {{{"apps", "Deployment", "web", "api"}, ObjectResultCode::kSynced, ""}},
                    std::nullopt, T("2026-03-01T12:00:05Z"));
  Issues issues;
  ASSERT_TRUE(OperationRecordFromJson(OperationRecordToJson(r), issues));
  EXPECT_TRUE(issues.empty()) << ::testing::PrintToString(Formatted(issues));

  struct Case {
    std::string pointer;
    Json value;
    const char* path;
  };
  for (const Case& c : std::vector<Case>{
           {"/retryCount", "3", "retryCount"},
           {"/message", false, "message"},
           {"/operation", "sync", "operation"},
           {"/syncResult/revision", 7, "syncResult.revision"},
           {"/syncResult/resources/0/name", 1, "syncResult.resources[0].name"},
       }) {
    Json stored = OperationRecordToJson(r);
    stored[Json::json_pointer(c.pointer)] = c.value;
    Issues found;
    EXPECT_FALSE(OperationRecordFromJson(stored, found)) << c.pointer;
    ASSERT_FALSE(found.empty()) << c.pointer;
    EXPECT_EQ(found[0].path, c.path);
  }
}

}  // namespace
}  // namespace fleetwave::engine
