// What the appset actor answers to an operator's rollout command (pause, resume, skip, abort,
// rollback) before the rollout state is looked at, and what a command whose commit failed
// answers (issue 25: the rules RolloutAction and the commit reply used to hold). Pinned by
// tests/engine/appset/command_rules_test.cc.
#pragma once

#include <optional>
#include <string>

#include "engine/operator_command.h"

namespace fleetwave::engine {

// "<command> by <caller>": how the answer and the log name the command.
std::string RolloutCommandWhat(RolloutCommand command, const std::string& caller);

// What the actor knows about the set when a rollout command for it arrives.
struct RolloutCommandFacts {
  std::string appset;
  bool mirror_loaded = false;      // the set's stored records are in memory
  bool deleting = false;           // pending deletion or being deleted
  bool has_generation = false;     // a generation was gathered since the start
  bool app_in_generation = false;  // the command's app is of that generation (read with an app)
};

// A rollout command waits (and a first load of the set is started) while the set's stored state
// is not loaded; a set being deleted refuses it at once instead.
bool RolloutCommandWaitsForLoad(const RolloutCommandFacts& facts);

// The refusal of a rollout command on the set (or, for a skip, on `app`); nullopt when it may go
// on. A rollout command needs only the stored state (no generation): a skip names an app of the
// last generation, but before a generation is known any name is taken.
std::optional<CommandAnswer> RefuseRolloutCommand(const RolloutCommandFacts& facts,
                                                  const std::string& what, const std::string& app);

// An accepted operator command (`accepted`) whose commit failed: nothing was done, and the caller
// is told so; the log line says why.
CommandAnswer CommandNotStored(const CommandAnswer& accepted, const std::string& error);
std::string CommandNotStoredLog(const std::string& error);

}  // namespace fleetwave::engine
