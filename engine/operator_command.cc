#include "engine/operator_command.h"

namespace fleetwave::engine {

CommandOutcome CommandRefusalOf(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kConflict:
      return CommandOutcome::kConflict;
    case ErrorKind::kTransient:
      return CommandOutcome::kUnavailable;
    case ErrorKind::kNotFound:
      return CommandOutcome::kNotFound;
    case ErrorKind::kInvalidInput:
    case ErrorKind::kPermanent:
      break;
  }
  return CommandOutcome::kInvalid;
}

const char* CommandOutcomeName(CommandOutcome outcome) {
  switch (outcome) {
    case CommandOutcome::kAccepted:
      return "Accepted";
    case CommandOutcome::kUnchanged:
      return "Unchanged";
    case CommandOutcome::kInvalid:
      return "Invalid";
    case CommandOutcome::kNotFound:
      return "NotFound";
    case CommandOutcome::kConflict:
      return "Conflict";
    case CommandOutcome::kUnavailable:
      return "Unavailable";
  }
  return "Unknown";
}

std::optional<CommandAnswer> RefuseSetCommand(const SetCommandContext& set, const std::string& what,
                                              const std::string& app, bool app_generated) {
  const std::string object = app.empty() ? "applicationset " + set.appset : "application " + app;
  if (set.deleting) {
    return CommandAnswer{CommandOutcome::kConflict, what + " of " + object +
                                                        " refused: applicationset " + set.appset +
                                                        " is pending deletion or being deleted"};
  }
  if (!set.loaded) {
    return CommandAnswer{CommandOutcome::kUnavailable,
                         what + " of " + object + " refused: applicationset " + set.appset +
                             " is still loading (its first reconcile has not finished); "
                             "try again shortly"};
  }
  if (!app.empty() && !app_generated) {
    return CommandAnswer{CommandOutcome::kNotFound, what + " of " + object +
                                                        " refused: applicationset " + set.appset +
                                                        " no longer generates it"};
  }
  return std::nullopt;
}

std::string RolloutCommandName(RolloutCommand command) {
  switch (command) {
    case RolloutCommand::kPause:
      return "pause";
    case RolloutCommand::kResume:
      return "resume";
    case RolloutCommand::kAbort:
      return "abort";
    case RolloutCommand::kSkip:
      return "skip";
    case RolloutCommand::kRollback:
      return "rollback";
  }
  return "rollout command";
}

std::string RolloutCommandLogLine(RolloutCommand command, const std::string& app,
                                  const std::string& reason, const std::string& caller) {
  switch (command) {
    case RolloutCommand::kPause:
      return "rollout paused by " + caller;
    case RolloutCommand::kResume:
      return "rollout resumed by " + caller;
    case RolloutCommand::kAbort:
      return "rollout aborted by " + caller + ": its revision is held";
    case RolloutCommand::kSkip:
      return "app=" + app + " skipped (" + reason + ") by " + caller;
    case RolloutCommand::kRollback:
      return "rollback requested by " + caller + " to " +
             (reason.empty() ? "each app's last healthy revisions" : "revision " + reason) +
             ": its revision is held";
  }
  return RolloutCommandName(command) + " by " + caller;
}

CommandAnswer ApplyRolloutCommand(RolloutState& state, RolloutCommand command,
                                  const std::string& appset, const std::string& app,
                                  const std::string& reason, Time now, const std::string& caller) {
  switch (command) {
    case RolloutCommand::kPause:
      if (state.paused) {
        return {CommandOutcome::kUnchanged, "the rollout of " + appset + " is already paused"};
      }
      PauseRollout(state, now);
      return {CommandOutcome::kAccepted, "the rollout of " + appset + " is paused"};
    case RolloutCommand::kResume: {
      if (state.rollback || state.rollback_requested) {
        return {CommandOutcome::kConflict,
                "the rollout of " + appset +
                    " was rolled back: its revision stays held until a new commit (resume "
                    "cannot roll it out again)"};
      }
      if (!state.paused && !RolloutHalted(state) && !state.aborted) {
        return {CommandOutcome::kUnchanged,
                "the rollout of " + appset + " is neither paused, halted nor aborted"};
      }
      std::string message = "the rollout of " + appset + " is resumed";
      if (RolloutHalted(state)) {
        message += "; the halt of failed step " + std::to_string(state.failed_step) +
                   " is cleared and the step is evaluated again: failed apps count once they "
                   "are Healthy, and one more than its maxFailures still failed halts it again "
                   "(skip an app to go on without it)";
      }
      ResumeRollout(state, now);
      return {CommandOutcome::kAccepted, message};
    }
    case RolloutCommand::kAbort:
      if (state.aborted) {
        return {CommandOutcome::kUnchanged, "the rollout of " + appset + " is already aborted"};
      }
      if (state.generation > 0 && state.step == 0) {
        return {CommandOutcome::kUnchanged,
                "the rollout of " + appset + " has completed: there is nothing to abort"};
      }
      AbortRollout(state, now, caller);
      return {CommandOutcome::kAccepted,
              "the rollout of " + appset + " is aborted at step " + std::to_string(state.step) +
                  ": nothing more is promoted or synced (syncs running finish) and its revision "
                  "is held until a new commit or a resume"};
    case RolloutCommand::kSkip: {
      auto it = state.skipped.find(app);
      if (it != state.skipped.end() && it->second == reason) {
        return {CommandOutcome::kUnchanged, app + " is already skipped for that reason"};
      }
      SkipApplication(state, app, reason);
      return {CommandOutcome::kAccepted,
              app + " is skipped (" + reason + "): the rollout no longer waits for it"};
    }
    case RolloutCommand::kRollback:
      if (state.generation == 0) {
        return {CommandOutcome::kUnchanged,
                "the rollout of " + appset + " has not started: there is nothing to roll back"};
      }
      if (RollbackInProgress(state)) {
        return {CommandOutcome::kConflict,
                "the rollout of " + appset + " is already being rolled back"};
      }
      RequestRollback(state, now, caller, reason);
      return {CommandOutcome::kAccepted,
              "the rollout of " + appset + " is rolled back: every app it synced returns to " +
                  (reason.empty() ? "its last healthy revisions" : "revision " + reason) +
                  ", last step first, and its revision is held until a new commit"};
  }
  return {CommandOutcome::kInvalid, "unknown rollout command"};
}

}  // namespace fleetwave::engine
