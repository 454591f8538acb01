#include "engine/appset/stored_records.h"

#include "engine/issue.h"
#include "engine/rollingsync/rollout_plan.h"
#include "engine/sync/operation_record.h"

namespace fleetwave::engine {

std::string StoredStateProblem(const StoredRecordsView& r, const StoredRecordNames& names) {
  Issues issues;
  for (const auto& [app, value] : r.operations) {
    OperationRecordFromJson(*value, issues);
    if (!issues.empty()) return names.operation_key(app) + ": " + FormatIssue(issues[0]);
  }
  Json status = Json::object();
  Json entries = Json::array();
  for (const auto& [app, value] : r.statuses) entries.push_back(*value);
  status["applicationStatus"] = std::move(entries);
  if (r.conditions) status["conditions"] = *r.conditions;
  if (r.rollout) status["rollout"] = *r.rollout;
  DecodeStoredRolloutStatus(status, issues);
  if (!issues.empty()) return names.set_key + " (stored status): " + FormatIssue(issues[0]);
  return "";
}

StoredMirror MirrorOfRecords(const StoredRecordsView& r, std::vector<std::string>& log) {
  StoredMirror m;
  for (const auto& [app, value] : r.statuses) m.statuses[app] = *value;
  for (const auto& [app, value] : r.specs) m.stored[app].spec = *value;
  for (const auto& [app, value] : r.operations) {
    Issues issues;
    m.stored[app].operation = OperationRecordFromJson(*value, issues);
    for (const auto& i : issues) log.push_back(app + ": stored operation: " + FormatIssue(i));
  }
  if (r.conditions && r.conditions->is_array()) m.conditions = *r.conditions;
  if (r.rollout) m.rollout = *r.rollout;
  return m;
}

}  // namespace fleetwave::engine
