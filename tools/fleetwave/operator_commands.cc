#include "tools/fleetwave/operator_commands.h"

#include <caf/all.hpp>
#include <optional>
#include <string>

#include "actors/atoms.h"

namespace fleetwave::cli {
namespace {

// The command as a request to the coordinator; `answer` is set when an actor answered.
void Ask(caf::scoped_actor& self, const actors::OperatorCommands& coordinator,
         const actors::StatusBoard& board, const api::ApiCommand& command,
         std::chrono::milliseconds bound, std::optional<engine::CommandAnswer>& answer,
         std::string& failure) {
  auto on_answer = [&](const engine::CommandAnswer& a) { answer = a; };
  auto on_error = [&](caf::error& e) { failure = self->system().render(e); };
  const caf::duration timeout(bound);
  if (command.kind == "pause") {
    self->request(coordinator, timeout, actors::pause_atom::value, command.target, command.caller)
        .receive(on_answer, on_error);
  } else if (command.kind == "resume") {
    self->request(coordinator, timeout, actors::resume_atom::value, command.target, command.caller)
        .receive(on_answer, on_error);
  } else if (command.kind == "abort") {
    self->request(coordinator, timeout, actors::abort_atom::value, command.target, command.caller)
        .receive(on_answer, on_error);
  } else if (command.kind == "rollback") {
    // The API carries a rollback's {"to": REVISION} as the command's revision.
    self->request(coordinator, timeout, actors::rollback_atom::value, command.target,
                  command.revision.value_or(""), command.caller)
        .receive(on_answer, on_error);
  } else if (command.kind == "refresh") {
    self->request(coordinator, timeout, actors::refresh_atom::value, command.caller)
        .receive(on_answer, on_error);
  } else if (command.kind == "webhook") {
    self->request(coordinator, timeout, actors::webhook_atom::value, command.repo_urls, command.ref,
                  command.default_branch, command.caller)
        .receive(on_answer, on_error);
  } else if (command.kind == "delete") {
    self->request(coordinator, timeout, actors::delete_atom::value, command.target, command.caller)
        .receive(on_answer, on_error);
  } else if (command.kind == "sync" || command.kind == "skip") {
    // Application commands go to the set the board says owns the app.
    const std::optional<std::string> owner = board.ApplicationOwner(command.target);
    if (!owner) {
      answer = engine::CommandAnswer{engine::CommandOutcome::kNotFound,
                                     "application " + command.target + " not found"};
      return;
    }
    if (command.kind == "skip") {
      self->request(coordinator, timeout, actors::skip_atom::value, *owner, command.target,
                    command.reason.value_or(""), command.caller)
          .receive(on_answer, on_error);
    } else {
      self->request(coordinator, timeout, actors::sync_atom::value, *owner, command.target,
                    command.revision.value_or(""), command.caller)
          .receive(on_answer, on_error);
    }
  } else {
    answer =
        engine::CommandAnswer{engine::CommandOutcome::kInvalid, "unknown command " + command.kind};
  }
}

}  // namespace

api::ApiCommandHandler MakeOperatorCommandHandler(caf::actor_system& system,
                                                  const actors::OperatorCommands& coordinator,
                                                  const actors::StatusBoard& board,
                                                  OperatorCommandOptions options) {
  return MakeOperatorCommandHandler(
      system, [coordinator] { return coordinator; }, board, options);
}

api::ApiCommandHandler MakeOperatorCommandHandler(caf::actor_system& system,
                                                  std::function<actors::OperatorCommands()> current,
                                                  const actors::StatusBoard& board,
                                                  OperatorCommandOptions options) {
  auto waiting = std::make_shared<std::atomic<int>>(0);
  return [&system, current, &board, options, waiting](const api::ApiCommand& command) {
    const std::string what =
        command.kind + (command.target.empty() ? std::string() : " of " + command.target);
    const actors::OperatorCommands coordinator = current();
    if (!coordinator) {
      return api::ApiCommandResult{
          503, what +
                   " refused: this instance is a standby (leader election); nothing was done, "
                   "send it to the leader (GET /api/v1/leader)"};
    }
    if (waiting->fetch_add(1) >= options.max_waiting) {
      waiting->fetch_sub(1);
      return api::ApiCommandResult{503, what + " refused: " + std::to_string(options.max_waiting) +
                                            " commands are already waiting for an answer; "
                                            "nothing was done, try again"};
    }
    std::optional<engine::CommandAnswer> answer;
    std::string failure;
    {
      caf::scoped_actor self{system};
      Ask(self, coordinator, board, command, options.answer_within, answer, failure);
    }
    waiting->fetch_sub(1);
    if (answer) return api::ApiCommandResult{api::HttpStatusOf(answer->outcome), answer->message};
    const std::string seconds = std::to_string(
        std::chrono::duration_cast<std::chrono::seconds>(options.answer_within).count());
    return api::ApiCommandResult{
        503, what + ": the daemon did not answer within " + seconds + " s (" + failure +
                 "); whether it will be carried out is not known: look at the object in the "
                 "API before trying again"};
  };
}

}  // namespace fleetwave::cli
