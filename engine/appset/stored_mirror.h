// The store's view of one ApplicationSet as its actor keeps it in memory, and the rules that turn
// a decision into the records it must write (issue 25: these lived in the appset actor, which
// built its store batches by diffing JSON). The actor only translates a MirrorChange into store
// writes and forwards what the decider must be told. Pinned by
// tests/engine/appset/stored_mirror_test.cc.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/rollingsync/appset_decider.h"
#include "engine/rollingsync/appset_reconcile.h"
#include "engine/sync/operation_record.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

// The set's records as the store holds them. Its actor is the only writer of these keys, so it
// updates the mirror after each commit instead of reading back.
struct StoredMirror {
  std::map<std::string, Json> statuses;  // app -> status.applicationStatus entry
  Json conditions = Json::array();
  std::optional<Json> rollout;
  // Each app's spec and operation as the engine reads them, decoded once when they change rather
  // than in every reconcile (decoding every app's operation was 5% of the daemon's CPU at 1,000
  // apps).
  std::map<std::string, StoredApp> stored;
};

// What one decision changes in the mirror: exactly the records its commit writes, applied to
// the mirror once that commit landed (ApplyChange). A decision never copies the whole mirror,
// which at 2,000 apps cost more than deciding.
struct MirrorChange {
  std::set<std::string> removed;  // apps whose records left the set (marked for deletion)
  std::map<std::string, Json> statuses, specs;
  std::map<std::string, OperationRecord> operations;  // started by the decision
  std::optional<Json> conditions, rollout;
};

// A from-scratch decision's change against the mirror, and the apps its status lists.
struct DecisionChange {
  MirrorChange change;
  std::set<std::string> present;  // every app with an applicationStatus entry
};

// What a from-scratch decision (ReconcileAppSet's `result`) writes. Each write costs the store
// an fsync, so a status entry is written only when it is new or differs from the mirror's;
// conditions (an empty list when the status holds no list) only when they differ; status.rollout
// only when it is an object that differs. Every spec and every started operation is written.
DecisionChange ChangeOfDecision(const StoredMirror& mirror, const AppSetReconcileResult& result);

// What an incremental decision writes: the decider's delta already names only what changed;
// `status` is the decider's status, whose conditions and rollout the delta flags.
MirrorChange ChangeOfDelta(const AppSetDelta& delta, const Json& status);

// The apps whose stored spec or operation ApplyChange changed in the mirror: an incremental
// decider holding the set is told each one's new value (read from the mirror), specs first.
struct MirrorUpdated {
  std::vector<std::string> specs, operations;
};

// Applies a committed change. Removed apps are erased; a new spec resets the app's fingerprint
// (it is recomputed at the next reconcile). An attempt that ended while the decision was being
// committed updated the mirror's operation already, and the decision's copy still holds it as
// Running, which would start the attempt again (a duplicate apply): a decision never changes an
// existing operation, it only starts ones with new ids, so for the same id the mirror's record is
// the newer one and stays.
MirrorUpdated ApplyChange(StoredMirror& mirror, MirrorChange change);

// The mirror as the ApplicationSet status the engine decodes (DecodeStoredRolloutStatus).
Json StoredStatusJson(const StoredMirror& mirror);

}  // namespace fleetwave::engine
