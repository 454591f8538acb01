// Which operator commands a set carries out now, and what the caller is told (issue 31: the API
// answers from these decisions).
#include "engine/operator_command.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace fleetwave::engine {
namespace {

const Time kT0 = Time{} + std::chrono::hours(24 * 365 * 56);

TEST(OperatorCommandTest, SetStateRefusesBeforeAnythingElse) {
  struct Case {
    const char* name;
    SetCommandContext set;
    std::string app;
    bool generated;
    std::optional<CommandOutcome> refusal;  // nullopt: the command goes on
    std::string says;                       // a part of the message
  };
  const std::vector<Case> cases = {
      {"a loaded set, a generated app", {"web", true, false}, "web-dev", true, std::nullopt, ""},
      {"a loaded set, no app (pause)", {"web", true, false}, "", false, std::nullopt, ""},
      {"still loading: not now",
       {"web", false, false},
       "web-dev",
       true,
       CommandOutcome::kUnavailable,
       "still loading"},
      {"being deleted: a conflict, even while loading",
       {"web", false, true},
       "",
       false,
       CommandOutcome::kConflict,
       "pending deletion"},
      {"an app no longer generated",
       {"web", true, false},
       "web-old",
       false,
       CommandOutcome::kNotFound,
       "no longer generates"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto answer = RefuseSetCommand(c.set, "sync", c.app, c.generated);
    ASSERT_EQ(answer.has_value(), c.refusal.has_value());
    if (!answer) continue;
    EXPECT_EQ(CommandOutcomeName(answer->outcome), std::string(CommandOutcomeName(*c.refusal)));
    EXPECT_NE(answer->message.find(c.says), std::string::npos) << answer->message;
    EXPECT_NE(answer->message.find(c.app.empty() ? "web" : c.app), std::string::npos);
  }
}

TEST(OperatorCommandTest, RolloutCommandsSayWhetherTheyChangedAnything) {
  RolloutState running;
  RolloutState paused;
  PauseRollout(paused, kT0);
  RolloutState skipped;
  SkipApplication(skipped, "web-qa", "rebuilt");
  RolloutState halted;  // issue 29: a failed step halted it
  halted.failed_step = 2;
  halted.failed_apps = {"web-prod"};
  RolloutState mid;  // step 2 of generation 1
  mid.generation = 1;
  mid.step = 2;
  RolloutState aborted = mid;
  AbortRollout(aborted, kT0, "10.0.0.7:5000");
  RolloutState completed;
  completed.generation = 1;
  RolloutState requested = mid;  // issue 29: an operator's rollback, not yet started
  RequestRollback(requested, kT0, "10.0.0.7:5000", "");
  RolloutState rolling_back = mid;  // a failed step's rollback, running
  rolling_back.rollback = RollbackState{kRollbackStepFailed, "", 2, "", kT0, std::nullopt, {}, {}};
  RolloutState rolled_back = rolling_back;  // that rollback, finished
  rolled_back.rollback->finished_at = kT0 + std::chrono::seconds(3);
  struct Case {
    const char* name;
    RolloutState state;
    RolloutCommand command;
    std::string reason;
    CommandOutcome outcome;
    bool paused_after;
  };
  const std::vector<Case> cases = {
      {"pause a running rollout", running, RolloutCommand::kPause, "", CommandOutcome::kAccepted,
       true},
      {"pause a paused one", paused, RolloutCommand::kPause, "", CommandOutcome::kUnchanged, true},
      {"resume a paused one", paused, RolloutCommand::kResume, "", CommandOutcome::kAccepted,
       false},
      {"resume a running one", running, RolloutCommand::kResume, "", CommandOutcome::kUnchanged,
       false},
      {"resume a halted one", halted, RolloutCommand::kResume, "", CommandOutcome::kAccepted,
       false},
      {"skip", running, RolloutCommand::kSkip, "rebuilt", CommandOutcome::kAccepted, false},
      {"abort a rollout mid-way", mid, RolloutCommand::kAbort, "", CommandOutcome::kAccepted,
       false},
      {"abort an aborted one", aborted, RolloutCommand::kAbort, "", CommandOutcome::kUnchanged,
       false},
      {"abort a completed one", completed, RolloutCommand::kAbort, "", CommandOutcome::kUnchanged,
       false},
      {"resume an aborted one", aborted, RolloutCommand::kResume, "", CommandOutcome::kAccepted,
       false},
      {"roll back a rollout mid-way", mid, RolloutCommand::kRollback, "", CommandOutcome::kAccepted,
       false},
      {"roll back to a revision", mid, RolloutCommand::kRollback, "v1.4.2",
       CommandOutcome::kAccepted, false},
      {"roll back a completed one", completed, RolloutCommand::kRollback, "",
       CommandOutcome::kAccepted, false},
      {"roll back an aborted one", aborted, RolloutCommand::kRollback, "",
       CommandOutcome::kAccepted, false},
      {"roll back before any rollout started", running, RolloutCommand::kRollback, "",
       CommandOutcome::kUnchanged, false},
      {"roll back while a rollback is requested", requested, RolloutCommand::kRollback, "v1",
       CommandOutcome::kConflict, false},
      {"roll back while a rollback runs", rolling_back, RolloutCommand::kRollback, "",
       CommandOutcome::kConflict, false},
      {"resume once a rollback is requested", requested, RolloutCommand::kResume, "",
       CommandOutcome::kConflict, false},
      {"resume once rolled back", rolled_back, RolloutCommand::kResume, "",
       CommandOutcome::kConflict, false},
      {"skip again, same reason", skipped, RolloutCommand::kSkip, "rebuilt",
       CommandOutcome::kUnchanged, false},
      {"skip again, another reason", skipped, RolloutCommand::kSkip, "gone",
       CommandOutcome::kAccepted, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    RolloutState state = c.state;
    const CommandAnswer a = ApplyRolloutCommand(state, c.command, "web", "web-qa", c.reason,
                                                kT0 + std::chrono::seconds(5), "10.0.0.9:6000");
    EXPECT_EQ(CommandOutcomeName(a.outcome), std::string(CommandOutcomeName(c.outcome)));
    EXPECT_FALSE(a.message.empty());
    EXPECT_EQ(state.paused, c.paused_after);
    if (c.outcome != CommandOutcome::kAccepted) {
      EXPECT_EQ(state, c.state) << "a command not carried out changes nothing";
    }
    if (c.command == RolloutCommand::kSkip) {
      EXPECT_EQ(state.skipped["web-qa"], c.reason);
    }
    if (c.command == RolloutCommand::kAbort && c.outcome == CommandOutcome::kAccepted) {
      EXPECT_TRUE(state.aborted);
      EXPECT_EQ(state.aborted_by, "10.0.0.9:6000");
      EXPECT_EQ(state.aborted_at, kT0 + std::chrono::seconds(5));
      EXPECT_NE(a.message.find("aborted at step 2"), std::string::npos) << a.message;
    }
    if (c.command == RolloutCommand::kRollback && c.outcome == CommandOutcome::kAccepted) {
      // Requested for the next decision, with the caller and the revision to return to.
      ASSERT_TRUE(state.rollback_requested.has_value());
      EXPECT_EQ(state.rollback_requested->by, "10.0.0.9:6000");
      EXPECT_EQ(state.rollback_requested->to, c.reason);
      EXPECT_EQ(state.rollback_requested->at, kT0 + std::chrono::seconds(5));
      EXPECT_EQ(state.rollback, c.state.rollback) << "the next decision starts it, not the command";
      EXPECT_NE(
          a.message.find(c.reason.empty() ? "its last healthy revisions" : "revision " + c.reason),
          std::string::npos)
          << a.message;
    }
    if (c.command == RolloutCommand::kResume && c.outcome == CommandOutcome::kConflict) {
      EXPECT_NE(a.message.find("was rolled back"), std::string::npos) << a.message;
    } else if (c.command == RolloutCommand::kResume) {
      EXPECT_FALSE(state.aborted) << "a resume ends an abort";
      EXPECT_EQ(state.failed_step, 0) << "a resume clears a failed step's halt";
      EXPECT_TRUE(state.failed_apps.empty());
    }
    if (RolloutHalted(c.state) && c.command == RolloutCommand::kResume) {
      EXPECT_NE(a.message.find("the halt of failed step 2 is cleared"), std::string::npos)
          << a.message;
    }
  }
}

}  // namespace
}  // namespace fleetwave::engine
