// What the end of one sync attempt tells the operator: the sync_finished event (and metric) of
// an operation that ended, and the log line of every attempt's end. The set's actor publishes
// and logs what these say. Pure. Pinned by tests/engine/sync/attempt_end_test.cc.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/time.h"

#include "engine/sync/operation_record.h"

namespace fleetwave::engine {

// The record of an attempt's end, for the app as generated now (`generated_spec`, its spec;
// nullptr when the app is no longer generated). An operation carries its own retry policy;
// one without (an older record) falls back to the app's, and an app no longer generated has
// none: its failed attempt ends the operation instead of retrying on a spec nobody declares.
OperationRecord EndAttempt(const OperationRecord& running, const Json* generated_spec,
                           std::vector<ObjectResult> results, const std::optional<Error>& error,
                           Time now);

// An ended operation's report: who started it (SyncStartTriggerName of TriggerOfOperation,
// read from the operation so that it survives restarts) and its final phase's name.
struct SyncFinished {
  std::string trigger;
  std::string phase;
  bool operator==(const SyncFinished&) const = default;
};

// Only an operation that ended (Succeeded, Failed, Error) finished a sync; one still Running
// after its attempt waits for a retry and reports nothing yet.
std::optional<SyncFinished> SyncFinishedOf(const OperationRecord& record);

// The log line of an attempt's end (e2e tests grep it):
//   "[cluster=<cluster> ]app=<app> sync <id> attempt failed (<message>), retry <n>" while the
//   operation stays Running for a retry, else
//   "[cluster=<cluster> ]app=<app> sync <id> <Phase>[: <message>]".
// `cluster` is absent when the app is no longer generated.
std::string AttemptEndLine(const std::string& app, const std::optional<std::string>& cluster,
                           const OperationRecord& record);

}  // namespace fleetwave::engine
