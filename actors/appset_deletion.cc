#include "actors/appset_deletion.h"

#include <algorithm>

#include "engine/deletion/deletion_kinds.h"

namespace fleetwave::actors {

StoredDeletions LoadStoredDeletions(store::State& state, const std::string& appset) {
  StoredDeletions out;
  store::Loaded<std::vector<store::PendingDeletion>> loaded = state.LoadDeletions();
  if (!loaded.ok()) {
    out.errors.push_back("cannot read the stored deletions: " + loaded.status.message);
    return out;
  }
  for (const auto& d : loaded.value) {
    if (d.appset != appset) continue;
    engine::Issues issues;
    auto record = engine::DecodeDeletionRecord(d.record.value, issues);
    for (const auto& i : issues) out.errors.push_back("stored deletion: " + engine::FormatIssue(i));
    if (!record) continue;
    StoredDeletions::Entry entry{std::move(*record), d.record.revision};
    if (d.app.empty()) {
      out.set = std::move(entry);
    } else {
      out.apps[d.app] = std::move(entry);
    }
  }
  return out;
}

engine::DeletionApp DeletionAppOf(const engine::GeneratedApplication& app,
                                  const sources::AppRender* render) {
  engine::DeletionApp out;
  out.name = app.name;
  out.cluster = app.cluster;
  out.labels = app.labels;
  if (render != nullptr && render->objects) out.kinds = engine::DeletionKindsOf(*render->objects);
  return out;
}

void AddSetMark(const std::string& appset, const engine::SetMark& mark, store::StateBatch& batch) {
  batch.PutDeletion(appset, "", engine::EncodeDeletionRecord(mark.record), 0);
  for (const auto& [app, revision] : mark.absorbed) {
    batch.Remove(store::keys::AppDeletion(appset, app), revision);
  }
}

void AddAppMarks(const std::string& appset, const engine::AppMarks& marks,
                 store::StateBatch& batch) {
  for (const std::string& app : marks.records_leave) batch.RemoveApp(appset, app);
  for (const auto& [app, record] : marks.marked) {
    batch.PutDeletion(appset, app, engine::EncodeDeletionRecord(record));
  }
  for (const auto& [app, revision] : marks.cancelled) {
    batch.Remove(store::keys::AppDeletion(appset, app), revision);
  }
}

}  // namespace fleetwave::actors
