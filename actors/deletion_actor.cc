#include "actors/deletion_actor.h"

#include <algorithm>
#include <map>
#include <set>

#include <caf/all.hpp>

#include "actors/atoms.h"
#include "actors/blocking_pool.h"
#include "engine/deletion/deletion_reply.h"
#include "engine/deletion/deletion_requests.h"
#include "engine/deletion/deletion_send.h"
#include "engine/deletion/deletion_state.h"
#include "engine/deletion/deletion_sweep.h"
#include "engine/operator_command.h"
#include "engine/sync/tracking.h"
#include "store/state.h"

namespace fleetwave::actors {
namespace {

using retry_atom = caf::atom_constant<caf::atom("retry")>;

using engine::Json;

using Key = engine::DeletionKey;
using Stored = engine::StoredDeletion;

struct Loaded {
  std::map<Key, Stored> records;
  std::vector<std::string> errors;
};
using LoadedPtr = std::shared_ptr<const Loaded>;

// One round's decision, committed (or not).
struct Round {
  std::map<Key, std::optional<engine::DeletionRecord>> records;  // nullopt: removed
  std::vector<std::pair<Key, engine::AppDeleteCommand>> commands;
  std::vector<std::string> sets_done;
  std::vector<std::string> log;
  store::StateBatch batch;
  int64_t revision = 0;
  std::string error;
  bool conflict = false;
};
using RoundPtr = std::shared_ptr<Round>;

}  // namespace
}  // namespace fleetwave::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fleetwave::actors::LoadedPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fleetwave::actors::RoundPtr)

namespace fleetwave::actors {
namespace {

using loaded_atom = caf::atom_constant<caf::atom("dloaded")>;
using committed_atom = caf::atom_constant<caf::atom("dcommit")>;
using wake_atom = caf::atom_constant<caf::atom("dwake")>;

struct View {
  bool reachable = false;
  bool synced = false;
  std::map<std::string, std::vector<LiveEntry>> apps;  // app label -> entries
};

struct DeletionState {
  DeletionActorConfig config;
  DeletionParent coordinator;
  std::map<Key, Stored> records;
  bool loaded = false;
  // The coordinator's cluster map arrived: before it, every cluster would look gone and every
  // app orphaned (DeletionAppView::cluster_exists), so no round runs.
  bool have_clusters = false;
  bool loading = false;
  bool reload_again = false;
  bool busy = false;   // a round's commit is in flight
  bool dirty = false;  // something happened meanwhile: another round after it
  std::map<std::string, View> views;
  std::map<std::string, caf::actor_id> view_actor;           // cluster -> actor the view is of
  std::set<std::pair<std::string, std::string>> subscribed;  // (cluster, label)
  std::set<std::pair<std::string, std::string>> kinds;       // (cluster, "apiVersion kind")
  std::map<Key, std::set<engine::ObjectRef>> sent;  // refs asked for in this process, not failed
  uint64_t wake_generation = 0;
  std::optional<engine::Time> wake_at;
  std::set<std::string> logged;  // log-once keys
  std::set<std::string> needs_sent;
  bool needs_reported = false;
  std::set<std::string> published_sets;

