// Argo-shaped Applications and ApplicationSets as the API serves them, built from a few fields,
// for the fleet view's table tests.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/appset/app_query.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine::fleetview_testing {

struct AppSpec {
  std::string name = {};
  std::string cluster = {};
  std::string health = {};
  std::string sync = {};
  std::string operation = {};  // operationState.phase ("" none)
  std::string rollout = {};    // the set's applicationStatus entry ("" none)
  int step = 0;
  std::map<std::string, std::string> labels = {};
};

inline Json App(const AppSpec& s) {
  Json app = {{"apiVersion", "argoproj.io/v1alpha1"},
              {"kind", "Application"},
              {"metadata", {{"name", s.name}}},
              {"spec", {{"destination", {{"name", s.cluster}}}}},
              {"status", Json::object()}};
  if (!s.labels.empty()) app["metadata"]["labels"] = s.labels;
  if (!s.health.empty()) app["status"]["health"]["status"] = s.health;
  if (!s.sync.empty()) app["status"]["sync"]["status"] = s.sync;
  if (!s.operation.empty()) app["status"]["operationState"]["phase"] = s.operation;
  return app;
}

// A set with `steps` RollingSync steps (0: no strategy), `current_step` as status.rollout.step,
// and an applicationStatus entry for every app with a rollout status.
inline Json RollingSet(const std::string& name, int steps, int current_step,
                       const std::vector<AppSpec>& apps) {
  Json set = {{"metadata", {{"name", name}}}, {"spec", Json::object()}, {"status", Json::object()}};
  if (steps > 0) {
    Json list = Json::array();
    for (int i = 0; i < steps; ++i) list.push_back(Json{{"matchExpressions", Json::array()}});
    set["spec"]["strategy"] = {{"type", "RollingSync"}, {"rollingSync", {{"steps", list}}}};
    set["status"]["rollout"] = {{"step", current_step}};
  }
  Json entries = Json::array();
  for (const AppSpec& a : apps) {
    if (a.rollout.empty()) continue;
    entries.push_back(Json{{"application", a.name},
                           {"status", a.rollout},
                           {"step", std::to_string(a.step)},
                           {"message", "entry of " + a.name}});
  }
  set["status"]["applicationStatus"] = std::move(entries);
  return set;
}

inline std::vector<const Json*> Pointers(const std::vector<Json>& apps) {
  std::vector<const Json*> out;
  for (const Json& a : apps) out.push_back(&a);
  return out;
}

inline std::vector<std::string> Names(const std::vector<AppRow>& rows) {
  std::vector<std::string> out;
  for (const AppRow& r : rows) out.push_back(r.name);
  return out;
}

}  // namespace fleetwave::engine::fleetview_testing
