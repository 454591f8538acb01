// What an operator's command (the API's sync, skip, pause, resume; the CLI sends the same) will
// do, decided by the actor that carries it out and answered to the caller with the reason when
// it cannot be carried out now: the HTTP API answers from this, never from a guess of its own
// (issue 31: a sync was answered 202 and then refused in the log only). The HTTP layer maps
// each outcome to a status code (api_command.h).
#pragma once

#include <optional>
#include <string>

#include "engine/error.h"
#include "engine/rollingsync/rollout_state.h"
#include "engine/time.h"

namespace fleetwave::engine {

enum class CommandOutcome {
  kAccepted,     // it will be carried out (an operation was stored, the state changed)
  kUnchanged,    // nothing to do: the state already is what was asked (pause of a paused set)
  kInvalid,      // the request cannot be carried out as given (a revision for a multi-source app)
  kNotFound,     // the object is not there (an app no longer generated)
  kConflict,     // the object's state forbids it (an operation runs, the set is being deleted)
  kUnavailable,  // not now, perhaps later (the cluster is unreachable, the set still loading)
};

const char* CommandOutcomeName(CommandOutcome outcome);

// The answer to a command refused with an error of `kind`: kConflict is kConflict, kTransient
// kUnavailable (not now, perhaps later), kNotFound kNotFound, kInvalidInput and kPermanent
// kInvalid (it cannot be carried out as given).
CommandOutcome CommandRefusalOf(ErrorKind kind);

struct CommandAnswer {
  CommandOutcome outcome = CommandOutcome::kAccepted;
  std::string message;  // what will happen, or why not; names the object

  bool operator==(const CommandAnswer&) const = default;
};

// What the appset actor knows about a set when a command for it arrives.
struct SetCommandContext {
  std::string appset;
  bool loaded = false;    // its stored state and a first generation are in memory
  bool deleting = false;  // pending deletion or being deleted: nothing is synced or rolled out
};

// A command on the set (or one of its apps) that its state refuses before anything else is
// looked at; nullopt when the command may go on. `app_generated` is only read with an app
// (non-empty `app`).
std::optional<CommandAnswer> RefuseSetCommand(const SetCommandContext& set, const std::string& what,
                                              const std::string& app, bool app_generated);

enum class RolloutCommand { kPause, kResume, kAbort, kSkip, kRollback };

// "pause", "resume", "abort", "skip", "rollback": for the answer and the log.
std::string RolloutCommandName(RolloutCommand command);
// The log line of a command carried out, naming the caller.
std::string RolloutCommandLogLine(RolloutCommand command, const std::string& app,
                                  const std::string& reason, const std::string& caller);

// Applies a pause, resume, abort (by `caller`, issue 29) or skip (with `reason`) of `app` to the
// stored rollout state: kAccepted when the state changed (the caller stores it), kUnchanged
// when it already was so (an abort of a completed rollout has nothing to hold).
// [issue 29] A rollback (by `caller`) reads `reason` as its target revision ("" = each app's
// last healthy revisions): it is requested (RequestRollback) and the next decision starts it;
// refused while one runs. A resume is refused once the rollout was rolled back: the revision
// stays held until a new commit.
CommandAnswer ApplyRolloutCommand(RolloutState& state, RolloutCommand command,
                                  const std::string& appset, const std::string& app,
                                  const std::string& reason, Time now,
                                  const std::string& caller = "");

}  // namespace fleetwave::engine
