// Issue 31: the daemon's answer to the API's mutations comes from the actor that decides, within
// a bound. A fake coordinator answers or stays silent; the handler is the daemon's own.
#include "tools/fleetwave/operator_commands.h"

#include <gtest/gtest.h>

#include <caf/all.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "actors/atoms.h"
#include "actors/status_board.h"

namespace fleetwave::cli {
namespace {

using Clock = std::chrono::steady_clock;

// Answers a sync of "web-dev" with a conflict; holds a sync of "web-silent" unanswered (a set
// busy with a long render), telling the test through `received`.
struct FakeCoordinatorState {
  std::vector<caf::response_promise> held;
};

// The operator's commands plus the test's cue (release) that the busy set has decided.
using FakeCoordinatorHandle =
    actors::OperatorCommands::extend<caf::reacts_to<actors::release_atom>>;

FakeCoordinatorHandle::behavior_type FakeCoordinator(
    FakeCoordinatorHandle::stateful_pointer<FakeCoordinatorState> self,
    std::shared_ptr<std::promise<void>> received) {
  // The commands these tests do not send.
  const engine::CommandAnswer unused{engine::CommandOutcome::kInvalid, "not in this test"};
  return {
      [=](actors::sync_atom, const std::string& set, const std::string& app, const std::string&,
          const std::string& caller) -> caf::result<engine::CommandAnswer> {
        if (app == "web-silent") {
          self->state.held.push_back(self->make_response_promise());
          received->set_value();
          return self->state.held.back();
        }
        return engine::CommandAnswer{engine::CommandOutcome::kConflict,
                                     set + "/" + app + " by " + caller + ": already running"};
      },
      [=](actors::pause_atom, const std::string&, const std::string&) { return unused; },
      [=](actors::resume_atom, const std::string&, const std::string&) { return unused; },
      [=](actors::abort_atom, const std::string& set, const std::string& caller) {
        return engine::CommandAnswer{engine::CommandOutcome::kAccepted,
                                     "abort of " + set + " by " + caller};
      },
      [=](actors::rollback_atom, const std::string& set, const std::string& to,
          const std::string& caller) {
        // A rollback while one runs is refused, as the set's actor does (kConflict).
        if (set == "web-rolling-back") {
          return engine::CommandAnswer{engine::CommandOutcome::kConflict,
                                       "rollback of " + set + ": already being rolled back"};
        }
        return engine::CommandAnswer{engine::CommandOutcome::kAccepted,
                                     "rollback of " + set + " to \"" + to + "\" by " + caller};
      },
      [=](actors::skip_atom, const std::string&, const std::string&, const std::string&,
          const std::string&) { return unused; },
      [=](actors::refresh_atom, const std::string&) { return unused; },
      [=](actors::webhook_atom, const std::vector<std::string>&, const std::string&,
          const std::string&, const std::string&) { return unused; },
      [=](actors::delete_atom, const std::string&, const std::string&) { return unused; },
      [=](actors::release_atom) {
        for (auto& promise : self->state.held) {
          promise.deliver(engine::CommandAnswer{engine::CommandOutcome::kUnavailable, "later"});
        }
        self->state.held.clear();
      },
  };
}

class OperatorCommandsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    board_.PublishAppSet("web", engine::Json{{"metadata", {{"name", "web"}}}},
                         {{"web-dev", App("web-dev")}, {"web-silent", App("web-silent")}});
    coordinator_ = system_.spawn(FakeCoordinator, received_);
  }
  void TearDown() override { caf::anon_send_exit(coordinator_, caf::exit_reason::user_shutdown); }
  static engine::Json App(const std::string& name) {
    return engine::Json{{"metadata", {{"name", name}}}};
  }
  api::ApiCommand Sync(const std::string& app) {
    return api::ApiCommand{"sync", app, std::nullopt, "127.0.0.1:5000", std::nullopt, {}, {}, {}};
  }

  caf::actor_system_config cfg_;
  caf::actor_system system_{cfg_};
  actors::StatusBoard board_;
  std::shared_ptr<std::promise<void>> received_ = std::make_shared<std::promise<void>>();
  FakeCoordinatorHandle coordinator_;
};

