#include "engine/rollingsync/rollout_conditions.h"

#include <algorithm>
#include <map>

#include "engine/stored_fields.h"

namespace fleetwave::engine {
namespace {

std::string StringAt(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::vector<AppSetCondition> DecodeAppSetConditions(const Json& list, Issues& issues) {
  std::vector<AppSetCondition> out;
  if (list.is_null()) return out;
  if (!list.is_array()) {
    issues.push_back({"", {}, "status.conditions", "must be a list"});
    return out;
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& c = list[i];
    const std::string path = "status.conditions[" + std::to_string(i) + "]";
    if (!c.is_object() || StringAt(c, "type").empty()) {
      issues.push_back({"", {}, path, "a condition needs a type"});
      continue;
    }
    // Strict (issue 30): a field of the wrong type is an issue, never read as "".
    const size_t before = issues.size();
    for (const char* key : {"status", "reason", "message", "lastTransitionTime"}) {
      stored::String(c, key, path, issues);
    }
    if (issues.size() != before) continue;
    AppSetCondition cond{StringAt(c, "type"), StringAt(c, "status"), StringAt(c, "reason"),
                         StringAt(c, "message"), std::nullopt};
    if (std::string t = StringAt(c, "lastTransitionTime"); !t.empty()) {
      cond.last_transition_time = ParseRfc3339(t);
      if (!cond.last_transition_time) {
        issues.push_back({"", {}, path + ".lastTransitionTime", "not an RFC 3339 time: " + t});
      }
    }
    out.push_back(std::move(cond));
  }
  return out;
}

Json EncodeAppSetCondition(const AppSetCondition& c) {
  Json j = {{"type", c.type}, {"status", c.status}, {"reason", c.reason}, {"message", c.message}};
  if (c.last_transition_time) j["lastTransitionTime"] = FormatRfc3339(*c.last_transition_time);
  return j;
}

AppSetCondition RolloutProgressingCondition(const RolloutProgress& p) {
  const std::string step = std::to_string(p.current_step);
  if (p.failed_step != 0) {
    return {"RolloutProgressing", "False", "RolloutFailed",
            p.rolled_back ? p.failed_message + "; " + p.rollback_message : p.failed_message,
            std::nullopt};
  }
  if (p.rolled_back) {
    return {"RolloutProgressing", "False", "RolloutRolledBack", p.rollback_message, std::nullopt};
  }
  if (p.current_step == 0) {
    return {"RolloutProgressing", "False", "ApplicationSetRolloutComplete",
            "ApplicationSet Rollout has completed", std::nullopt};
  }
  if (p.aborted) {
    return {"RolloutProgressing", "False", "RolloutAborted", p.aborted_message, std::nullopt};
  }
  if (p.paused) {
    return {"RolloutProgressing", "False", "ApplicationSetPaused",
            "ApplicationSet rollout is paused at step " + step, std::nullopt};
  }
  if (p.deadline_exceeded) {
    return {"RolloutProgressing", "False", "ProgressDeadlineExceeded",
            "ApplicationSet rollout step " + step + " has timed out progressing", std::nullopt};
  }
  return {"RolloutProgressing", "True", "ApplicationSetModified",
          "ApplicationSet is performing rollout of step " + step, std::nullopt};
}

AppSetCondition InvalidRolloutConfigCondition(const std::optional<std::string>& issue) {
  if (issue) {
    return {"InvalidRolloutConfig", "True", "ApplicationSetInvalidRolloutConfig", *issue,
            std::nullopt};
  }
  return {"InvalidRolloutConfig", "False", "ApplicationSetValidRolloutConfig",
          "Rolling Sync Configured correctly", std::nullopt};
}

AppSetCondition ResourcesUpToDateCondition() {
  return {"ResourcesUpToDate", "True", "ApplicationSetUpToDate",
          "All applications have been generated successfully", std::nullopt};
}

AppSetCondition NoStepsCondition() {
  return {"ErrorOccurred", "True", "ApplicationSetRolloutError", "No steps defined for rollout",
          std::nullopt};
}

std::vector<AppSetCondition> MergeConditions(const std::vector<AppSetCondition>& previous,
                                             const std::vector<AppSetCondition>& set,
                                             const std::set<std::string>& remove, Time now) {
  std::map<std::string, AppSetCondition> by_type;
  for (const auto& c : previous) {
    if (!remove.count(c.type)) by_type[c.type] = c;
  }
  for (AppSetCondition c : set) {
    auto it = by_type.find(c.type);
    const bool unchanged = it != by_type.end() && it->second.status == c.status &&
                           it->second.reason == c.reason && it->second.message == c.message;
    c.last_transition_time =
        unchanged && it->second.last_transition_time ? it->second.last_transition_time : now;
    by_type[c.type] = std::move(c);
  }
  std::vector<AppSetCondition> out;
  out.reserve(by_type.size());
  for (auto& [type, c] : by_type) out.push_back(std::move(c));
  return out;
}

}  // namespace fleetwave::engine
