#include "engine/rollingsync/plan_difference.h"

#include <algorithm>

namespace fleetwave::engine {
namespace {

std::string Describe(const AppRolloutStatus& e) { return EncodeAppRolloutStatus(e).dump(); }

std::string Describe(const std::vector<std::string>& list) { return Json(list).dump(); }

std::string Describe(const std::optional<Time>& t) {
  return t ? FormatRfc3339(*t) : std::string("none");
}

std::string Describe(const std::vector<AppSetCondition>& conditions) {
  Json list = Json::array();
  for (const auto& c : conditions) list.push_back(EncodeAppSetCondition(c));
  return list.dump();
}

}  // namespace

std::optional<std::string> FirstPlanDifference(const PlanResult& expected,
                                               const PlanResult& actual) {
  const auto& a = expected.application_status;
  const auto& b = actual.application_status;
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    if (i < a.size() && i < b.size() && a[i] == b[i]) continue;
    if (i >= b.size()) return "applicationStatus: " + a[i].application + " missing";
    if (i >= a.size()) return "applicationStatus: " + b[i].application + " unexpected";
    return "applicationStatus of " + a[i].application + ": expected " + Describe(a[i]) + ", got " +
           Describe(b[i]);
  }
  if (Describe(expected.conditions) != Describe(actual.conditions)) {
    return "conditions: expected " + Describe(expected.conditions) + ", got " +
           Describe(actual.conditions);
  }
  if (expected.rollout != actual.rollout) {
    auto text = [](const std::optional<RolloutState>& s) {
      return s ? EncodeRolloutState(*s).dump() : std::string("none");
    };
    return "rollout: expected " + text(expected.rollout) + ", got " + text(actual.rollout);
  }
  if (expected.apps_to_sync != actual.apps_to_sync) {
    return "appsToSync: expected " + Describe(expected.apps_to_sync) + ", got " +
           Describe(actual.apps_to_sync);
  }
  for (const auto& [app, op] : expected.operations) {
    auto it = actual.operations.find(app);
    if (it == actual.operations.end()) return "operation of " + app + " missing";
    if (it->second != op) {
      return "operation of " + app + ": expected " + op.dump() + ", got " + it->second.dump();
    }
  }
  if (expected.operations.size() != actual.operations.size()) return "operations: unexpected ones";
  if (expected.step_deadline != actual.step_deadline) {
    return "step deadline: expected " + Describe(expected.step_deadline) + ", got " +
           Describe(actual.step_deadline);
  }
  if (expected.soak_ends_at != actual.soak_ends_at) {
    return "soak end: expected " + Describe(expected.soak_ends_at) + ", got " +
           Describe(actual.soak_ends_at);
  }
  if (expected.window_edge_at != actual.window_edge_at) {
    return "sync window edge: expected " + Describe(expected.window_edge_at) + ", got " +
           Describe(actual.window_edge_at);
  }
  if (expected.analysis_due != actual.analysis_due) {
    auto text = [](const std::optional<AnalysisRequest>& r) {
      return r ? "step " + std::to_string(r->step) + " of generation " +
                     std::to_string(r->generation) + " due " + FormatRfc3339(r->due)
               : std::string("none");
    };
    return "analysis due: expected " + text(expected.analysis_due) + ", got " +
           text(actual.analysis_due);
  }
  {
    auto text = [](const std::vector<RollbackSync>& syncs) {
      Json out = Json::array();
      for (const auto& b : syncs) {
        out.push_back({{"app", b.app},
                       {"to", b.to},
                       {"since", FormatRfc3339(b.since)},
                       {"operation", b.operation}});
      }
      return out.dump();
    };
    const std::string want = text(expected.rollback_syncs);
    const std::string got = text(actual.rollback_syncs);
    if (want != got) return "rollback syncs: expected " + want + ", got " + got;
  }
  if (expected.steps != actual.steps) {
    for (const auto& [app, step] : expected.steps) {
      auto it = actual.steps.find(app);
      if (it == actual.steps.end()) return "steps: " + app + " missing";
      if (it->second != step) {
        return "step of " + app + ": expected " + std::to_string(step) + ", got " +
               std::to_string(it->second);
      }
    }
    return "steps: unexpected apps";
  }
  if (expected.drifted != actual.drifted) {
    return "drifted: expected " + Describe(expected.drifted) + ", got " + Describe(actual.drifted);
  }
  if (expected.healed != actual.healed) {
    return "healed: expected " + Describe(expected.healed) + ", got " + Describe(actual.healed);
  }
  if (expected.other_status != actual.other_status) {
    return "status (other fields): expected " + expected.other_status.dump() + ", got " +
           actual.other_status.dump();
  }
  return std::nullopt;
}

}  // namespace fleetwave::engine
