// Small builders for hand-made RollingSync inputs, so each table row reads like the rule it
// pins. Literal times only.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/appset/application.h"
#include "engine/appset/appset.h"
#include "engine/appset/generate.h"
#include "engine/rollingsync/rollout_status.h"
#include "engine/time.h"

namespace fleetwave::engine::testing_builders {

inline Time T(const char* rfc3339) { return *ParseRfc3339(rfc3339); }

inline IntOrString Int(long long v) { return {true, v, ""}; }
inline IntOrString Str(const std::string& s) { return {false, 0, s}; }

inline LabelSelectorRequirement Expr(const std::string& key, const std::string& op,
                                     std::vector<std::string> values) {
  return {key, op, std::move(values), {}};
}

// A step selecting label `key` In `values`.
inline RolloutStep StepIn(const std::string& key, std::vector<std::string> values,
                          std::optional<IntOrString> max_update = std::nullopt) {
  RolloutStep s;
  s.match_expressions.push_back(Expr(key, "In", std::move(values)));
  s.max_update = max_update;
  return s;
}

inline ApplicationSet RollingSet(std::vector<RolloutStep> steps) {
  ApplicationSet set;
  set.file = "set.yaml";
  set.name = "set";
  set.strategy.type = "RollingSync";
  set.strategy.steps = std::move(steps);
  return set;
}

// A live app on step label `step`, Synced/Healthy at revision r1, reconciled at 12:00.
inline Application Live(const std::string& name, const std::string& step,
                        const std::string& sync = "Synced", const std::string& health = "Healthy",
                        const std::string& revision = "r1") {
  Application a;
  a.name = name;
  if (!step.empty()) a.labels["step"] = step;
  a.spec = {{"project", "default"}, {"source", {{"repoURL", "https://git.example/r.git"}}}};
  a.sync_status = sync;
  a.health_status = health;
  a.revisions = {revision};
  a.reconciled_at = T("2026-03-01T12:00:00Z");
  return a;
}

inline AppRolloutStatus Entry(const std::string& app, RolloutAppState status,
                              const std::string& step, const std::string& revision = "r1",
                              const char* transition = "2026-03-01T11:55:00Z") {
  AppRolloutStatus e;
  e.application = app;
  e.status = status;
  e.message = "earlier message";
  e.step = step;
  e.target_revisions = {revision};
  e.last_transition_time = T(transition);
  return e;
}

inline GeneratedApplication Desired(const Application& live) {
  GeneratedApplication g;
  g.name = live.name;
  g.labels = live.labels;
  g.object = {{"metadata", {{"name", live.name}}}, {"spec", live.spec}};
  return g;
}

inline std::vector<GeneratedApplication> DesiredOf(const std::vector<Application>& live) {
  std::vector<GeneratedApplication> out;
  for (const auto& a : live) out.push_back(Desired(a));
  return out;
}

}  // namespace fleetwave::engine::testing_builders
