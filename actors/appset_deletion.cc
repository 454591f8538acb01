#include "actors/appset_deletion.h"

#include <algorithm>

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
  if (render != nullptr && render->objects) {
    std::set<std::pair<std::string, std::string>> kinds;
    for (const auto& o : *render->objects) {
      auto api = o.object.is_object() ? o.object.find("apiVersion") : o.object.end();
      if (api != o.object.end() && api->is_string()) {
        kinds.emplace(api->get<std::string>(), o.ref.kind);
      }
    }
    out.kinds.assign(kinds.begin(), kinds.end());
  }
  return out;
}

engine::DeletionRecord SetDeletionRecord(const engine::ApplicationSet& appset,
                                         const std::vector<engine::DeletionApp>& apps,
                                         const StoredDeletions& stored, engine::Time now,
                                         engine::Duration grace, const std::string& reason) {
  engine::DeletionRecord r = engine::MarkPending(now, grace, reason);
  r.strategy = appset.strategy;
  r.preserve_resources = appset.preserve_resources_on_deletion;
  std::map<std::string, engine::DeletionApp> by_name;
  for (const auto& [name, entry] : stored.apps) {
    for (const auto& a : entry.record.apps) {
      if (entry.record.gone.count(a.name) == 0) by_name[a.name] = a;
    }
  }
  for (const auto& a : apps) by_name[a.name] = a;
  for (auto& [name, a] : by_name) r.apps.push_back(std::move(a));
  return r;
}

AppMarks MarkDisappearedApps(const std::string& appset, bool inputs_trusted,
                             const std::set<std::string>& known,
                             const std::set<std::string>& generated,
                             const std::map<std::string, engine::DeletionApp>& previous,
                             const StoredDeletions& stored, engine::Time now,
                             engine::Duration grace, store::StateBatch& batch) {
  AppMarks marks;
  engine::DisappearanceInput in;
  in.inputs_trusted = inputs_trusted;
  in.known = known;
  in.present = generated;
  for (const auto& [app, entry] : stored.apps) in.pending[app] = entry.record;
  in.now = now;
  in.grace = grace;
  in.deleting_cancellable = true;
  const engine::DisappearanceDecision d = engine::DecideDisappearance(in);
  for (const auto& app : d.mark) {
    engine::DeletionRecord r = engine::MarkPending(now, grace, "no longer generated");
    auto p = previous.find(app);
    engine::DeletionApp snapshot;
    snapshot.name = app;
    r.apps.push_back(p != previous.end() ? p->second : snapshot);
    // The app leaves the set's records now; only its deletion stays, which keeps what deleting
    // it needs. A status kept for it would read as "known" and mark it again.
    batch.RemoveApp(appset, app);
    batch.PutDeletion(appset, app, engine::EncodeDeletionRecord(r));
    marks.marked.push_back(app);
    marks.records[app] = r;
    marks.log.push_back("appset=" + appset + " app=" + app +
                        (r.apps[0].cluster.empty() ? "" : " cluster=" + r.apps[0].cluster) +
                        " is no longer generated: PendingDeletion until " +
                        engine::FormatRfc3339(r.due));
  }
  for (const auto& app : d.cancel) {
    // Compare-and-set: once the deletion actor moved it to Deleting, the cancel fails and the
    // whole batch is retried with the record as it is then.
    batch.Remove(store::keys::AppDeletion(appset, app), stored.apps.at(app).revision);
    marks.cancelled.push_back(app);
    marks.log.push_back("appset=" + appset + " app=" + app +
                        " is generated again: its pending deletion is cancelled");
  }
  return marks;
}

engine::Json PendingDeletionsJson(const StoredDeletions& stored, const AppMarks& marks) {
  std::map<std::string, engine::DeletionRecord> records;
  for (const auto& [app, entry] : stored.apps) records[app] = entry.record;
  for (const auto& app : marks.cancelled) records.erase(app);
  for (const auto& [app, record] : marks.records) records[app] = record;
  engine::Json out = engine::Json::array();
  for (const auto& [app, record] : records) {
    engine::Json entry = engine::DeletionStatusJson(record);
    entry["application"] = app;
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace fleetwave::actors
