#include "engine/sync/operation_record.h"

#include "engine/stored_fields.h"
#include "engine/sync/retry_policy.h"

namespace fleetwave::engine {
namespace {

const Json* Child(const Json* object, const char* key) {
  if (object == nullptr || !object->is_object()) return nullptr;
  auto it = object->find(key);
  return it == object->end() || it->is_null() ? nullptr : &*it;
}

std::optional<Time> TimeChild(const Json* object, const char* key, Issues& issues) {
  const Json* v = Child(object, key);
  if (v == nullptr) return std::nullopt;
  auto t = v->is_string() ? ParseRfc3339(v->get<std::string>()) : std::nullopt;
  if (!t) issues.push_back({"", {}, key, "not an RFC 3339 time"});
  return t;
}

}  // namespace

std::string_view OperationPhaseName(OperationPhase phase) {
  switch (phase) {
    case OperationPhase::kRunning:
      return "Running";
    case OperationPhase::kSucceeded:
      return "Succeeded";
    case OperationPhase::kFailed:
      return "Failed";
    case OperationPhase::kError:
      return "Error";
  }
  return "Error";
}

std::optional<OperationPhase> ParseOperationPhase(std::string_view name) {
  for (auto p : {OperationPhase::kRunning, OperationPhase::kSucceeded, OperationPhase::kFailed,
                 OperationPhase::kError}) {
    if (OperationPhaseName(p) == name) return p;
  }
  return std::nullopt;
}

std::string_view ObjectResultCodeName(ObjectResultCode code) {
  switch (code) {
    case ObjectResultCode::kSynced:
      return "Synced";
    case ObjectResultCode::kSyncFailed:
      return "SyncFailed";
    case ObjectResultCode::kPruned:
      return "Pruned";
    case ObjectResultCode::kPruneSkipped:
      return "PruneSkipped";
  }
  return "SyncFailed";
}

OperationRecord StartOperation(std::string id, Json operation, std::vector<std::string> revisions,
                               Time now) {
  OperationRecord r;
  r.id = std::move(id);
  r.operation = std::move(operation);
  r.revisions = std::move(revisions);
  r.started_at = now;
  return r;
}

OperationRecord FinishAttempt(const OperationRecord& running, std::vector<ObjectResult> results,
                              const std::optional<Error>& error, Time now) {
  OperationRecord r = running;
  r.results = std::move(results);
  r.finished_at = now;
  r.next_attempt_at.reset();
  bool failed = false;
  for (const auto& o : r.results) failed = failed || o.status == ObjectResultCode::kSyncFailed;
  if (error) {
    r.phase = OperationPhase::kError;
    r.message = error->ToString();
    if (error->kind == ErrorKind::kInvalidInput) {
      r.message += " (not retried: the manifests at this revision are invalid)";
      return r;
    }
  } else if (failed) {
    r.phase = OperationPhase::kFailed;
    r.message = "one or more objects failed to apply";
  } else {
    r.phase = OperationPhase::kSucceeded;
    r.message = "successfully synced (all tasks run)";
    return r;
  }
  // Argo's retry (processRequestedAppOperation): retry while retryCount < limit (or limit < 0),
  // waiting by the count before this retry.
  const DecodedRetryPolicy policy = DecodeRetryPolicy(
      Child(&r.operation, "retry") ? *Child(&r.operation, "retry") : Json::object());
  if (MayRetry(policy.policy, r.retry_count)) {
    if (policy.error) {
      r.phase = OperationPhase::kFailed;
      r.message += " (failed to retry: " + policy.error->ToString() + ")";
      return r;
    }
    const Time at = now + RetryBackoff(policy.policy, r.retry_count);
    r.phase = OperationPhase::kRunning;
    r.retry_count += 1;
    r.next_attempt_at = at;
    r.message +=
        ". Retrying attempt #" + std::to_string(r.retry_count) + " at " + FormatRfc3339(at) + ".";
  } else if (r.retry_count > 0) {
    r.message += " (retried " + std::to_string(r.retry_count) + " times).";
  }
  return r;
}

// Built member by member: an initializer list copies each value once more, and the daemon
// serves one record per app of a set on every reconcile (bench/reconcile_bench.cc).
Json OperationRecordToJson(const OperationRecord& record) {
  Json resources = Json::array();
  resources.get_ref<Json::array_t&>().reserve(record.results.size());
  for (const auto& o : record.results) {
    Json e = Json::object();
    e["group"] = o.ref.group;
    e["kind"] = o.ref.kind;
    e["namespace"] = o.ref.namespace_;
    e["name"] = o.ref.name;
    e["status"] = std::string(ObjectResultCodeName(o.status));
    if (!o.message.empty()) e["message"] = o.message;
    resources.push_back(std::move(e));
  }
  Json sync_result = Json::object();
  sync_result["resources"] = std::move(resources);
  if (record.revisions.size() == 1) {
    sync_result["revision"] = record.revisions.front();
  } else if (!record.revisions.empty()) {
    sync_result["revisions"] = record.revisions;
  }
  Json out = Json::object();
  out["id"] = record.id;
  out["operation"] = record.operation;
  out["phase"] = std::string(OperationPhaseName(record.phase));
  out["startedAt"] = FormatRfc3339(record.started_at);
  out["syncResult"] = std::move(sync_result);
  if (!record.message.empty()) out["message"] = record.message;
  if (record.finished_at) out["finishedAt"] = FormatRfc3339(*record.finished_at);
  if (record.retry_count > 0) out["retryCount"] = record.retry_count;
  if (record.next_attempt_at) out["nextAttemptAt"] = FormatRfc3339(*record.next_attempt_at);
  return out;
}

std::optional<OperationRecord> OperationRecordFromJson(const Json& value, Issues& issues) {
  if (!value.is_object()) {
    issues.push_back({"", {}, "operation", "must be an object"});
    return std::nullopt;
  }
  const size_t before = issues.size();
  OperationRecord r;
  r.id = stored::String(value, "id", "", issues).value_or("");
  const auto phase = ParseOperationPhase(stored::String(value, "phase", "", issues).value_or(""));
  const auto started = TimeChild(&value, "startedAt", issues);
  if (r.id.empty() || !phase || !started) {
    issues.push_back({"", {}, "", "an operation record needs id, phase and startedAt"});
    return std::nullopt;
  }
  r.phase = *phase;
  r.started_at = *started;
  if (const Json* op = stored::Object(value, "operation", "", issues)) r.operation = *op;
  r.message = stored::String(value, "message", "", issues).value_or("");
  r.finished_at = TimeChild(&value, "finishedAt", issues);
  r.next_attempt_at = TimeChild(&value, "nextAttemptAt", issues);
  r.retry_count = stored::Int(value, "retryCount", "", issues).value_or(0);
  static const Json kNone = Json::object();
  const Json* result = stored::Object(value, "syncResult", "", issues);
  const Json& sync = result != nullptr ? *result : kNone;
  if (auto rev = stored::String(sync, "revision", "syncResult", issues)) {
    r.revisions.push_back(*rev);
  } else {
    r.revisions = stored::Strings(sync, "revisions", "syncResult", issues);
  }
  if (const Json* res = stored::Array(sync, "resources", "syncResult", issues)) {
    for (size_t i = 0; i < res->size(); ++i) {
      const Json& e = (*res)[i];
      const std::string path = "syncResult.resources[" + std::to_string(i) + "]";
      if (!e.is_object()) {
        stored::WrongType(path, "an object", e, issues);
        continue;
      }
      ObjectResult o;
      o.ref = {stored::String(e, "group", path, issues).value_or(""),
               stored::String(e, "kind", path, issues).value_or(""),
               stored::String(e, "namespace", path, issues).value_or(""),
               stored::String(e, "name", path, issues).value_or("")};
      const std::string status = stored::String(e, "status", path, issues).value_or("");
      bool known = false;
      for (auto c : {ObjectResultCode::kSynced, ObjectResultCode::kSyncFailed,
                     ObjectResultCode::kPruned, ObjectResultCode::kPruneSkipped}) {
        if (ObjectResultCodeName(c) == status) {
          o.status = c;
          known = true;
        }
      }
      if (!known) {
        issues.push_back({"", {}, path + ".status", "unknown status \"" + status + "\""});
        continue;
      }
      o.message = stored::String(e, "message", path, issues).value_or("");
      r.results.push_back(std::move(o));
    }
  }
  // Strict: a record with a field of the wrong type is not used (a retry count or a phase read
  // as a default would retry, or not, against what was stored).
  if (issues.size() != before) return std::nullopt;
  return r;
}

}  // namespace fleetwave::engine
