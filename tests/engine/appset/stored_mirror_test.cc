// engine/appset/stored_mirror.h: which records a decision writes (each write is an fsync) and how
// a committed change lands in the mirror.
#include "engine/appset/stored_mirror.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/rollingsync/rollout_status.h"

namespace fleetwave::engine {
namespace {

Json Entry(const std::string& app, const std::string& status) {
  return {{"application", app}, {"status", status}, {"step", "1"}};
}

OperationRecord Op(const std::string& id, const std::string& message = "") {
  OperationRecord r;
  r.id = id;
  r.message = message;
  return r;
}

// A mirror holding apps a (Healthy) and b (Waiting), one condition and a rollout.
StoredMirror TwoApps() {
  StoredMirror m;
  m.statuses["a"] = Entry("a", "Healthy");
  m.statuses["b"] = Entry("b", "Waiting");
  m.conditions = Json::array({{{"type", "ErrorOccurred"}, {"status", "False"}}});
  m.rollout = Json{{"generation", 1}};
  m.stored["a"].spec = Json{{"project", "default"}};
  m.stored["a"].spec_fingerprint = 42;
  m.stored["a"].operation = Op("a-1");
  m.stored["b"].spec = Json{{"project", "default"}};
  return m;
}

// The result of a decision that finds the mirror as it is.
AppSetReconcileResult SameAs(const StoredMirror& m) {
  AppSetReconcileResult r;
  r.status = StoredStatusJson(m);
  return r;
}

std::vector<std::string> Keys(const std::map<std::string, Json>& m) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : m) keys.push_back(k);
  return keys;
}

TEST(ChangeOfDecision, StatusEntriesWrittenOnlyWhenNewOrDifferent) {
  const StoredMirror m = TwoApps();
  struct Case {
    std::string name;
    Json entries;
    std::vector<std::string> written;
  };
  const std::vector<Case> cases = {
      {"unchanged", Json::array({Entry("a", "Healthy"), Entry("b", "Waiting")}), {}},
      {"changed", Json::array({Entry("a", "Healthy"), Entry("b", "Pending")}), {"b"}},
      {"new",
       Json::array({Entry("a", "Healthy"), Entry("b", "Waiting"), Entry("c", "Waiting")}),
       {"c"}},
      {"unnamed entry skipped",
       Json::array({Entry("a", "Healthy"), Json{{"status", "Healthy"}}}),
       {}},
  };
  for (const auto& c : cases) {
    AppSetReconcileResult r = SameAs(m);
    r.status["applicationStatus"] = c.entries;
    const DecisionChange d = ChangeOfDecision(m, r);
    EXPECT_EQ(Keys(d.change.statuses), c.written) << c.name;
    for (const auto& app : c.written) {
      EXPECT_EQ(d.change.statuses.at(app), r.status["applicationStatus"][app == "c" ? 2 : 1])
          << c.name;
    }
  }
}

TEST(ChangeOfDecision, PresentListsEveryNamedEntryChangedOrNot) {
  const StoredMirror m = TwoApps();
  AppSetReconcileResult r = SameAs(m);
  r.status["applicationStatus"].push_back(Entry("c", "Waiting"));
  r.status["applicationStatus"].push_back(Json{{"application", 7}});
  const DecisionChange d = ChangeOfDecision(m, r);
  EXPECT_EQ(d.present, (std::set<std::string>{"a", "b", "c"}));
}

TEST(ChangeOfDecision, ConditionsDefaultToEmptyListAndAreWrittenOnlyWhenDifferent) {
  const Json one = Json::array({{{"type", "ErrorOccurred"}, {"status", "False"}}});
  const Json other = Json::array({{{"type", "ErrorOccurred"}, {"status", "True"}}});
  struct Case {
    std::string name;
    Json mirror_conditions;
    std::optional<Json> decided;  // nullopt: the status has no conditions member
    std::optional<Json> written;
  };
  const std::vector<Case> cases = {
      {"same list", one, one, std::nullopt},
      {"different list", one, other, other},
      {"missing, mirror has some", one, std::nullopt, Json::array()},
      {"not a list, mirror has some", one, Json("oops"), Json::array()},
      {"missing, mirror empty", Json::array(), std::nullopt, std::nullopt},
      {"not a list, mirror empty", Json::array(), Json::object(), std::nullopt},
  };
  for (const auto& c : cases) {
    StoredMirror m = TwoApps();
    m.conditions = c.mirror_conditions;
    AppSetReconcileResult r = SameAs(m);
    r.status.erase("conditions");
    if (c.decided) r.status["conditions"] = *c.decided;
    EXPECT_EQ(ChangeOfDecision(m, r).change.conditions, c.written) << c.name;
  }
}