  static inline const char* name = "deletion";
};

// The interface plus what only this actor sends itself: pool results, its timer and a
// request asked again after a round in flight.
using DeletionActorImpl =
    DeletionActor::extend<caf::reacts_to<loaded_atom, LoadedPtr>,
                          caf::reacts_to<committed_atom, RoundPtr>,
                          caf::reacts_to<wake_atom, uint64_t>,
                          caf::reacts_to<delete_atom, std::string, std::string, retry_atom>>;
using Self = DeletionActorImpl::stateful_base<DeletionState>;

void Log(Self* self, const std::string& line) {
  if (self->state.config.services->log) self->state.config.services->log(line);
}

void LogOnce(Self* self, const std::string& key, const std::string& line) {
  if (self->state.logged.insert(key).second) Log(self, line);
}

engine::Time Now(Self* self) { return self->state.config.services->now(); }

void Advance(Self* self);

// ---- loading ----

void Load(Self* self) {
  auto& st = self->state;
  if (st.loading) {
    st.reload_again = true;
    return;
  }
  st.loading = true;
  store::Store* store = st.config.services->store;
  DeletionActorImpl me = caf::actor_cast<DeletionActorImpl>(self);
  st.config.services->pool->Post([store, me] {
    auto out = std::make_shared<Loaded>();
    store::State state(*store);
    store::Loaded<std::vector<store::PendingDeletion>> loaded = state.LoadDeletions();
    if (!loaded.ok()) {
      out->errors.push_back("cannot read the stored deletions: " + loaded.status.message);
    }
    for (const auto& d : loaded.value) {
      engine::Issues issues;
      auto record = engine::DecodeDeletionRecord(d.record.value, issues);
      for (const auto& i : issues) {
        out->errors.push_back("appset=" + d.appset + (d.app.empty() ? "" : " app=" + d.app) +
                              " stored deletion: " + engine::FormatIssue(i));
      }
      if (record) out->records[{d.appset, d.app}] = {std::move(*record), d.record.revision};
    }
    caf::anon_send(me, loaded_atom::value, LoadedPtr(out));
  });
}

// ---- what the API and metrics show ----

void Publish(Self* self) {
  auto& st = self->state;
  const auto& publish = st.config.services->publish;
  const std::map<std::string, int> pending = engine::PendingDeletionCounts(st.records);
  for (const auto& [key, stored] : st.records) {
    if (!key.app.empty() || !publish.appset) continue;
    const auto& r = stored.record;
    Json summary = {{"metadata", {{"name", key.appset}}},
                    {"spec", Json::object()},
                    {"status", {{"deletion", engine::DeletionStatusJson(r)}}}};
    std::map<std::string, std::string> clusters;
    for (const auto& a : r.apps) clusters[a.name] = a.cluster;
    publish.appset(key.appset, summary, {}, clusters, nullptr);
  }
  if (publish.pending_deletions) {
    for (const auto& [set, count] : pending) publish.pending_deletions(set, count);
    for (const auto& set : st.published_sets) {
      if (pending.count(set) == 0) publish.pending_deletions(set, 0);
    }
  }
  st.published_sets.clear();
  for (const auto& [set, count] : pending) st.published_sets.insert(set);
}

// The clusters the stored deletions still need (the coordinator keeps a context that left the
// kubeconfig running until no deletion needs it).
void ReportNeeds(Self* self) {
  auto& st = self->state;
  const std::set<std::string> needs = engine::ClustersStillNeeded(st.records);
  if (st.needs_reported && needs == st.needs_sent) return;
  st.needs_reported = true;
  st.needs_sent = needs;
  self->send(st.coordinator, needs_atom::value,
             std::vector<std::string>(needs.begin(), needs.end()));
}

// ---- timers ----

void ArmWake(Self* self, engine::Time at) {
  auto& st = self->state;
  if (st.wake_at && *st.wake_at <= at && *st.wake_at > Now(self)) return;  // an earlier one runs
  st.wake_at = at;
  const uint64_t generation = ++st.wake_generation;
  auto delay = at - Now(self);
  if (delay < engine::Duration::zero()) delay = engine::Duration::zero();
  // Rounded up to whole milliseconds: a timer never fires before the due time.
  self->delayed_send(self, std::chrono::ceil<std::chrono::milliseconds>(delay), wake_atom::value,
                     generation);
}

// ---- watching ----

std::string Label(const Key& key, const std::string& app) {
  return engine::AppLabelValue({key.appset, app});
}

// Kinds first, then the label: the subscription's first update then already says whether the
// new kinds' watches have listed (ClusterUpdate::synced), so an app is never judged gone from
// a watch that has not listed yet.
void EnsureWatching(Self* self, const Key& key, const engine::DeletionRecord& r) {
  auto& st = self->state;
  for (const auto& a : engine::AppsToWatch(r)) {
    auto cluster = st.config.clusters->find(a.cluster);
    if (cluster == st.config.clusters->end()) continue;
    for (const auto& [api, kind] : a.kinds) {
      if (st.kinds.emplace(a.cluster, api + " " + kind).second) {
        self->send(cluster->second, watch_kind_atom::value, api, kind);
      }
    }
    const std::string label = Label(key, a.name);
    if (st.subscribed.emplace(a.cluster, label).second) {
      self->send(cluster->second, subscribe_atom::value, label, caf::actor_cast<LiveSink>(self));
    }
  }
}

engine::DeletionAppView ViewOf(Self* self, const Key& key, const engine::DeletionApp& a) {
  auto& st = self->state;
  engine::DeletionAppView v;
  v.cluster_exists = st.config.clusters->count(a.cluster) > 0;
  auto view = st.views.find(a.cluster);
  if (view == st.views.end()) return v;
  auto entries = view->second.apps.find(Label(key, a.name));
  v.observed = engine::DeletionAppObserved(view->second.reachable, view->second.synced,
                                           entries != view->second.apps.end());
  if (v.observed) {
    for (const auto& e : entries->second) v.live.push_back(e.object);
  }
  return v;
}

// ---- rounds ----

engine::SentDelete SentOf(const Key& app, const std::string& cluster,
                          const DeleteCommand& command) {
  return {app, cluster, command.objects, command.unmark};
}

// Forgets the refs a failed delete sent (the next round sends them again) and logs why.
void ApplyReplyStep(Self* self, const Key& app, const engine::DeleteReplyStep& step) {
  auto& st = self->state;
  for (const auto& line : step.log) Log(self, line);
  for (const auto& ref : step.forget) st.sent[app].erase(ref);
  if (step.retry_later) ArmWake(self, Now(self) + st.config.retry);
}

void SendCommand(Self* self, const Key& key, const engine::AppDeleteCommand& c) {
  auto& st = self->state;
  auto cluster = st.config.clusters->find(c.cluster);
  if (cluster == st.config.clusters->end()) return;
  auto& sent = st.sent[{key.appset, c.app}];
  engine::DeleteSend send = engine::PlanDeleteSend(key.appset, c, sent);
  if (send.empty()) return;
  auto command = std::make_shared<DeleteCommand>();
  command->appset = key.appset;
  command->app = c.app;
  command->objects = std::move(send.objects);
  command->unmark = std::move(send.unmark);
  sent.insert(command->objects.begin(), command->objects.end());
  sent.insert(command->unmark.begin(), command->unmark.end());
  Log(self, send.log);
  for (const auto& kept : send.kept) LogOnce(self, kept.key, kept.text);
  const Key app_key{key.appset, c.app};
  const std::string cluster_name = c.cluster;
  self->request(cluster->second, std::chrono::minutes(2), delete_atom::value,
                DeleteCommandPtr(command))
      .then(
          [=](DeleteReplyPtr reply) {
            ApplyReplyStep(self, app_key,
                           engine::OnDeleteReply(SentOf(app_key, cluster_name, *command),
                                                 reply->error, reply->results));
            Advance(self);  // an unmark shows in no watch event of this app's label
          },
          [=](caf::error& err) {
            ApplyReplyStep(self, app_key,
                           engine::OnDeleteUnanswered(SentOf(app_key, cluster_name, *command),
                                                      self->system().render(err)));
          });
}

void Commit(Self* self, RoundPtr round) {
  auto& st = self->state;
  st.busy = true;
  store::Store* store = st.config.services->store;
  DeletionActorImpl me = caf::actor_cast<DeletionActorImpl>(self);
  st.config.services->StorePool().Post([store, me, round] {
    store::State state(*store);
    // A completed set takes every record of the set with it, read here (the appset actor of a
    // set being deleted writes nothing more).
    for (const auto& set : round->sets_done) {
      store::Loaded<store::AppSetRecords> records = state.LoadAppSet(set);
      if (!records.ok()) {
        round->error = records.status.message;
        caf::anon_send(me, committed_atom::value, round);
        return;
      }
      std::set<std::string> apps;
      const auto& r = records.value;
      for (const auto* m : {&r.statuses, &r.pins, &r.applied_hashes, &r.operations, &r.specs}) {
        for (const auto& [app, rec] : *m) apps.insert(app);
      }
      for (const auto& app : apps) round->batch.RemoveApp(set, app);
      round->batch.Remove(store::keys::Conditions(set));
      round->batch.Remove(store::keys::Rollout(set));
    }
    store::WriteResult w = state.Commit(round->batch);
    if (!w.ok()) {
      round->error = w.status.message;
      round->conflict = w.status.code == store::Code::kConflict;
    }
    round->revision = w.revision;
    caf::anon_send(me, committed_atom::value, round);
  });
}

// The store operations of the sweep's record writes, in order.
void AddWrites(const std::vector<engine::DeletionWrite>& writes, Round& round) {
  for (const auto& w : writes) {
    const auto& [appset, app] = w.key;
    if (w.record) {
      round.batch.PutDeletion(appset, app, engine::EncodeDeletionRecord(*w.record), w.expected);
    } else {
      round.batch.Remove(
          app.empty() ? store::keys::SetDeletion(appset) : store::keys::AppDeletion(appset, app),
          w.expected);
    }
    round.records[w.key] = w.record;
  }
}

// One sweep over every stored deletion (engine::PlanDeletionSweep decides which are due and
// which Deleting ones moved on); its writes are committed before its commands are sent.
void Advance(Self* self) {
  auto& st = self->state;
  if (!st.loaded || !st.have_clusters) return;
  if (st.busy) {
    st.dirty = true;
    return;
  }
  engine::DeletionSweepInput input;
  input.records = st.records;
  input.inputs_trusted = st.config.inputs_trusted;
  input.now = Now(self);
  for (const auto& [key, stored] : st.records) {
    auto& views = input.views[key];
    for (const auto& a : stored.record.apps) views[a.name] = ViewOf(self, key, a);
  }
  engine::DeletionSweep sweep = engine::PlanDeletionSweep(input);
  for (const auto& line : sweep.log_once) LogOnce(self, line.key, line.text);
  for (const auto& key : sweep.forget) st.logged.erase(key);
  if (sweep.wake_at) ArmWake(self, *sweep.wake_at);
  for (const auto& key : sweep.watch) EnsureWatching(self, key, st.records.at(key).record);
  auto round = std::make_shared<Round>();
  round->log = std::move(sweep.log);
  round->commands = std::move(sweep.commands);
  round->sets_done = std::move(sweep.sets_done);
  AddWrites(sweep.writes, *round);
  if (round->batch.ops().empty()) {
    for (const auto& [key, c] : round->commands) SendCommand(self, key, c);
    ReportNeeds(self);
    return;
  }
  Commit(self, round);
}

void OnCommitted(Self* self, RoundPtr round) {
  auto& st = self->state;
  st.busy = false;
  if (!round->error.empty()) {
    const engine::CommitFailureStep step =
        engine::OnDeletionCommitFailed(round->conflict, round->error, st.config.retry);
    if (!step.log.empty()) Log(self, step.log);
    if (step.reload) Load(self);
    if (step.retry_later) ArmWake(self, Now(self) + st.config.retry);
    return;
  }
  for (const auto& line : round->log) Log(self, line);
  for (const auto& [key, record] : round->records) {
    if (record) {
      st.records[key] = {*record, round->revision};
    } else {
      st.records.erase(key);
      st.sent.erase(key);
    }
  }
  for (const auto& [key, c] : round->commands) SendCommand(self, key, c);
  for (const auto& set : round->sets_done) {
    for (auto it = st.sent.begin(); it != st.sent.end();) {
      it = it->first.appset == set ? st.sent.erase(it) : std::next(it);
    }
    self->send(st.coordinator, deleted_atom::value, set);
  }
  Publish(self);
  ReportNeeds(self);
  if (st.dirty || !round->records.empty()) {
    st.dirty = false;
    Advance(self);
  }
}

void OnLoaded(Self* self, const LoadedPtr& loaded) {
  auto& st = self->state;
  st.loading = false;
  for (const auto& e : loaded->errors) LogOnce(self, "load " + e, e);
  if (st.reload_again) {
    st.reload_again = false;
    Load(self);
    return;
  }
  st.records = loaded->records;
  for (auto it = st.sent.begin(); it != st.sent.end();) {
    it = st.records.count(it->first) == 0 ? st.sent.erase(it) : std::next(it);
  }
  st.loaded = true;
  Publish(self);
  Advance(self);
}

void OnClusters(Self* self, ClusterMapPtr clusters, bool trusted) {
  auto& st = self->state;
  // A cluster whose actor changed (restarted, context changed) is watched afresh.
  for (const auto& [name, actor] : *clusters) {
    auto seen = st.view_actor.find(name);
    if (seen != st.view_actor.end() && seen->second == actor.id()) continue;
    st.view_actor[name] = actor.id();
    st.views.erase(name);
    for (auto it = st.subscribed.begin(); it != st.subscribed.end();) {
      it = it->first == name ? st.subscribed.erase(it) : std::next(it);
    }
    for (auto it = st.kinds.begin(); it != st.kinds.end();) {
      it = it->first == name ? st.kinds.erase(it) : std::next(it);
    }
    for (auto& [key, refs] : st.sent) refs.clear();  // a new actor: ask again what is left
  }
  st.config.clusters = std::move(clusters);
  st.config.inputs_trusted = trusted;
  st.have_clusters = true;
  Advance(self);
}

// The API's DELETE of a set pending deletion: deleting starts now, without waiting for the rest
// of its grace period. The answer says what happens.
engine::CommandAnswer ExpediteSet(Self* self, const std::string& appset,
                                  const std::string& caller) {
  auto& s = self->state;
  auto it = s.records.find({appset, ""});
  engine::ExpediteDecision d = engine::DecideExpedite(
      appset, it == s.records.end() ? std::nullopt : std::optional(it->second.record), caller,
      Now(self));
  if (!d.record) {
    Log(self, d.log);
    return d.answer;
  }
  if (s.busy) {
    // One commit at a time: ask again once the round in flight landed.
    self->delayed_send(self, std::chrono::milliseconds(20), delete_atom::value, appset, caller,
                       retry_atom::value);
    return d.answer;
  }
  auto round = std::make_shared<Round>();
  AddWrites({{{appset, ""}, *d.record, it->second.revision}}, *round);
  round->log.push_back(d.log);
  Commit(self, round);
  return d.answer;
}

DeletionActorImpl::behavior_type DeletionBehavior(Self* self, DeletionParent coordinator,
                                                  DeletionActorConfig config) {
  auto& st = self->state;
  st.config = std::move(config);
  st.coordinator = coordinator;
  if (!st.config.clusters) st.config.clusters = std::make_shared<ClusterMap>();
  for (const auto& [name, actor] : *st.config.clusters) st.view_actor[name] = actor.id();
  Load(self);
  return {
      [=](reconcile_atom) { Load(self); },
      [=](loaded_atom, LoadedPtr loaded) { OnLoaded(self, loaded); },
      [=](committed_atom, RoundPtr round) { OnCommitted(self, std::move(round)); },
      [=](wake_atom, uint64_t generation) {
        if (generation != self->state.wake_generation) return;
        self->state.wake_at.reset();
        Advance(self);
      },
      [=](clusters_atom, ClusterMapPtr clusters, bool trusted) {
        OnClusters(self, std::move(clusters), trusted);
      },
      [=](live_atom, const ClusterUpdatePtr& update) {
        auto& view = self->state.views[update->cluster];
        view.reachable = update->reachable;
        view.synced = update->synced;
        for (const auto& [label, entries] : update->apps) view.apps[label] = entries;
        Advance(self);
      },
      [=](delete_atom, const std::string& appset, const std::string& caller)
          -> engine::CommandAnswer { return ExpediteSet(self, appset, caller); },
      // A request that found a round in flight, asked again (the caller has its answer).
      [=](delete_atom, const std::string& appset, const std::string& caller, retry_atom) {
        ExpediteSet(self, appset, caller);
      },
  };
}

}  // namespace

DeletionActor SpawnDeletionActor(caf::actor_system& system, const DeletionParent& coordinator,
                                 DeletionActorConfig config) {
  return system.spawn(DeletionBehavior, coordinator, std::move(config));
}

}  // namespace fleetwave::actors
