// engine/appset/stored_records.h: which stored record of a set cannot be used, and the mirror a
// first load makes of the records.
#include "engine/appset/stored_records.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/sync/operation_record.h"

namespace fleetwave::engine {
namespace {

Json Entry(const std::string& app, const std::string& status) {
  return {{"application", app}, {"status", status}, {"step", "1"}};
}

Json Operation(const std::string& id) {
  OperationRecord r;
  r.id = id;
  return OperationRecordToJson(r);
}

const StoredRecordNames kNames{[](const std::string& app) { return "ops/guestbook/" + app; },
                               "appsets/guestbook/"};

// Records that all decode: a and b with a status, a spec and an operation each.
struct Records {
  Json status_a = Entry("a", "Healthy"), status_b = Entry("b", "Waiting");
  Json spec_a = {{"project", "default"}}, spec_b = {{"project", "other"}};
  Json op_a = Operation("op-a"), op_b = Operation("op-b");
  Json conditions = Json::array({{{"type", "ErrorOccurred"}, {"status", "False"}}});
  Json rollout = {{"generation", 1}, {"step", 1}};

  StoredRecordsView View() const {
    StoredRecordsView v;
    v.statuses = {{"a", &status_a}, {"b", &status_b}};
    v.specs = {{"a", &spec_a}, {"b", &spec_b}};
    v.operations = {{"a", &op_a}, {"b", &op_b}};
    v.conditions = &conditions;
    v.rollout = &rollout;
    return v;
  }
};

TEST(StoredStateProblem, TheFirstRecordThatDoesNotDecodeNamedByItsKey) {
  struct Case {
    std::string name;
    void (*spoil)(Records&);
    std::string starts_with;  // "" = no problem
  };
  const std::vector<Case> cases = {
      {"every record decodes", [](Records&) {}, ""},
      {"an operation of the wrong type", [](Records& r) { r.op_b["id"] = 7; }, "ops/guestbook/b: "},
      {"the first operation in app order wins",
       [](Records& r) {
         r.op_a["id"] = 7;
         r.op_b["id"] = 8;
       },
       "ops/guestbook/a: "},
      {"an operation before a status",
       [](Records& r) {
         r.op_b["id"] = 7;
         r.status_a["application"] = 7;
       },
       "ops/guestbook/b: "},
      {"a status entry of the wrong type", [](Records& r) { r.status_a["application"] = 7; },
       "appsets/guestbook/ (stored status): "},
      {"a rollout of the wrong type", [](Records& r) { r.rollout["paused"] = "yes"; },
       "appsets/guestbook/ (stored status): "},
  };
  for (const auto& c : cases) {
    Records r;
    c.spoil(r);
    const std::string problem = StoredStateProblem(r.View(), kNames);
    if (c.starts_with.empty()) {
      EXPECT_EQ(problem, "") << c.name;
    } else {
      EXPECT_EQ(problem.rfind(c.starts_with, 0), 0u) << c.name << ": " << problem;
      EXPECT_GT(problem.size(), c.starts_with.size()) << c.name << ": the issue is named";
    }
  }
}

TEST(MirrorOfRecords, HoldsTheRecordsAndConditionsOnlyWhenTheyAreAList) {
  Records r;
  std::vector<std::string> log;
  StoredMirror m = MirrorOfRecords(r.View(), log);
  EXPECT_TRUE(log.empty());
  EXPECT_EQ(m.statuses.at("a"), r.status_a);
  EXPECT_EQ(m.statuses.at("b"), r.status_b);
  EXPECT_EQ(m.stored.at("b").spec, r.spec_b);
  ASSERT_TRUE(m.stored.at("a").operation.has_value());
  EXPECT_EQ(m.stored.at("a").operation->id, "op-a");
  EXPECT_EQ(m.conditions, r.conditions);
  EXPECT_EQ(m.rollout, r.rollout);

  r.conditions = Json{{"type", "ErrorOccurred"}};
  r.op_b["id"] = 7;
  StoredRecordsView no_rollout = r.View();
  no_rollout.rollout = nullptr;
  m = MirrorOfRecords(no_rollout, log);
  EXPECT_EQ(m.conditions, Json::array()) << "conditions that are not a list are not used";
  EXPECT_FALSE(m.rollout.has_value());
  EXPECT_FALSE(m.stored.at("b").operation.has_value());
  ASSERT_FALSE(log.empty()) << "an operation that does not decode is said";
  for (const auto& line : log) EXPECT_EQ(line.rfind("b: stored operation: ", 0), 0u) << line;
}

}  // namespace
}  // namespace fleetwave::engine