TEST(ChangeOfDecision, RolloutWrittenOnlyWhenAnObjectThatDiffers) {
  const Json g1 = Json{{"generation", 1}};
  const Json g2 = Json{{"generation", 2}};
  struct Case {
    std::string name;
    std::optional<Json> mirror_rollout;
    std::optional<Json> decided;
    std::optional<Json> written;
  };
  const std::vector<Case> cases = {
      {"same object", g1, g1, std::nullopt},
      {"different object", g1, g2, g2},
      {"first one", std::nullopt, g1, g1},
      {"missing", g1, std::nullopt, std::nullopt},
      {"not an object", g1, Json::array(), std::nullopt},
      {"null, none stored", std::nullopt, Json(nullptr), std::nullopt},
  };
  for (const auto& c : cases) {
    StoredMirror m = TwoApps();
    m.rollout = c.mirror_rollout;
    AppSetReconcileResult r = SameAs(m);
    r.status.erase("rollout");
    if (c.decided) r.status["rollout"] = *c.decided;
    EXPECT_EQ(ChangeOfDecision(m, r).change.rollout, c.written) << c.name;
  }
}

TEST(ChangeOfDecision, EverySpecAndEveryStartIsWrittenEvenWhenTheMirrorHasIt) {
  const StoredMirror m = TwoApps();
  AppSetReconcileResult r = SameAs(m);
  r.specs["a"] = *m.stored.at("a").spec;  // the same spec: written anyway
  r.specs["c"] = Json{{"project", "other"}};
  r.starts.push_back({"a", SyncStartTrigger::kRollout, Op("a-1")});  // same id as the mirror's
  r.starts.push_back({"b", SyncStartTrigger::kRollout, Op("b-1")});
  const MirrorChange c = ChangeOfDecision(m, r).change;
  EXPECT_EQ(c.specs, r.specs);
  ASSERT_EQ(c.operations.size(), 2u);
  EXPECT_EQ(c.operations.at("a").id, "a-1");
  EXPECT_EQ(c.operations.at("b").id, "b-1");
  EXPECT_TRUE(c.statuses.empty());
  EXPECT_FALSE(c.conditions);
  EXPECT_FALSE(c.rollout);
}

TEST(ChangeOfDelta, WritesWhatTheDeltaFlagsWithConditionsAndRolloutFromTheStatus) {
  AppSetDelta d;
  AppRolloutStatus entry;
  entry.application = "b";
  entry.status = RolloutAppState::kPending;
  entry.step = "1";
  d.changed_entries.push_back(entry);
  d.specs["b"] = Json{{"project", "default"}};
  d.starts.push_back({"b", SyncStartTrigger::kRollout, Op("b-2")});
  const Json status = {{"conditions", Json::array({{{"type", "RolloutProgressing"}}})},
                       {"rollout", {{"generation", 3}}}};

  MirrorChange none = ChangeOfDelta(d, status);
  EXPECT_FALSE(none.conditions) << "conditions not flagged: not written";
  EXPECT_FALSE(none.rollout) << "rollout not flagged: not written";
  EXPECT_EQ(Keys(none.statuses), std::vector<std::string>{"b"});
  EXPECT_EQ(none.statuses.at("b"), EncodeAppRolloutStatus(entry));
  EXPECT_EQ(none.specs, d.specs);
  ASSERT_EQ(none.operations.count("b"), 1u);
  EXPECT_EQ(none.operations.at("b").id, "b-2");

  d.conditions.emplace();
  d.rollout.emplace();
  MirrorChange both = ChangeOfDelta(d, status);
  EXPECT_EQ(both.conditions, status["conditions"]);
  EXPECT_EQ(both.rollout, status["rollout"]);
}

