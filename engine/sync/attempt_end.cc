#include "engine/sync/attempt_end.h"

#include "engine/rollingsync/appset_reconcile.h"

namespace fleetwave::engine {

std::optional<SyncFinished> SyncFinishedOf(const OperationRecord& record) {
  if (record.phase == OperationPhase::kRunning) return std::nullopt;
  return SyncFinished{SyncStartTriggerName(TriggerOfOperation(record)),
                      std::string(OperationPhaseName(record.phase))};
}

std::string AttemptEndLine(const std::string& app, const std::optional<std::string>& cluster,
                           const OperationRecord& record) {
  std::string line = (cluster ? "cluster=" + *cluster + " " : std::string()) + "app=" + app +
                     " sync " + record.id + " ";
  if (record.phase == OperationPhase::kRunning) {
    return line + "attempt failed (" + record.message + "), retry " +
           std::to_string(record.retry_count);
  }
  return line + std::string(OperationPhaseName(record.phase)) +
         (record.message.empty() ? "" : ": " + record.message);
}

OperationRecord EndAttempt(const OperationRecord& running, const Json* generated_spec,
                           std::vector<ObjectResult> results, const std::optional<Error>& error,
                           Time now) {
  static const Json kNoSpec = Json::object();  // no longer generated: no retry policy to fall to
  return FinishSyncAttempt(running, generated_spec != nullptr ? *generated_spec : kNoSpec,
                           std::move(results), error, now);
}

}  // namespace fleetwave::engine
