// What a first load makes of a set's stored records: whether one of them cannot be used, and the
// mirror the actor keeps of them (issue 25: the rules StoredStateProblem and MirrorOf used to
// hold in the appset actor; issue 30 for refusing a stored record of the wrong type). The store's
// records are lent as plain data, so the engine never names the store. Pinned by
// tests/engine/appset/stored_records_test.cc.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/appset/stored_mirror.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

// The set's stored records, lent for the call (the owner keeps them alive).
struct StoredRecordsView {
  // app -> value, in app order.
  std::vector<std::pair<std::string, const Json*>> statuses, specs, operations;
  const Json* conditions = nullptr;  // absent: nullptr
  const Json* rollout = nullptr;
};

// How the problem names a record: the store key of `app`'s operation, and the set's key.
struct StoredRecordNames {
  std::function<std::string(const std::string& app)> operation_key;
  std::string set_key;
};

// The first record of the set that does not decode strictly: "<operation key>: <issue>" for an
// operation (in app order), else "<set key> (stored status): <issue>" for the status made of
// the entries, conditions and rollout; "" when every one does.
std::string StoredStateProblem(const StoredRecordsView& records, const StoredRecordNames& names);

// The mirror of the records: stored conditions are used only when they are a list; an
// operation that does not decode is absent, with "<app>: stored operation: <issue>" in `log`.
StoredMirror MirrorOfRecords(const StoredRecordsView& records, std::vector<std::string>& log);

}  // namespace fleetwave::engine