TEST(ApplyChange, KeepsTheMirrorsOperationWithTheSameIdAndTakesANewId) {
  struct Case {
    std::string name;
    std::string decided_id;
    std::string kept_message;
  };
  // The mirror's a-1 ended ("done") while the decision holding a-1 as Running was committed.
  const std::vector<Case> cases = {
      {"same id: the mirror's newer record stays", "a-1", "done"},
      {"new id: the decision's start replaces it", "a-2", "started"},
  };
  for (const auto& c : cases) {
    StoredMirror m = TwoApps();
    m.stored["a"].operation = Op("a-1", "done");
    MirrorChange change;
    change.operations["a"] = Op(c.decided_id, "started");
    const MirrorUpdated updated = ApplyChange(m, change);
    ASSERT_TRUE(m.stored.at("a").operation) << c.name;
    EXPECT_EQ(m.stored.at("a").operation->id, c.decided_id) << c.name;
    EXPECT_EQ(m.stored.at("a").operation->message, c.kept_message) << c.name;
    EXPECT_EQ(updated.operations, std::vector<std::string>{"a"}) << c.name;
  }
}

TEST(ApplyChange, AnOperationForAnAppWithoutOneIsTaken) {
  StoredMirror m = TwoApps();
  MirrorChange change;
  change.operations["b"] = Op("b-1");
  ApplyChange(m, change);
  ASSERT_TRUE(m.stored.at("b").operation);
  EXPECT_EQ(m.stored.at("b").operation->id, "b-1");
}

TEST(ApplyChange, RemovedAppsAreErased) {
  StoredMirror m = TwoApps();
  MirrorChange change;
  change.removed = {"a"};
  ApplyChange(m, change);
  EXPECT_EQ(m.statuses.count("a"), 0u);
  EXPECT_EQ(m.stored.count("a"), 0u);
  EXPECT_EQ(m.statuses.count("b"), 1u);
  EXPECT_EQ(m.stored.count("b"), 1u);
}

TEST(ApplyChange, ASpecResetsTheFingerprintAndIsReported) {
  StoredMirror m = TwoApps();
  MirrorChange change;
  change.specs["a"] = Json{{"project", "other"}};
  const MirrorUpdated updated = ApplyChange(m, change);
  EXPECT_EQ(m.stored.at("a").spec, (Json{{"project", "other"}}));
  EXPECT_EQ(m.stored.at("a").spec_fingerprint, 0u);
  EXPECT_EQ(updated.specs, std::vector<std::string>{"a"});
  EXPECT_TRUE(updated.operations.empty());
  ASSERT_TRUE(m.stored.at("a").operation) << "a spec leaves the operation alone";
  EXPECT_EQ(m.stored.at("a").operation->id, "a-1");
}

TEST(ApplyChange, StatusesConditionsAndRolloutReplaceTheMirrorsAndAbsentOnesKeepIt) {
  StoredMirror m = TwoApps();
  const Json conditions = m.conditions;
  MirrorChange change;
  change.statuses["b"] = Entry("b", "Pending");
  change.rollout = Json{{"generation", 2}};
  ApplyChange(m, change);
  EXPECT_EQ(m.statuses.at("b"), Entry("b", "Pending"));
  EXPECT_EQ(m.statuses.at("a"), Entry("a", "Healthy"));
  EXPECT_EQ(m.rollout, (Json{{"generation", 2}}));
  EXPECT_EQ(m.conditions, conditions);

  change = {};
  change.conditions = Json::array();
  ApplyChange(m, change);
  EXPECT_EQ(m.conditions, Json::array());
  EXPECT_EQ(m.rollout, (Json{{"generation", 2}}));
}

TEST(ApplyChange, AnAppliedDecisionChangesNothingWhenDecidedAgain) {
  StoredMirror m = TwoApps();
  AppSetReconcileResult r = SameAs(m);
  r.status["applicationStatus"][1] = Entry("b", "Pending");
  r.status["rollout"] = Json{{"generation", 2}};
  r.status["conditions"] = Json::array();
  ApplyChange(m, ChangeOfDecision(m, r).change);
  const MirrorChange again = ChangeOfDecision(m, r).change;
  EXPECT_TRUE(again.statuses.empty());
  EXPECT_FALSE(again.conditions);
  EXPECT_FALSE(again.rollout);
}

}  // namespace
}  // namespace fleetwave::engine
