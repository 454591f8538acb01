#include "engine/operation_record.h"

#include "engine/retry_policy.h"

namespace fleetwave::engine {
namespace {

const Json* Child(const Json* object, const char* key) {
  if (object == nullptr || !object->is_object()) return nullptr;
  auto it = object->find(key);
  return it == object->end() || it->is_null() ? nullptr : &*it;
}

std::string StringChild(const Json* object, const char* key) {
  const Json* v = Child(object, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : "";
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
                              const std::optional<std::string>& error, Time now) {
  OperationRecord r = running;
  r.results = std::move(results);
  r.finished_at = now;
  r.next_attempt_at.reset();
  bool failed = false;
  for (const auto& o : r.results) failed = failed || o.status == ObjectResultCode::kSyncFailed;
  if (error) {
    r.phase = OperationPhase::kError;
    r.message = *error;
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
    if (!policy.error.empty()) {
      r.phase = OperationPhase::kFailed;
      r.message += " (failed to retry: " + policy.error + ")";
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
  OperationRecord r;
  r.id = StringChild(&value, "id");
  const auto phase = ParseOperationPhase(StringChild(&value, "phase"));
  const auto started = TimeChild(&value, "startedAt", issues);
  if (r.id.empty() || !phase || !started) {
    issues.push_back({"", {}, "", "an operation record needs id, phase and startedAt"});
    return std::nullopt;
  }
  r.phase = *phase;
  r.started_at = *started;
  if (const Json* op = Child(&value, "operation"); op && op->is_object()) r.operation = *op;
  r.message = StringChild(&value, "message");
  r.finished_at = TimeChild(&value, "finishedAt", issues);
  r.next_attempt_at = TimeChild(&value, "nextAttemptAt", issues);
  if (const Json* n = Child(&value, "retryCount"); n && n->is_number_integer()) {
    r.retry_count = n->get<int64_t>();
  }
  const Json* result = Child(&value, "syncResult");
  if (const Json* rev = Child(result, "revision"); rev && rev->is_string()) {
    r.revisions.push_back(rev->get<std::string>());
  } else if (const Json* revs = Child(result, "revisions"); revs && revs->is_array()) {
    for (const auto& v : *revs) {
      if (v.is_string()) r.revisions.push_back(v.get<std::string>());
    }
  }
  if (const Json* res = Child(result, "resources"); res && res->is_array()) {
    for (const auto& e : *res) {
      ObjectResult o;
      o.ref = {StringChild(&e, "group"), StringChild(&e, "kind"), StringChild(&e, "namespace"),
               StringChild(&e, "name")};
      const std::string status = StringChild(&e, "status");
      bool known = false;
      for (auto c : {ObjectResultCode::kSynced, ObjectResultCode::kSyncFailed,
                     ObjectResultCode::kPruned, ObjectResultCode::kPruneSkipped}) {
        if (ObjectResultCodeName(c) == status) {
          o.status = c;
          known = true;
        }
      }
      if (!known) {
        issues.push_back({"", {}, "syncResult.resources", "unknown status \"" + status + "\""});
        continue;
      }
      o.message = StringChild(&e, "message");
      r.results.push_back(std::move(o));
    }
  }
  return r;
}

}  // namespace fleetwave::engine