TEST_F(OperatorCommandsTest, TheDecidingActorsAnswerIsTheResponse) {
  auto handler = MakeOperatorCommandHandler(system_, coordinator_, board_);
  const api::ApiCommandResult r = handler(Sync("web-dev"));
  EXPECT_EQ(r.http_status, 409);
  EXPECT_EQ(r.message, "web/web-dev by 127.0.0.1:5000: already running");
  EXPECT_EQ(handler(Sync("web-gone")).http_status, 404) << "an app the board does not know";
}

// Issue 29: an abort goes to the set's actor with the caller, and its answer is the response.
TEST_F(OperatorCommandsTest, AnAbortReachesTheCoordinatorWithTheCaller) {
  auto handler = MakeOperatorCommandHandler(system_, coordinator_, board_);
  const api::ApiCommandResult r = handler(
      api::ApiCommand{"abort", "web", std::nullopt, "127.0.0.1:5001", std::nullopt, {}, {}, {}});
  EXPECT_EQ(r.http_status, 202);
  EXPECT_EQ(r.message, "abort of web by 127.0.0.1:5001");
}

// Issue 29: a rollback goes to the set's actor with its target revision ("" = each app's last
// healthy revisions) and the caller; the actor's answer, a refusal too, is the response.
TEST_F(OperatorCommandsTest, ARollbackReachesTheCoordinatorWithItsRevisionAndCaller) {
  auto handler = MakeOperatorCommandHandler(system_, coordinator_, board_);
  api::ApiCommandResult r = handler(
      api::ApiCommand{"rollback", "web", "v1.4.2", "127.0.0.1:5002", std::nullopt, {}, {}, {}});
  EXPECT_EQ(r.http_status, 202);
  EXPECT_EQ(r.message, "rollback of web to \"v1.4.2\" by 127.0.0.1:5002");
  r = handler(
      api::ApiCommand{"rollback", "web", std::nullopt, "127.0.0.1:5003", std::nullopt, {}, {}, {}});
  EXPECT_EQ(r.http_status, 202);
  EXPECT_EQ(r.message, "rollback of web to \"\" by 127.0.0.1:5003");
  r = handler(api::ApiCommand{
      "rollback", "web-rolling-back", std::nullopt, "127.0.0.1:5004", std::nullopt, {}, {}, {}});
  EXPECT_EQ(r.http_status, 409);
  EXPECT_EQ(r.message, "rollback of web-rolling-back: already being rolled back");
}

TEST_F(OperatorCommandsTest, NoAnswerWithinTheBoundIsA503SayingTheOutcomeIsUnknown) {
  OperatorCommandOptions options;
  options.answer_within = std::chrono::milliseconds(200);
  auto handler = MakeOperatorCommandHandler(system_, coordinator_, board_, options);
  const auto before = Clock::now();
  const api::ApiCommandResult r = handler(Sync("web-silent"));
  const auto took = Clock::now() - before;
  EXPECT_EQ(r.http_status, 503);
  EXPECT_NE(r.message.find("did not answer"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("not known"), std::string::npos) << r.message;
  EXPECT_GE(took, std::chrono::milliseconds(200));
  EXPECT_LT(took, std::chrono::seconds(5));
}

TEST_F(OperatorCommandsTest, CommandsWaitingBeyondTheLimitAreRefusedAtOnce) {
  OperatorCommandOptions options;
  options.answer_within = std::chrono::seconds(30);
  options.max_waiting = 1;
  auto handler = MakeOperatorCommandHandler(system_, coordinator_, board_, options);
  auto waiting = std::async(std::launch::async, [&] { return handler(Sync("web-silent")); });
  received_->get_future().wait();  // the first command waits for its answer
  const api::ApiCommandResult r = handler(Sync("web-dev"));
  EXPECT_EQ(r.http_status, 503);
  EXPECT_NE(r.message.find("already waiting"), std::string::npos) << r.message;
  // The busy set decides: the waiting command gets its answer, and the slot is free again.
  caf::anon_send(coordinator_, actors::release_atom::value);
  ASSERT_EQ(waiting.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  const api::ApiCommandResult later = waiting.get();
  EXPECT_EQ(later.http_status, 503);
  EXPECT_EQ(later.message, "later");
  EXPECT_EQ(handler(Sync("web-dev")).http_status, 409);
}

}  // namespace
}  // namespace fleetwave::cli
