#include "engine/rollingsync/rollback_summary.h"

#include <array>
#include <optional>

#include "engine/issue.h"
#include "engine/progress/workload.h"
#include "engine/rollingsync/rollback_state.h"

namespace fleetwave::engine {
namespace {

constexpr std::array<RollbackAppPhase, 4> kPhases{
    RollbackAppPhase::kWaiting, RollbackAppPhase::kSyncing, RollbackAppPhase::kRolledBack,
    RollbackAppPhase::kFailed};

long long Count(const Json& summary, const char* phase) {
  const Json* n = FieldAt(summary, {"counts", phase});
  return n != nullptr && n->is_number_integer() ? n->get<long long>() : 0;
}

std::string Text(const Json& object, const char* key) {
  const Json* v = FieldAt(object, {key});
  return v != nullptr && v->is_string() ? v->get<std::string>() : "";
}

}  // namespace

Json RollbackSummaryOf(const Json& appset) {
  const Json* stored = FieldAt(appset, {"status", "rollout", "rollback"});
  if (stored == nullptr || stored->is_null()) return Json();
  Issues issues;
  const std::optional<RollbackState> rollback =
      DecodeRollbackState(*stored, "status.rollout.rollback", issues);
  if (!rollback) return Json();
  Json out = Json::object();
  out["reason"] = rollback->reason;
  if (!rollback->by.empty()) out["by"] = rollback->by;
  if (rollback->failed_step > 0) out["failedStep"] = rollback->failed_step;
  if (!rollback->to.empty()) out["to"] = rollback->to;
  out["startedAt"] = FormatRfc3339(rollback->started_at);
  if (rollback->finished_at) out["finishedAt"] = FormatRfc3339(*rollback->finished_at);
  out["total"] = rollback->apps.size();
  Json counts = Json::object();
  for (RollbackAppPhase phase : kPhases) counts[ToString(phase)] = 0;
  Json failed = Json::array();
  for (const RollbackApp& app : rollback->apps) {
    Json& n = counts[ToString(app.phase)];
    n = n.get<long long>() + 1;
    if (app.phase == RollbackAppPhase::kFailed && failed.size() < kRollbackNamedApps) {
      Json entry = {{"application", app.app}};
      if (!app.message.empty()) entry["message"] = app.message;
      failed.push_back(std::move(entry));
    }
  }
  out["counts"] = std::move(counts);
  out["failed"] = std::move(failed);
  Json kept = Json::array();
  for (const std::string& app : rollback->kept) {
    if (kept.size() == kRollbackNamedApps) break;
    kept.push_back(app);
  }
  out["kept"] = std::move(kept);
  out["keptTotal"] = rollback->kept.size();
  return out;
}

std::string RollbackLine(const Json& summary) {
  if (!summary.is_object()) return "";
  std::string line;
  const Json* step = FieldAt(summary, {"failedStep"});
  if (Text(summary, "reason") == kRollbackStepFailed && step != nullptr &&
      step->is_number_integer()) {
    line = "Rollback after step " + std::to_string(step->get<long long>()) + " failed";
  } else {
    const std::string by = Text(summary, "by");
    line = "Rollback by " + (by.empty() ? std::string("an operator") : by);
  }
  const std::string to = Text(summary, "to");
  if (!to.empty()) line += " to revision " + to;
  line += ", started " + Text(summary, "startedAt");
  const std::string finished = Text(summary, "finishedAt");
  line += finished.empty() ? ", in progress" : ", finished " + finished;
  const Json* total = FieldAt(summary, {"total"});
  line +=
      ": " + std::to_string(Count(summary, "RolledBack")) + " rolled back, " +
      std::to_string(Count(summary, "Syncing")) + " syncing, " +
      std::to_string(Count(summary, "Waiting")) + " waiting, " +
      std::to_string(Count(summary, "Failed")) + " failed of " +
      std::to_string(total != nullptr && total->is_number_integer() ? total->get<long long>() : 0);
  const Json* kept = FieldAt(summary, {"kept"});
  const Json* kept_total = FieldAt(summary, {"keptTotal"});
  if (kept != nullptr && kept->is_array() && !kept->empty()) {
    line += "; kept at their revision: ";
    for (size_t i = 0; i < kept->size(); ++i) {
      if (i > 0) line += ", ";
      line += (*kept)[i].is_string() ? (*kept)[i].get<std::string>() : "?";
    }
    const long long all = kept_total != nullptr && kept_total->is_number_integer()
                              ? kept_total->get<long long>()
                              : static_cast<long long>(kept->size());
    if (all > static_cast<long long>(kept->size())) {
      line += " and " + std::to_string(all - static_cast<long long>(kept->size())) + " more";
    }
  }
  return line;
}

}  // namespace fleetwave::engine
