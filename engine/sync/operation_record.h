// The record of one sync operation (Argo CD's operationState, plus fleetwave's id): what was
// asked (the operation), when it started and finished, at which revision, its phase and the
// result per object — and how an attempt's end turns into either a final phase or a retry
// under the operation's retry policy. Values; `now` is a parameter. The daemon stores the
// record before acting on it (a started sync survives a restart).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/error.h"
#include "engine/issue.h"
#include "engine/object_ref.h"
#include "engine/time.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

enum class OperationPhase { kRunning, kSucceeded, kFailed, kError };
std::string_view OperationPhaseName(OperationPhase phase);
std::optional<OperationPhase> ParseOperationPhase(std::string_view name);

// Argo's per-resource result codes.
enum class ObjectResultCode { kSynced, kSyncFailed, kPruned, kPruneSkipped };
std::string_view ObjectResultCodeName(ObjectResultCode code);

struct ObjectResult {
  ObjectRef ref;
  ObjectResultCode status = ObjectResultCode::kSynced;
  std::string message;
  bool operator==(const ObjectResult&) const = default;
};

struct OperationRecord {
  std::string id;
  Json operation = Json::object();     // as built by BuildSyncOperation
  std::vector<std::string> revisions;  // one per source
  OperationPhase phase = OperationPhase::kRunning;
  std::string message;
  Time started_at;
  std::optional<Time> finished_at;  // the end of the last attempt
  int64_t retry_count = 0;
  std::optional<Time> next_attempt_at;  // Running between attempts: when the retry starts
  std::vector<ObjectResult> results;    // of the last attempt
};

// A new operation, Running from `now`. `id` is the caller's (unique per app).
OperationRecord StartOperation(std::string id, Json operation, std::vector<std::string> revisions,
                               Time now);

// The end of an attempt at `now`: `error` set (the attempt could not run: render failed,
// cluster unreachable) → Error; any object SyncFailed → Failed; else Succeeded. A Failed or
// Error attempt the operation's `retry` allows to retry stays Running with retry_count + 1,
// `next_attempt_at` set and Argo's message `<message>. Retrying attempt #<n> at <time>.`
// (the time in RFC 3339, where Argo prints only the clock time);
// a final failure after retries says `<message> (retried <n> times).`
// The retry decision reads the error's kind, never its text: an kInvalidInput error (manifests
// that do not parse or render at the operation's pinned revisions) is never retried, because
// the same revisions fail the same way; the message says so. Every other kind follows the
// policy (refused credentials or a missing CRD can be fixed while the backoff runs).
OperationRecord FinishAttempt(const OperationRecord& running, std::vector<ObjectResult> results,
                              const std::optional<Error>& error, Time now);

// Argo's operationState shape with fleetwave's `id`: {id, operation, phase, message,
// startedAt, finishedAt, retryCount, nextAttemptAt, syncResult: {revision | revisions,
// resources: [{group, kind, namespace, name, status, message}]}}.
Json OperationRecordToJson(const OperationRecord& record);
// The inverse. Strict: a field of the wrong type is an issue naming it and the record is
// not used (nullopt); absent optional fields read as absent.
std::optional<OperationRecord> OperationRecordFromJson(const Json& value, Issues& issues);

}  // namespace fleetwave::engine
