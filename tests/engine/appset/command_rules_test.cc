// engine/appset/command_rules.h: what a rollout command is refused with before the rollout state
// is looked at, and what a command whose commit failed answers.
#include "engine/appset/command_rules.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fleetwave::engine {
namespace {

RolloutCommandFacts Loaded() {
  RolloutCommandFacts f;
  f.appset = "guestbook";
  f.mirror_loaded = true;
  f.has_generation = true;
  return f;
}

TEST(RolloutCommandWhat, NamesTheCommandAndTheCaller) {
  EXPECT_EQ(RolloutCommandWhat(RolloutCommand::kSkip, "alice"), "skip by alice");
  EXPECT_EQ(RolloutCommandWhat(RolloutCommand::kRollback, "cli"), "rollback by cli");
}

TEST(RolloutCommandWaitsForLoad, UntilTheStoredStateIsLoadedUnlessTheSetIsBeingDeleted) {
  struct Case {
    bool mirror_loaded, deleting, waits;
  };
  const std::vector<Case> cases = {
      {false, false, true}, {true, false, false}, {false, true, false}, {true, true, false}};
  for (const auto& c : cases) {
    RolloutCommandFacts f = Loaded();
    f.mirror_loaded = c.mirror_loaded;
    f.deleting = c.deleting;
    EXPECT_EQ(RolloutCommandWaitsForLoad(f), c.waits) << c.mirror_loaded << c.deleting;
  }
}

TEST(RefuseRolloutCommand, NeedsOnlyTheStoredStateAndASkipNamesAnAppOfTheLastGeneration) {
  struct Case {
    std::string name;
    RolloutCommandFacts facts;
    std::string app;
    std::optional<CommandOutcome> refused;  // nullopt: it goes on
  };
  auto with = [](auto change) {
    RolloutCommandFacts f = Loaded();
    change(f);
    return f;
  };
  const std::vector<Case> cases = {
      {"pause of a loaded set", Loaded(), "", std::nullopt},
      {"pause before any generation: the stored state is enough",
       with([](RolloutCommandFacts& f) { f.has_generation = false; }), "", std::nullopt},
      {"pause while the stored state is not loaded",
       with([](RolloutCommandFacts& f) { f.mirror_loaded = false; }), "",
       CommandOutcome::kUnavailable},
      {"pause of a set being deleted", with([](RolloutCommandFacts& f) { f.deleting = true; }), "",
       CommandOutcome::kConflict},
      {"skip of an app of the last generation",
       with([](RolloutCommandFacts& f) { f.app_in_generation = true; }), "guestbook-east",
       std::nullopt},
      {"skip of an app the last generation does not have", Loaded(), "guestbook-gone",
       CommandOutcome::kNotFound},
      {"skip of any name before a generation is known",
       with([](RolloutCommandFacts& f) { f.has_generation = false; }), "guestbook-any",
       std::nullopt},
  };
  for (const auto& c : cases) {
    const auto refused = RefuseRolloutCommand(c.facts, "skip by alice", c.app);
    ASSERT_EQ(refused.has_value(), c.refused.has_value()) << c.name;
    if (refused) {
      EXPECT_EQ(refused->outcome, *c.refused) << c.name;
      EXPECT_NE(refused->message.find("skip by alice"), std::string::npos) << c.name;
      EXPECT_NE(refused->message.find("guestbook"), std::string::npos) << c.name;
    }
  }
}

TEST(CommandNotStored, TellsTheCallerNothingWasDone) {
  const CommandAnswer accepted{CommandOutcome::kAccepted, "pause by alice: applicationset paused"};
  const CommandAnswer answer = CommandNotStored(accepted, "database is locked");
  EXPECT_EQ(answer.outcome, CommandOutcome::kUnavailable);
  EXPECT_EQ(answer.message,
            "pause by alice: applicationset paused could not be stored: database is locked; "
            "nothing was done");
  EXPECT_EQ(CommandNotStoredLog("database is locked"),
            "cannot commit the operator's command: database is locked");
}

}  // namespace
}  // namespace fleetwave::engine
