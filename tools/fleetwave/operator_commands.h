// The daemon's answer to the API's mutations (api_command.h): each command is a request to the
// coordinator, which hands it to the actor that decides (the appset actor for sync, skip, pause
// and resume; the deletion actor for a delete; itself for a refresh), and the HTTP worker waits
// for that actor's answer a bounded time. So a 202 means the command was accepted (its record is
// stored and the operation shows in the API until it ends), and a refusal carries the reason
// (409 conflict, 503 not now, 404, 400), never a 202 followed by a refusal in the log only.
//
// No answer within `answer_within` (a set busy with a long render, a wedged scheduler) is a 503
// saying that the outcome is not known. At most `max_waiting` commands wait at once, so the
// HTTP workers stay free for reads; beyond that a command is refused with 503 at once.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "actors/coordinator_interface.h"
#include "actors/status_board.h"
#include "api/api_command.h"

namespace fleetwave::cli {

struct OperatorCommandOptions {
  std::chrono::milliseconds answer_within{5000};
  int max_waiting = 2;
};

// The handler for ApiServer. `system`, `coordinator` and `board` must outlive it.
api::ApiCommandHandler MakeOperatorCommandHandler(caf::actor_system& system,
                                                  const actors::OperatorCommands& coordinator,
                                                  const actors::StatusBoard& board,
                                                  OperatorCommandOptions options = {});
// The same, asking `coordinator()`'s actor at each command (leader election: the coordinator
// of the term this instance leads). No coordinator (a standby) answers 503.
api::ApiCommandHandler MakeOperatorCommandHandler(
    caf::actor_system& system, std::function<actors::OperatorCommands()> coordinator,
    const actors::StatusBoard& board, OperatorCommandOptions options = {});

}  // namespace fleetwave::cli
