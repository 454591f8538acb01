#include "engine/repository_condition.h"

#include <algorithm>
#include <map>

#include "engine/repo_url.h"
#include "engine/rollingsync/rollout_plan.h"

namespace fleetwave::engine {
namespace {

constexpr size_t kListed = 3;  // errors spelled out in the message; the rest are counted

bool OwnReason(const std::string& reason) {
  return reason == kRepositoryUnavailable || reason == kRevisionNotFound;
}

}  // namespace

bool IsRepositoryCondition(const AppSetCondition& condition) {
  return condition.type == "ErrorOccurred" && OwnReason(condition.reason);
}

std::vector<Error> RepositoryErrorsOf(const std::vector<ObservedApp>& apps,
                                      const std::vector<Error>& generator_errors) {
  std::map<std::string, Error> by_text;
  for (const auto& app : apps) {
    for (const auto& e : app.repository_errors) by_text.emplace(e.ToString(), e);
  }
  for (const auto& e : generator_errors) by_text.emplace(e.ToString(), e);
  std::vector<Error> out;
  out.reserve(by_text.size());
  for (auto& [text, e] : by_text) out.push_back(std::move(e));
  return out;
}

std::optional<AppSetCondition> RepositoryErrorCondition(const std::vector<Error>& errors) {
  if (errors.empty()) return std::nullopt;
  const bool all_not_found = std::all_of(
      errors.begin(), errors.end(), [](const Error& e) { return e.kind == ErrorKind::kNotFound; });
  std::string message;
  for (size_t i = 0; i < errors.size() && i < kListed; ++i) {
    if (i > 0) message += "; ";
    message += Error{errors[i].kind, RedactUrl(errors[i].object), errors[i].message}.ToString();
  }
  if (errors.size() > kListed) {
    message += "; and " + std::to_string(errors.size() - kListed) + " more";
  }
  return AppSetCondition{"ErrorOccurred", "True",
                         all_not_found ? kRevisionNotFound : kRepositoryUnavailable,
                         std::move(message), std::nullopt};
}

std::vector<AppSetCondition> ApplyRepositoryErrors(const std::vector<AppSetCondition>& conditions,
                                                   const std::vector<Error>& errors, Time now) {
  auto current = std::find_if(conditions.begin(), conditions.end(),
                              [](const AppSetCondition& c) { return c.type == "ErrorOccurred"; });
  const bool other_error =
      current != conditions.end() && current->status == "True" && !OwnReason(current->reason);
  if (other_error) return conditions;
  if (std::optional<AppSetCondition> condition = RepositoryErrorCondition(errors)) {
    return MergeConditions(conditions, {std::move(*condition)}, {}, now);
  }
  if (current != conditions.end() && OwnReason(current->reason)) {
    return MergeConditions(conditions, {}, {"ErrorOccurred"}, now);
  }
  return conditions;
}

Json StoredStatusWithRepositoryErrors(const Json& stored_status, const Json& shown,
                                      const std::vector<Error>& errors, Time now, Issues& issues) {
  StoredRolloutStatus stored = DecodeStoredRolloutStatus(stored_status, issues);
  // The condition shown last is newer than the stored one: it is the one kept or replaced.
  if (shown.is_object() && shown.contains("conditions")) {
    Issues own_output;  // what this function encoded decodes without issues
    for (const auto& c : DecodeAppSetConditions(shown["conditions"], own_output)) {
      if (!IsRepositoryCondition(c)) continue;
      auto current = std::find_if(stored.conditions.begin(), stored.conditions.end(),
                                  [&c](const AppSetCondition& s) { return s.type == c.type; });
      if (current == stored.conditions.end()) {
        stored.conditions.push_back(c);
      } else if (IsRepositoryCondition(*current)) {
        *current = c;
      }
    }
  }
  PlanResult shown_status;  // encoded as a decision's status is
  shown_status.other_status = std::move(stored.other);
  shown_status.application_status = std::move(stored.application_status);
  shown_status.conditions = ApplyRepositoryErrors(stored.conditions, errors, now);
  if (stored.has_rollout) shown_status.rollout = std::move(stored.rollout);
  return PlanStatusJson(shown_status);
}

}  // namespace fleetwave::engine
