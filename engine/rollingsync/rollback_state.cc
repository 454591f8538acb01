#include "engine/rollingsync/rollback_state.h"

#include "engine/stored_fields.h"

namespace fleetwave::engine {
namespace {

std::optional<Time> TimeField(const Json& object, const char* key, const std::string& path,
                              Issues& issues) {
  auto text = stored::String(object, key, path, issues);
  if (!text) return std::nullopt;
  if (auto t = ParseRfc3339(*text)) return t;
  issues.push_back({"", {}, stored::FieldPath(path, key), "not an RFC 3339 time"});
  return std::nullopt;
}

Json EncodeApp(const RollbackApp& a) {
  Json j = Json::object();
  j["application"] = a.app;
  j["step"] = a.step;
  j["from"] = a.from;
  j["to"] = a.to;
  j["phase"] = ToString(a.phase);
  if (a.since) j["since"] = FormatRfc3339(*a.since);
  if (!a.message.empty()) j["message"] = a.message;
  return j;
}

std::optional<RollbackApp> DecodeApp(const Json& j, const std::string& path, Issues& issues) {
  if (!j.is_object()) {
    stored::WrongType(path, "an object", j, issues);
    return std::nullopt;
  }
  const size_t before = issues.size();
  RollbackApp a;
  a.app = stored::String(j, "application", path, issues).value_or("");
  a.step = static_cast<int>(stored::Int(j, "step", path, issues).value_or(0));
  a.from = stored::Strings(j, "from", path, issues);
  a.to = stored::Strings(j, "to", path, issues);
  const std::string phase = stored::String(j, "phase", path, issues).value_or("");
  if (auto p = ParseRollbackAppPhase(phase)) {
    a.phase = *p;
  } else if (issues.size() == before) {
    issues.push_back({"", {}, stored::FieldPath(path, "phase"), "unknown phase \"" + phase + "\""});
  }
  a.since = TimeField(j, "since", path, issues);
  a.message = stored::String(j, "message", path, issues).value_or("");
  if (a.app.empty() && issues.size() == before) {
    issues.push_back({"", {}, stored::FieldPath(path, "application"), "missing"});
  }
  if (issues.size() != before) return std::nullopt;
  return a;
}

}  // namespace

const char* ToString(RollbackAppPhase phase) {
  switch (phase) {
    case RollbackAppPhase::kWaiting:
      return "Waiting";
    case RollbackAppPhase::kSyncing:
      return "Syncing";
    case RollbackAppPhase::kRolledBack:
      return "RolledBack";
    case RollbackAppPhase::kFailed:
      return "Failed";
  }
  return "Waiting";
}

std::optional<RollbackAppPhase> ParseRollbackAppPhase(const std::string& text) {
  for (auto p : {RollbackAppPhase::kWaiting, RollbackAppPhase::kSyncing,
                 RollbackAppPhase::kRolledBack, RollbackAppPhase::kFailed}) {
    if (text == ToString(p)) return p;
  }
  return std::nullopt;
}

Json EncodeRollbackState(const RollbackState& s) {
  Json j = Json::object();
  j["reason"] = s.reason;
  if (!s.by.empty()) j["by"] = s.by;
  if (s.failed_step) j["failedStep"] = s.failed_step;
  if (!s.to.empty()) j["to"] = s.to;
  j["startedAt"] = FormatRfc3339(s.started_at);
  if (s.finished_at) j["finishedAt"] = FormatRfc3339(*s.finished_at);
  Json apps = Json::array();
  for (const auto& a : s.apps) apps.push_back(EncodeApp(a));
  j["applications"] = std::move(apps);
  if (!s.kept.empty()) j["kept"] = s.kept;
  return j;
}

std::optional<RollbackState> DecodeRollbackState(const Json& j, const std::string& path,
                                                 Issues& issues) {
  if (!j.is_object()) {
    stored::WrongType(path, "an object", j, issues);
    return std::nullopt;
  }
  const size_t before = issues.size();
  RollbackState s;
  s.reason = stored::String(j, "reason", path, issues).value_or("");
  s.by = stored::String(j, "by", path, issues).value_or("");
  s.failed_step = static_cast<int>(stored::Int(j, "failedStep", path, issues).value_or(0));
  s.to = stored::String(j, "to", path, issues).value_or("");
  if (auto t = TimeField(j, "startedAt", path, issues)) {
    s.started_at = *t;
  } else if (issues.size() == before) {
    issues.push_back({"", {}, stored::FieldPath(path, "startedAt"), "missing"});
  }
  s.finished_at = TimeField(j, "finishedAt", path, issues);
  if (const Json* apps = stored::Array(j, "applications", path, issues)) {
    for (size_t i = 0; i < apps->size(); ++i) {
      auto a = DecodeApp((*apps)[i],
                         stored::FieldPath(path, "applications") + "[" + std::to_string(i) + "]",
                         issues);
      if (a) s.apps.push_back(std::move(*a));
    }
  }
  s.kept = stored::Strings(j, "kept", path, issues);
  if (issues.size() != before) return std::nullopt;
  return s;
}

std::string RollbackStarted(const std::optional<RollbackState>& before,
                            const std::optional<RollbackState>& after) {
  if (!after) return "";
  if (before && before->started_at == after->started_at && before->reason == after->reason) {
    return "";
  }
  return after->reason;
}

Json EncodeRollbackRequest(const RollbackRequest& r) {
  Json j = Json::object();
  j["by"] = r.by;
  if (!r.to.empty()) j["to"] = r.to;
  j["at"] = FormatRfc3339(r.at);
  return j;
}

std::optional<RollbackRequest> DecodeRollbackRequest(const Json& j, const std::string& path,
                                                     Issues& issues) {
  if (!j.is_object()) {
    stored::WrongType(path, "an object", j, issues);
    return std::nullopt;
  }
  const size_t before = issues.size();
  RollbackRequest r;
  r.by = stored::String(j, "by", path, issues).value_or("");
  r.to = stored::String(j, "to", path, issues).value_or("");
  if (auto t = TimeField(j, "at", path, issues)) r.at = *t;
  if (issues.size() != before) return std::nullopt;
  return r;
}

}  // namespace fleetwave::engine
