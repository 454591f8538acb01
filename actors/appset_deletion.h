// What an appset actor reads and writes when something of its set disappears (product §3.5):
// the stored marks, the snapshot of an app from its gathered generation and render (so the
// deletion actor, deletion_actor.h, can delete after the definition is gone and after a
// restart), and the store operations of the marks. The decisions themselves are
// engine/deletion/deletion_marks.h; this file only converts.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/appset/appset.h"
#include "engine/appset/generate.h"
#include "engine/deletion/deletion_marks.h"
#include "engine/deletion/deletion_state.h"
#include "sources/app_render.h"
#include "store/state.h"

namespace fleetwave::actors {

// This set's stored deletions, as the appset actor reads them on every gather.
struct StoredDeletions {
  using Entry = engine::StoredDeletion;
  std::optional<Entry> set;
  std::map<std::string, Entry> apps;
  std::vector<std::string> errors;
};

// Reads this set's deletions from the store (blocking).
StoredDeletions LoadStoredDeletions(store::State& state, const std::string& appset);

// The snapshot deleting one app needs: name, labels, cluster, the kinds it rendered.
engine::DeletionApp DeletionAppOf(const engine::GeneratedApplication& app,
                                  const sources::AppRender* render);

// The store operations of the engine's marks (engine/deletion/deletion_marks.h), in one batch
// with the reconcile's other writes.
void AddSetMark(const std::string& appset, const engine::SetMark& mark, store::StateBatch& batch);
void AddAppMarks(const std::string& appset, const engine::AppMarks& marks,
                 store::StateBatch& batch);

}  // namespace fleetwave::actors
