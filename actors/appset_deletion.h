// What an appset actor writes when something of its set disappears (product §3.5): the
// PendingDeletion marks and their snapshots, built from the last gathered generation and
// renders so the deletion actor (deletion_actor.h) can delete after the definition is gone and
// after a restart. The decisions themselves are engine::DecideDisappearance; this file only
// turns the actor's gathered values into the records and store operations.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/appset.h"
#include "engine/deletion/deletion_state.h"
#include "engine/generate.h"
#include "sources/app_render.h"
#include "store/state.h"

namespace fleetwave::actors {

// This set's stored deletions, as the appset actor reads them on every gather.
struct StoredDeletions {
  struct Entry {
    engine::DeletionRecord record;
    int64_t revision = 0;
  };
  std::optional<Entry> set;
  std::map<std::string, Entry> apps;
  std::vector<std::string> errors;
};

// Reads this set's deletions from the store (blocking).
StoredDeletions LoadStoredDeletions(store::State& state, const std::string& appset);

// The snapshot deleting one app needs: name, labels, cluster, the kinds it rendered.
engine::DeletionApp DeletionAppOf(const engine::GeneratedApplication& app,
                                  const sources::AppRender* render);

// The whole set marked PendingDeletion: its last good strategy and preserve flag, its apps
// (the last generation's, plus those already pending deletion on their own, whose records the
// caller removes in the same batch).
engine::DeletionRecord SetDeletionRecord(const engine::ApplicationSet& appset,
                                         const std::vector<engine::DeletionApp>& apps,
                                         const StoredDeletions& stored, engine::Time now,
                                         engine::Duration grace, const std::string& reason);

// The per-app marks and cancels one reconcile makes, as store operations: `known` are the
// apps the store holds, `generated` the apps generated now, `previous` the apps (with renders)
// of the previous gather, which describe an app that is no longer generated.
struct AppMarks {
  std::vector<std::string> marked, cancelled, log;
  std::map<std::string, engine::DeletionRecord> records;  // the marks made
  bool changed() const { return !marked.empty() || !cancelled.empty(); }
};
AppMarks MarkDisappearedApps(const std::string& appset, bool inputs_trusted,
                             const std::set<std::string>& known,
                             const std::set<std::string>& generated,
                             const std::map<std::string, engine::DeletionApp>& previous,
                             const StoredDeletions& stored, engine::Time now,
                             engine::Duration grace, store::StateBatch& batch);

// status.pendingDeletions of the set: per app pending deletion or being deleted, after `marks`
// ({application, phase, since, deleteAt, reason, remaining}), sorted by app.
engine::Json PendingDeletionsJson(const StoredDeletions& stored, const AppMarks& marks);

}  // namespace fleetwave::actors
