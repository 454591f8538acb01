// A set as a standby serves it (issue 28, docs/state-store.md "What a standby serves"): the
// records the leader committed for it (store/state.h: status entries, conditions, rollout,
// per app the Application spec and sync operation last written) turned into the JSON the
// StatusBoard holds for a set and its Applications, so a standby's read API shows the leader's
// rollout (current step, each app's entry, the conditions) instead of an empty or stale board.
//
// What only the leader knows is left out rather than guessed: live health and sync status
// (judged from the clusters' objects by the deciding actors), the generated labels, the
// resources list. Every set says where it comes from: "sharedState": {"source": "etcd",
// "revision": R}, R the highest store revision among its records (its state as of R).
// Pure; tests/engine/daemon/shared_appset_view_test.cc.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/issue.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

// One set's stored records, by app where per app (no store types: store/ fills it).
struct StoredAppSetParts {
  std::string name;
  std::map<std::string, Json> statuses;    // app -> its status.applicationStatus entry
  std::map<std::string, Json> specs;       // app -> the Application spec last written
  std::map<std::string, Json> operations;  // app -> its sync operation record
  std::optional<Json> conditions;          // the set's conditions (a list)
  std::optional<Json> rollout;             // status.rollout
  int64_t revision = 0;                    // the highest store revision of these records
};

struct SharedAppSetView {
  Json appset;                     // {"metadata", "spec"?, "status", "sharedState"}
  std::vector<Json> applications;  // Argo-shaped, sorted by name
};

// `spec`: the set's spec summary ({"file", "strategy"}) when this instance's own inputs define
// the set (the hosts share one ApplicationSet directory), else null (left out). A stored
// operation that does not decode is left out of its Application and named in `issues`.
SharedAppSetView SharedAppSetViewOf(const StoredAppSetParts& parts, const Json& spec,
                                    Issues& issues);

}  // namespace fleetwave::engine
