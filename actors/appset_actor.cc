#include "actors/appset_actor.h"

#include <algorithm>
#include <functional>
#include <set>
#include <utility>

#include <caf/all.hpp>

#include "actors/appset_deletion.h"
#include "actors/atoms.h"
#include "actors/blocking_pool.h"
#include "cluster-clients/prometheus_query.h"
#include "engine/appset/app_project.h"
#include "engine/appset/command_rules.h"
#include "engine/appset/decide_rules.h"
#include "engine/appset/decision_gate.h"
#include "engine/appset/gather_rules.h"
#include "engine/appset/measure_rules.h"
#include "engine/appset/observation.h"
#include "engine/appset/stored_mirror.h"
#include "engine/appset/stored_records.h"
#include "engine/cluster_rules.h"
#include "engine/operator_command.h"
#include "engine/poll_schedule.h"
#include "engine/repository_condition.h"
#include "engine/rollingsync/appset_decider.h"
#include "engine/rollingsync/appset_reconcile.h"
#include "engine/rollingsync/rollback_metric.h"
#include "engine/rollingsync/rollout_state.h"
#include "engine/rollingsync/rollout_status.h"
#include "engine/rollingsync/strategy_json.h"
#include "engine/sync/attempt_end.h"
#include "engine/sync/attempt_gate.h"
#include "engine/sync/attempt_send.h"
#include "engine/sync/tracking.h"
#include "sources/app_render.h"
#include "sources/generator_inputs.h"
#include "sources/render_cache.h"
#include "sources/resolve_once.h"
#include "store/state.h"

namespace fleetwave::actors {
namespace {

using engine::Json;

// The set's generated apps and their renders, with what they were made from: a poll whose
// resolves find the same commits for the same spec shares it instead of generating again
// (generating and rendering key checks at every poll of every set were the idle daemon's
// largest cost at 1,000 clusters).
struct Generation {
  std::vector<engine::GeneratedApplication> apps;
  std::vector<std::string> errors;                    // generation problems
  std::map<std::string, sources::AppRender> renders;  // app -> render at its current revisions
  AppSetSpecPtr spec;
  // Every (repoURL, revision) read, with its commit; none when a resolve or a render failed
  // or generation reported a problem, so that the next poll tries them again.
  std::optional<sources::ResolveOnce::Commits> commits;
  bool fetch_failed = false;  // a repository could not be reached: the next poll backs off
  // The repositories the set's git generators could not read (with `errors`); on a generation
  // kept in force (KeptGeneration), what its decision shows in the set's ErrorOccurred.
  std::vector<engine::Error> generator_repository_errors;
};
using GenerationPtr = std::shared_ptr<const Generation>;

// What one reconcile gathered on the blocking pool.
struct Gathered {
  GenerationPtr generation;  // null only with a store error
  // Loaded once per actor life: what the store holds about the set.
  std::optional<store::AppSetRecords> records;
  std::string store_error;
  bool store_value_error = false;  // a record of the set does not decode (not the whole store)
  StoredDeletions deletions;       // read on every gather: the deletion actor writes them too
  // The gather threw (issue 30): "<set>: internal error: <what>"; nothing else is set.
  std::string failed;
};
using GatheredPtr = std::shared_ptr<const Gathered>;

// The store's view of the set (engine/appset/stored_mirror.h), kept in memory after the first
// load, and what one decision changes in it, applied once its commit landed.
using engine::MirrorChange;
using Mirror = engine::StoredMirror;

// A decision committed (or not) to the store.
struct Persisted {
  engine::AppSetReconcileResult result;
  // Set: an incremental decision (the decider's); `result` then only carries nothing.
  std::optional<engine::AppSetDelta> delta;
  MirrorChange change;  // what the commit changed in the mirror
  std::string error;
  bool deletions_changed = false;          // a deletion mark stored or cancelled: tell the deleter
  bool reconcile_after = false;            // a set's mark was cancelled: reconcile as before
  engine::SetMarkEffect set_mark;          // what the set's mark decision does to `deleting`
  Json pending_deletions = Json::array();  // status.pendingDeletions: this set's marked apps
  // An operator's command committed by this batch: answered once it landed (accepted) or
  // failed (kUnavailable with the store's error).
  std::optional<caf::response_promise> answer;
  engine::CommandAnswer accepted;
  // An analysis measurement this batch stores (step, passed): counted once it landed.
  std::optional<std::pair<int, bool>> measured;
};
using PersistedPtr = std::shared_ptr<Persisted>;

// The end of one sync attempt, committed.
struct AttemptDone {
  std::string app;
  engine::OperationRecord record;
  std::vector<engine::AppliedObject> applied;
  std::string error;  // the commit failed
  bool used_slot = false;
};
using AttemptDonePtr = std::shared_ptr<const AttemptDone>;

// An analysis measurement taken on the blocking pool for a decision's request (issue 29).
struct Measured {
  engine::AnalysisRequest request;
  engine::AnalysisMeasurement measurement;
  std::string url;  // what was queried, for the log
};
using MeasuredPtr = std::shared_ptr<const Measured>;

// An attempt whose desired objects were rendered at the operation's revisions.
struct AttemptRender {
  std::string app;
  engine::OperationRecord record;
  sources::AppRender render;
};
using AttemptRenderPtr = std::shared_ptr<const AttemptRender>;

}  // namespace
}  // namespace fleetwave::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fleetwave::actors::GatheredPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fleetwave::actors::PersistedPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fleetwave::actors::AttemptDonePtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fleetwave::actors::AttemptRenderPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fleetwave::actors::MeasuredPtr)

namespace fleetwave::actors {
namespace {

using attempt_atom = caf::atom_constant<caf::atom("attempt")>;
using rendered_atom = caf::atom_constant<caf::atom("rendered")>;
using finished_atom = caf::atom_constant<caf::atom("finished")>;
using wake_atom = caf::atom_constant<caf::atom("wake")>;
using marked_atom = caf::atom_constant<caf::atom("marked")>;
using measured_atom = caf::atom_constant<caf::atom("measured")>;

struct ClusterView {
  engine::ClusterFlags flags;
  std::map<std::string, std::vector<LiveEntry>> apps;  // app label -> entries
};

struct AppSetState {
  // Counts this actor's publishes of its set (PublishOrigin::seq): each call, hinted or not.
  uint64_t publish_seq = 0;
  AppSetSpecPtr spec;
  ClusterMapPtr clusters;
  const Services* services = nullptr;
  SetParent coordinator;

  std::map<std::string, ClusterView> views;                  // cluster -> what it reported
  std::set<std::pair<std::string, std::string>> subscribed;  // (cluster, app label)
  ClusterMapPtr watched_clusters;  // the cluster actors EnsureWatching last subscribed with
  std::set<std::pair<std::string, std::string>> kinds;  // (cluster, apiVersion + " " + kind)
  std::map<std::string, std::vector<engine::AppliedObject>> applied;  // read-after-write
  std::optional<Mirror> mirror;
  GatheredPtr last;  // the last gathered generation and renders
  // The status ShowStoredStatus published last (null: none), while `last` is not set yet.
  Json shown_stored_status;
  // The last reconcile's observations, sorted by name: kept between reconciles and refreshed per
  // app only where its inputs changed (RefreshObserved), as copying every live object of a set
  // into every reconcile was a fifth of the daemon's CPU at 1,000 apps.
  std::vector<engine::ObservedApp> observed;
  GenerationPtr observed_generation;  // the generation `observed` was last refreshed against
  std::set<std::pair<std::string, std::string>> live_changed;  // (cluster, app label) since then
  std::set<std::string> applied_changed;                       // apps with a new apply result
  // Renders reused while an app's spec and commits stay the same; only the gather in flight
  // (at most one: `busy`) touches it, on the pool.
  std::shared_ptr<sources::RenderCache> renders = std::make_shared<sources::RenderCache>();
  bool busy = false;
  bool gather_failed = false;  // the last gather threw: its error is on the set's file
  bool dirty = false;
  // The next reconcile gathers anew (generation, git, renders, deletion marks): at start, on the
  // poll timer, a new spec, a refresh, and after a failed gather. Events from clusters and
  // finished attempts change only live state and operations, which the actor holds, so they
  // decide on the last gather at once, without the pool and without re-generating the set.
  bool regather = true;
  Json pending_deletions = Json::array();  // status.pendingDeletions as the last gather found it
  // When a decision last ran on a fresh gather: Applications built since, from the same inputs,
  // are served again (ReconcileAppSet's reuse_applications_since), so reconciledAt moves on at
  // every poll that decides (a new commit, a change, the resync) and whenever an app changes,
  // and an unchanged app costs no JSON.
  std::optional<engine::Time> gathered_at;
  bool automated_warned = false;
  // The set is pending deletion or being deleted (its mark is stored): no rollout, no syncs,
  // and nothing to gather until a new spec (its definition back) arrives.
  bool deleting = false;
  std::set<std::string> in_flight;  // apps with an attempt running in this process
  // Operator actions (manual sync, pause, resume, skip) that arrived while a decision was in
  // flight, in arrival order.
  std::vector<std::function<void()>> deferred;
  // Operator commands stored and accepted, answered when the next decision has been published.
  std::vector<std::pair<caf::response_promise, engine::CommandAnswer>> answer_after_publish;
  uint64_t wake_generation = 0;
  std::chrono::steady_clock::time_point reconcile_started;
  std::optional<engine::Time> wake_at;
  // When the next poll gathers (git, renders, the store): one poll interval after the last
  // gather started. A wake-up before it (a retry, a step deadline) decides on the last gather,
  // which is what changed; it used to gather and decide the whole set from scratch.
  std::optional<engine::Time> next_poll_at;
  int poll_failures = 0;  // consecutive gathers that could not reach a repository
  std::optional<engine::Time> gather_started_at;
  // A poll that finds nothing changed since the last decision decides nothing (NothingToDecide):
  // at 2,000 apps a decision costs tens of milliseconds, and deciding every set at every poll
  // was most of an idle daemon's CPU. What the last decision that landed saw, and what it asked:
  // Its generation and deletion records, not the whole gather: a gather may carry the set's
  // first store load, which must not stay alive after `last` moved on.
  GenerationPtr decided_generation;
  StoredDeletions decided_deletions;
  std::optional<engine::Time> decided_at;      // when
  std::optional<engine::Time> engine_wake_at;  // its result.wake_at (a deadline, a retry)
  // Nothing but the poll timer asked for a reconcile since that decision: every event, operator
  // action, refresh, new spec and failed commit clears it (Reconcile, ManualSync, OnPersisted).
  bool unchanged = false;
  // Why the set's stored state could not be used at the last gather ("" when it could): logged
  // once per change, not at every retry.
  std::string stored_problem;
  std::vector<std::string> deletion_errors;  // the stored deletions' last logged problems

  // A RollingSync set's incremental decisions (issue 25), seeded from each from-scratch decision
  // that landed and taken by the events between gathers; it holds the observations (`observed`
  // is empty meanwhile) and is released (ReleaseDecider) before a from-scratch decision, an
  // operator's rollout command or after a failed commit. Null for other strategies.
  std::unique_ptr<engine::RollingSyncDecider> decider;
  GenerationPtr decider_generation;  // the generation it was seeded on
  // Which of its apps a cluster's report concerns: (cluster, app label) -> app, cluster -> apps.
  engine::DeciderIndex decider_index;
  std::set<std::string> clusters_changed;  // reachability or listing changed since the decision
  // [issue 29] The measurement the last decision asked for (its analysis_due), and whether a
  // query for one is on the pool: one at a time per set.
  std::optional<engine::AnalysisRequest> analysis_due;
  bool measuring = false;
  // The set's summary as published, its status lent by the decider while it is published.
  Json summary;
  // app -> cluster for the publisher, per generation (not rebuilt at every publish).
  std::shared_ptr<const std::map<std::string, std::string>> app_clusters;
  GenerationPtr app_clusters_generation;
  std::uint64_t app_clusters_version = 0;  // one more per map made (PublishOrigin)

  static inline const char* name = "appset";
};

// The set's interface plus what only it sends itself: its wake-up timer and the results of
// its pool jobs.
using AppSetActorImpl = AppSetActor::extend<
    caf::reacts_to<wake_atom, uint64_t>, caf::reacts_to<gathered_atom, GatheredPtr>,
    caf::reacts_to<persisted_atom, PersistedPtr>, caf::reacts_to<rendered_atom, AttemptRenderPtr>,
    caf::reacts_to<finished_atom, AttemptDonePtr>, caf::reacts_to<marked_atom, PersistedPtr>,
    caf::reacts_to<measured_atom, MeasuredPtr>>;
using Self = AppSetActorImpl::stateful_base<AppSetState>;

void Log(Self* self, const std::string& line) {
  const auto& log = self->state.services->log;
  if (log) log("appset=" + self->state.spec->appset.name + " " + line);
}

engine::Time Now(Self* self) { return engine::TruncateToSeconds(self->state.services->now()); }

const Json& Member(const Json& object, const char* key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::string AppLabel(Self* self, const std::string& app) {
  return engine::AppLabelValue({self->state.spec->appset.name, app});
}

const engine::GeneratedApplication* FindApp(const Gathered& g, const std::string& name) {
  for (const auto& a : g.generation->apps) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

// ---- gathering (blocking pool) ----

// What a repository's revision resolves to now, for engine::ReusesLastGeneration.
engine::ResolveNow ResolveNowWith(sources::ResolveOnce& resolver) {
  return [&resolver](const std::string& repo,
                     const std::string& revision) -> std::optional<std::string> {
    const sources::Resolution now = resolver.Resolve(repo, revision);
    if (!now.ok()) return std::nullopt;
    return now.snapshot->sha;
  };
}

GenerationPtr Generate(const AppSetSpecPtr& spec, sources::ResolveOnce& resolver,
                       sources::RenderCache& cache) {
  auto out = std::make_shared<Generation>();
  out->spec = spec;
  const engine::GeneratorInputs inputs =
      sources::ReadGeneratorInputs(spec->appset, resolver, &spec->clusters, spec->limits);
  engine::GenerateResult generated =
      engine::GenerateApplications(spec->appset, &spec->clusters, &inputs, spec->limits);
  for (const auto& issue : generated.issues) out->errors.push_back(engine::FormatIssue(issue));
  out->generator_repository_errors = std::move(generated.repository_errors);
  out->apps = std::move(generated.apps);
  const engine::Discovery discovery = engine::Discovery::BuiltIn();
  std::set<std::string> names;
  bool rendered = true;
  for (const auto& app : out->apps) {
    sources::AppRender& render = out->renders[app.name];
    render = cache.Render(resolver, spec->appset.name, app, discovery, spec->limits);
    rendered = rendered && render.ok();
    names.insert(app.name);
  }
  cache.Retain(names);
  if (engine::RecordsCommits(rendered, !out->errors.empty())) {
    out->commits = resolver.ResolvedCommits();
  }
  out->fetch_failed = resolver.AnyTransientFailure();
  return out;
}

GatheredPtr Gather(const AppSetSpecPtr& spec, sources::Source* source, store::Store* store,
                   bool load_records, sources::RenderCache& cache, const GenerationPtr& last) {
  auto out = std::make_shared<Gathered>();
  if (load_records) {
    store::State state(*store);
    store::Loaded<store::AppSetRecords> loaded = state.LoadAppSet(spec->appset.name);
    if (!loaded.ok()) {
      out->store_error = loaded.status.message;
      out->store_value_error = loaded.status.code == store::Code::kCorrupt;
      return out;
    }
    out->records = std::move(loaded.value);
  }
  {
    store::State state(*store);
    out->deletions = LoadStoredDeletions(state, spec->appset.name);
  }
  sources::ResolveOnce resolver(*source);
  if (last &&
      engine::ReusesLastGeneration(last->spec == spec, last->commits, ResolveNowWith(resolver))) {
    out->generation = last;
  } else {
    out->generation = Generate(spec, resolver, cache);
  }
  return out;
}

// The set's stored records lent to the engine (engine/appset/stored_records.h), which never
// names the store.
engine::StoredRecordsView ViewOf(const store::AppSetRecords& r) {
  engine::StoredRecordsView v;
  for (const auto& [app, rec] : r.statuses) v.statuses.emplace_back(app, &rec.value);
  for (const auto& [app, rec] : r.specs) v.specs.emplace_back(app, &rec.value);
  for (const auto& [app, rec] : r.operations) v.operations.emplace_back(app, &rec.value);
  if (r.conditions) v.conditions = &r.conditions->value;
  if (r.rollout) v.rollout = &r.rollout->value;
  return v;
}

// The first stored record of the set that does not decode strictly, as "<key>: <issue>"; ""
// when every one does.
std::string StoredStateProblem(const std::string& set, const store::AppSetRecords& r) {
  const engine::StoredRecordNames names{
      [&set](const std::string& app) { return store::keys::Operation(set, app); },
      store::keys::AppSetPrefix(set)};
  return engine::StoredStateProblem(ViewOf(r), names);
}

Mirror MirrorOf(const store::AppSetRecords& r, Self* self) {
  std::vector<std::string> log;
  Mirror m = engine::MirrorOfRecords(ViewOf(r), log);
  for (const auto& line : log) Log(self, line);
  return m;
}

void Reconcile(Self* self, bool regather, bool poll = false);
void RunDueAttempts(Self* self);
Json SummaryOf(Self* self);
void RunAttempts(Self* self, const std::vector<std::string>& due,
                 const std::vector<engine::SyncStart>& started);
void Decide(Self* self, const Gathered& gathered, const GatheredPtr* previous,
            bool same_inputs = false);
void ManualSync(Self* self, const std::string& app, const std::string& revision,
                const std::string& caller, caf::response_promise answer);
void MaybeMeasure(Self* self);

// The accepted operator commands waiting for a publication get their answer (they are stored
// whatever became of the decision after them).
void DeliverAnswers(Self* self) {
  auto answers = std::move(self->state.answer_after_publish);
  self->state.answer_after_publish.clear();
  for (auto& [promise, answer] : answers) {
    if (promise.pending()) promise.deliver(answer);
  }
}

// After a decision landed: queued operator actions first, then a reconcile if events came in.
void AfterDecision(Self* self) {
  auto& st = self->state;
  while (!st.deferred.empty() && !st.busy) {
    auto action = std::move(st.deferred.front());
    st.deferred.erase(st.deferred.begin());
    action();
  }
  if (st.busy) return;
  if (st.dirty) {
    st.dirty = false;
    Reconcile(self, false);  // a pending regather request is kept in st.regather
  }
  // No decision in flight that would publish: accepted commands are answered now.
  if (!st.busy) DeliverAnswers(self);
}

// ---- timers ----

// The poll's time, for a decision arming its wake-up: the earlier of it and the engine's.
std::optional<engine::Time> PollOrEarlier(Self* self, std::optional<engine::Time> engine_wake) {
  const auto& st = self->state;
  return engine::PollOrEarlier(st.next_poll_at, st.services->now(), st.spec->poll_interval,
                               engine_wake);
}

// The next poll: one spread (and, while fetches fail, backed-off) interval after the last
// gather started.
void SchedulePoll(Self* self) {
  auto& st = self->state;
  const engine::Time from = st.gather_started_at ? *st.gather_started_at : st.services->now();
  st.next_poll_at = from + engine::NextPollDelay(st.spec->poll_interval, st.poll_failures,
                                                 st.services->jitter ? st.services->jitter()
                                                                     : engine::kUnspreadJitter);
}

engine::WakeAction OnWake(Self* self) {
  const auto& st = self->state;
  return engine::OnWake(st.next_poll_at, st.services->now());
}

void ArmWake(Self* self, std::optional<engine::Time> at) {
  auto& st = self->state;
  if (!at) return;
  if (engine::KeepsPendingWake(st.wake_at, *at, Now(self))) return;  // an earlier one runs
  st.wake_at = at;
  const uint64_t generation = ++st.wake_generation;
  auto delay = *at - st.services->now();
  if (delay < engine::Duration::zero()) delay = engine::Duration::zero();
  self->delayed_send(
      self,
      std::chrono::duration_cast<std::chrono::milliseconds>(delay) + std::chrono::milliseconds(5),
      wake_atom::value, generation);
}

// ---- subscriptions ----

// This actor as the cluster actors' sink of updates (AppSetActor extends LiveSink).
LiveSink LiveSinkOf(Self* self) { return caf::actor_cast<LiveSink>(self); }

ClusterActor ClusterActorOf(const ClusterMapPtr& clusters, const std::string& name) {
  if (!clusters) return ClusterActor();
  auto it = clusters->find(name);
  return it == clusters->end() ? ClusterActor() : it->second;
}

// Makes the subscriptions at the cluster actors match `g`'s apps. A cluster whose actor changed
// since the last call (its context changed, or it failed and was restarted) knows nothing of
// this set: its subscriptions and kinds are sent again, and what the old actor reported stays in
// the view until the new one answers. An app that left the set, or whose cluster left the
// kubeconfig, is unsubscribed from the actor it was subscribed at, and its live objects go.
void EnsureWatching(Self* self, const Gathered& g) {
  auto& st = self->state;
  const engine::ClusterKnown known = [&st](const std::string& cluster) {
    return st.clusters->count(cluster) > 0;
  };
  // (cluster, app label)
  const std::set<std::pair<std::string, std::string>> wanted =
      engine::WantedWatches(st.spec->appset.name, g.generation->apps, known);
  auto replaced = [&](const std::string& cluster) {
    return ClusterActorOf(st.watched_clusters, cluster) != ClusterActorOf(st.clusters, cluster);
  };
  for (auto it = st.subscribed.begin(); it != st.subscribed.end();) {
    const auto& [cluster, label] = *it;
    const bool still_wanted = wanted.count(*it) > 0;
    if (still_wanted && !replaced(cluster)) {
      ++it;
      continue;
    }
    if (ClusterActor was = ClusterActorOf(st.watched_clusters, cluster)) {
      self->send(was, unsubscribe_atom::value, label, LiveSinkOf(self));
    }
    if (!still_wanted) {
      if (auto view = st.views.find(cluster); view != st.views.end())
        view->second.apps.erase(label);
    }
    it = st.subscribed.erase(it);
  }
  for (auto it = st.kinds.begin(); it != st.kinds.end();) {
    it = replaced(it->first) ? st.kinds.erase(it) : std::next(it);
  }
  for (auto it = st.views.begin(); it != st.views.end();) {
    it = engine::DropsClusterView(it->first, known) ? st.views.erase(it) : std::next(it);
  }
  for (const auto& app : g.generation->apps) {
    if (!engine::WatchesApp(app.cluster, known)) continue;
    const ClusterActor& actor = st.clusters->at(app.cluster);
    const std::string label = AppLabel(self, app.name);
    if (st.subscribed.emplace(app.cluster, label).second) {
      self->send(actor, subscribe_atom::value, label, LiveSinkOf(self));
    }
    auto render = g.generation->renders.find(app.name);
    if (render == g.generation->renders.end() || !render->second.objects) continue;
    for (const engine::WatchedKind& kind : engine::KindsToWatch(*render->second.objects)) {
      if (st.kinds.emplace(app.cluster, kind.api_version + " " + kind.kind).second) {
        self->send(actor, watch_kind_atom::value, kind.api_version, kind.kind);
      }
    }
  }
}

// Commits `batch` on the blocking pool (write-ahead: the caller acts only once the result
// comes back) and sends (atom, Ptr(result)) to this actor; a failed commit is in result->error.
template <typename Ptr, typename Atom, typename T>
void CommitOnPool(Self* self, store::StateBatch batch, std::shared_ptr<T> result, Atom atom) {
  store::Store* store = self->state.services->store;
  AppSetActorImpl me = caf::actor_cast<AppSetActorImpl>(self);
  self->state.services->StorePool().Post([store, me, result, atom, batch = std::move(batch)] {
    store::State state(*store);
    store::WriteResult w = state.Commit(batch);
    if (!w.ok()) result->error = w.status.message;
    caf::anon_send(me, atom, Ptr(result));
  });
}

// ---- deletion marks (product §3.5; the deletion actor does the deleting) ----

// The set's definition is gone, or its mark is stored: engine::DecideSetMark says whether to
// store the mark (with a gathered generation's snapshot), cancel it, retry or stay out of the
// deletion actor's way. Returns false when the set is simply defined and reconciled.
bool HandleSetDeletion(Self* self, const GatheredPtr& g) {
  auto& st = self->state;
  const StoredDeletions& stored = g->deletions;
  const std::string& set = st.spec->appset.name;
  engine::SetMarkInput input;
  input.appset = set;
  input.defined = st.spec->defined;
  input.inputs_trusted = st.spec->inputs_trusted;
  input.set_mark = stored.set;
  input.generated_now = g->generation->errors.empty();
  input.generated_before = st.last != nullptr;
  input.now = st.services->now();
  input.poll_interval = st.spec->poll_interval;
  const engine::SetMarkDecision d = engine::DecideSetMark(input);
  if (d.action == engine::SetMarkAction::kNone) return false;
  const engine::SetMarkEffect effect = engine::EffectOfSetMark(d.action);
  if (effect.deleting) st.deleting = *effect.deleting;
  st.busy = false;
  auto persisted = std::make_shared<Persisted>();
  store::StateBatch batch;
  switch (d.action) {
    case engine::SetMarkAction::kNone:
    case engine::SetMarkAction::kLeaveToDeleter:
    case engine::SetMarkAction::kHold:
      return true;
    case engine::SetMarkAction::kRetry:
      for (const auto& line : d.log_now) Log(self, line);
      ArmWake(self, *d.retry_at);
      return true;
    case engine::SetMarkAction::kCancel:
      batch.Remove(store::keys::SetDeletion(set), d.cancel_revision);
      persisted->result.log = d.log;
      break;
    case engine::SetMarkAction::kMark: {
      const Generation& source =
          d.snapshot == engine::SnapshotSource::kThisGather ? *g->generation : *st.last->generation;
      std::vector<engine::DeletionApp> apps;
      for (const auto& app : source.apps) {
        auto render = source.renders.find(app.name);
        apps.push_back(
            DeletionAppOf(app, render == source.renders.end() ? nullptr : &render->second));
      }
      const engine::SetMark mark = engine::MarkSetPending(st.spec->appset, apps, stored.apps,
                                                          Now(self), st.spec->deletion_grace);
      AddSetMark(set, mark, batch);
      persisted->result.log.push_back(mark.log);
      break;
    }
  }
  persisted->set_mark = effect;
  persisted->reconcile_after = effect.reconcile_after;
  persisted->deletions_changed = true;
  st.busy = true;
  CommitOnPool<PersistedPtr>(self, std::move(batch), persisted, marked_atom::value);
  return true;
}

void OnSetMarkPersisted(Self* self, PersistedPtr p) {
  auto& st = self->state;
  st.busy = false;
  if (!p->error.empty()) {
    Log(self, "cannot store the deletion mark: " + p->error + "; trying again");
    if (auto deleting = engine::DeletingAfterSetMarkCommit(p->set_mark, false)) {
      st.deleting = *deleting;
    }
    ArmWake(self, st.services->now() + std::chrono::seconds(5));
    return;
  }
  // The lines name the appset themselves.
  if (st.services->log) {
    for (const auto& line : p->result.log) st.services->log(line);
  }
  self->send(st.coordinator, reconcile_atom::value);  // the deletion actor reads the marks
  if (auto deleting = engine::DeletingAfterSetMarkCommit(p->set_mark, true)) {
    st.deleting = *deleting;
  }
  if (p->reconcile_after) {
    st.dirty = true;
    st.regather = true;
  }
  AfterDecision(self);
}

// Apps the store knows that this generation no longer has: marked PendingDeletion (their
// records leave the set; the mark keeps what deleting them needs, from the previous gather);
// marked apps generated again: the mark is cancelled.
void MarkApps(Self* self, const Gathered& g, const GatheredPtr& previous,
              const std::set<std::string>& present, store::StateBatch& batch,
              Persisted& persisted) {
  auto& st = self->state;
  engine::AppsToJudge judged =
      engine::AppsToJudgeOf(st.mirror->statuses, st.mirror->stored, present, g.generation->apps);
  const std::set<std::string>& generated = judged.generated;
  std::map<std::string, engine::DeletionApp> snapshots;
  if (previous) {
    for (const auto& app : previous->generation->apps) {
      if (generated.count(app.name) > 0) continue;  // only apps that are gone can be marked
      auto render = previous->generation->renders.find(app.name);
      snapshots[app.name] = DeletionAppOf(
          app, render == previous->generation->renders.end() ? nullptr : &render->second);
    }
  }
  engine::AppMarksInput input;
  input.appset = st.spec->appset.name;
  input.inputs_trusted = st.spec->inputs_trusted;
  input.known = std::move(judged.known);
  input.generated = judged.generated;
  input.previous = std::move(snapshots);
  input.app_marks = g.deletions.apps;
  input.now = Now(self);
  input.grace = st.spec->deletion_grace;
  const engine::AppMarks marks = engine::MarkDisappearedApps(input);
  AddAppMarks(input.appset, marks, batch);
  for (const std::string& app : marks.records_leave) persisted.change.removed.insert(app);
  for (const auto& line : marks.log) persisted.result.log.push_back(line);
  persisted.deletions_changed = marks.changed();
  persisted.pending_deletions = engine::PendingDeletionsJson(g.deletions.apps, marks);
}

// ---- reconcile ----

// Each of these resets the engine's cached comparison (ObservedApp::compared) when what it
// compared changes.
void ObserveRender(const Gathered& g, engine::ObservedApp& o) {
  const auto& renders = g.generation->renders;
  auto render = renders.find(o.desired.name);
  const auto* projects = g.generation->spec ? g.generation->spec->appset.projects.get() : nullptr;
  if (render == renders.end()) {
    engine::ObserveRender(projects, nullptr, o);
    return;
  }
  engine::RenderSeen seen;
  seen.revisions = render->second.revisions;
  seen.objects = render->second.objects;
  seen.error = render->second.error();
  seen.repository_errors = render->second.repository_errors;
  engine::ObserveRender(projects, &seen, o);
}

void ObserveCluster(Self* self, engine::ObservedApp& o) {
  auto& st = self->state;
  auto view = st.views.find(o.desired.cluster);
  engine::ObserveCluster(view == st.views.end() ? nullptr : &view->second.flags, o);
}

void ObserveLive(Self* self, engine::ObservedApp& o) {
  auto& st = self->state;
  o.compared = nullptr;
  o.live.clear();
  o.live_health.clear();
  auto view = st.views.find(o.desired.cluster);
  if (view == st.views.end()) return;
  auto entries = view->second.apps.find(AppLabel(self, o.desired.name));
  if (entries == view->second.apps.end()) return;
  o.live.reserve(entries->second.size());
  for (const auto& e : entries->second) {
    o.live.push_back(e.object);  // shared with the cluster actor's cache, not copied
    o.live_health[e.object->ref] = e.health;
  }
}

void ObserveApplied(Self* self, engine::ObservedApp& o) {
  auto& st = self->state;
  auto applied = st.applied.find(o.desired.name);
  if (applied != st.applied.end()) {
    o.applied = applied->second;
  } else {
    o.applied.clear();
  }
}

engine::ObservedApp Observe(Self* self, const Gathered& g,
                            const engine::GeneratedApplication& app) {
  engine::ObservedApp o;
  o.desired = app;
  ObserveRender(g, o);
  ObserveCluster(self, o);
  ObserveLive(self, o);
  ObserveApplied(self, o);
  return o;
}

// Keeps each app's observation from the last reconcile and refreshes what changed since: the
// generated app when its content differs and its render (both only after a new generation),
// its cluster state always (flags), its live objects only when its cluster reported them
// changed, its apply results only after an attempt. Both lists are sorted by name.
std::vector<engine::ObservedApp> RefreshObserved(Self* self, const Gathered& g) {
  auto& st = self->state;
  std::vector<engine::ObservedApp> kept = std::move(st.observed);
  st.observed.clear();
  // Decisions on cluster events and polls that found no new commit see the same generation:
  // comparing each generated app and its render again would find them equal.
  const bool same_generation = st.observed_generation == g.generation;
  st.observed_generation = g.generation;
  std::vector<engine::ObservedApp> out;
  out.reserve(g.generation->apps.size());
  size_t k = 0;
  for (const auto& app : g.generation->apps) {
    while (k < kept.size() && kept[k].desired.name < app.name) ++k;
    if (k == kept.size() || kept[k].desired.name != app.name) {
      out.push_back(Observe(self, g, app));
      continue;
    }
    engine::ObservedApp o = std::move(kept[k++]);
    const engine::ObservationRefresh refresh =
        engine::RefreshOf(o.desired, app, same_generation,
                          st.live_changed.count({app.cluster, AppLabel(self, app.name)}) > 0,
                          st.applied_changed.count(app.name) > 0);
    if (refresh.desired) o.desired = app;
    if (refresh.render) ObserveRender(g, o);
    ObserveCluster(self, o);
    if (refresh.live) ObserveLive(self, o);
    if (refresh.applied) ObserveApplied(self, o);
    out.push_back(std::move(o));
  }
  st.live_changed.clear();
  st.applied_changed.clear();
  st.clusters_changed.clear();
  return out;
}

// The store's deletion records are the same ones (a write gives a key a new store revision).
bool SameDeletions(const StoredDeletions& a, const StoredDeletions& b) {
  const auto revision = [](const std::optional<StoredDeletions::Entry>& e) {
    return e ? e->revision : int64_t{-1};
  };
  return revision(a.set) == revision(b.set) && a.errors.empty() && b.errors.empty() &&
         std::equal(a.apps.begin(), a.apps.end(), b.apps.begin(), b.apps.end(),
                    [](const auto& x, const auto& y) {
                      return x.first == y.first && x.second.revision == y.second.revision;
                    });
}

bool ResyncDue(Self* self) {
  const auto& st = self->state;
  return engine::ResyncDue(st.decided_at, Now(self), st.spec->poll_interval);
}

bool NothingToDecide(Self* self, const Gathered& g) {
  const auto& st = self->state;
  engine::PollFacts facts;
  facts.decided_at = st.decided_at;
  facts.now = Now(self);
  facts.precise_now = st.services->now();
  facts.poll_interval = st.spec->poll_interval;
  facts.asked_since = !st.unchanged || st.dirty;
  facts.store_loaded = g.records.has_value();
  facts.same_generation = st.decided_generation == g.generation;
  facts.same_clusters = st.watched_clusters == st.clusters;
  facts.same_deletions = SameDeletions(st.decided_deletions, g.deletions);
  facts.undecided_observations = !st.live_changed.empty() || !st.applied_changed.empty();
  facts.engine_wake_at = st.engine_wake_at;
  return engine::NothingToDecide(facts);
}

// `last`'s apps and renders, in force while a generation fails on a repository only its git
// generators read, with `failed`'s repository errors: deciding on it shows them on the set and
// changes no app. It records no commits, so the next poll generates again.
GenerationPtr KeptGeneration(const Generation& last, const Generation& failed) {
  auto kept = std::make_shared<Generation>();
  kept->apps = last.apps;
  kept->renders = last.renders;
  kept->spec = last.spec;
  kept->fetch_failed = failed.fetch_failed;
  kept->generator_repository_errors = failed.generator_repository_errors;
  return kept;
}

// A generation failed on repositories only the set's git generators read (`errors`) and there
// is no last generation to keep in force (after a start): the stored status is published with
// ErrorOccurred naming them, as engine::StoredStatusWithRepositoryErrors makes it. Nothing is
// decided, stored or synced; the first generation that succeeds decides as usual. (Malformed
// stored parts are logged by that decision.)
void ShowStoredStatus(Self* self, const std::vector<engine::Error>& errors) {
  auto& st = self->state;
  if (!st.services->publish.appset || !st.mirror) return;
  engine::Issues issues;
  st.shown_stored_status = engine::StoredStatusWithRepositoryErrors(
      engine::StoredStatusJson(*st.mirror), st.shown_stored_status, errors, Now(self), issues);
  Json summary = SummaryOf(self);
  summary["status"] = st.shown_stored_status;
  const PublishOrigin origin{self->id(), ++st.publish_seq, nullptr};
  st.services->publish.appset(st.spec->appset.name, summary, {}, {},
                              &origin);  // no apps generated yet
}

void OnGathered(Self* self, GatheredPtr g) {
  auto& st = self->state;
  const auto& publish = st.services->publish;
  if (!g->failed.empty()) {
    // Nothing of this gather is known: the last decision stays in force, and the error is on
    // the set's file in the API until a gather succeeds.
    Log(self, g->failed + "; the last decision stays in force, retrying at the next poll");
    if (publish.degraded) publish.degraded("set");
    // Shown under the set's file while one defines it: a removed file's entry has left the API
    // (the coordinator removed it) and must not come back with this error.
    if (publish.file && st.spec->defined) publish.file(st.spec->appset.file, {g->failed});
    st.gather_failed = true;
    st.busy = false;
    st.regather = true;
    ArmWake(self, PollOrEarlier(self, std::nullopt));
    AfterDecision(self);
    return;
  }
  if (st.gather_failed) {
    st.gather_failed = false;
    if (publish.file) publish.file(st.spec->appset.file, {});
  }
  // A store that cannot be read, or a stored record of the wrong type (issue 30): nothing is
  // decided on a default; retried every 5 s, said once per change of reason.
  // (A gather with a store error carries no records.)
  const auto [problem, own] = engine::StoreProblemOf(
      g->store_error, g->store_value_error,
      g->records ? StoredStateProblem(st.spec->appset.name, *g->records) : std::string());
  const auto& stored_state = st.services->publish.stored_state;
  const engine::StoreProblemSaying saying = engine::SayStoreProblem(problem, st.stored_problem);
  if (!problem.empty()) {
    if (saying == engine::StoreProblemSaying::kSay) {
      Log(self, "cannot use the stored state: " + problem +
                    "; nothing is decided for this set until it can be (retrying every 5s)");
      if (stored_state) {
        stored_state(st.spec->appset.name,
                     own ? std::optional<std::string>(problem) : std::nullopt);
      }
    }
    st.stored_problem = problem;
    st.busy = false;
    st.regather = true;  // the retry reads the store again
    ArmWake(self, st.services->now() + engine::kStoreRetry);
    DeliverAnswers(self);
    return;
  }
  if (saying == engine::StoreProblemSaying::kCleared) {
    Log(self, "the stored state can be used again");
    st.stored_problem.clear();
    if (stored_state) stored_state(st.spec->appset.name, std::nullopt);
  }
  if (g->records) st.mirror = MirrorOf(*g->records, self);
  st.poll_failures = engine::NextPollFailures(st.poll_failures, g->generation->fetch_failed);
  SchedulePoll(self);  // with this gather's outcome: backed off while a remote fails
  // Said once per change, not at every poll (an undecodable record is never acted on).
  if (engine::LogsDeletionProblems(g->deletions.errors, st.deletion_errors)) {
    for (const auto& e : g->deletions.errors) Log(self, e);
    st.deletion_errors = g->deletions.errors;
  }
  if (HandleSetDeletion(self, g)) {
    st.regather = true;
    DeliverAnswers(self);
    return;
  }
  if (!g->generation->errors.empty()) {
    st.regather = true;
    // A partial app list would read as apps disappearing: keep the last decision in force
    // and try again at the next poll.
    for (const auto& e : g->generation->errors) Log(self, e);
    Log(self, "generation failed; the last generated applications stay in force");
    // A repository a git generator could not read is shown on the set, as an app's is: the
    // last good generation is decided again, carrying the error to the engine; before there is
    // one, on the stored status.
    const auto& repository_errors = g->generation->generator_repository_errors;
    const engine::FailedGeneration next =
        engine::OnFailedGeneration(!repository_errors.empty(), st.last != nullptr);
    if (next == engine::FailedGeneration::kShowStoredStatus) {
      ShowStoredStatus(self, repository_errors);
    }
    if (next != engine::FailedGeneration::kDecideOnLastGeneration) {
      st.busy = false;
      ArmWake(self, PollOrEarlier(self, std::nullopt));
      AfterDecision(self);
      return;
    }
    auto kept = std::make_shared<Gathered>(*g);
    kept->generation = KeptGeneration(*st.last->generation, *g->generation);
    g = std::move(kept);
  }
  if (NothingToDecide(self, *g)) {
    st.last = g;  // the same generation and deletions: nothing that Decide reads differs
    st.busy = false;
    ArmWake(self, PollOrEarlier(self, st.engine_wake_at));
    RunDueAttempts(self);  // a retry whose time came (its timer is this one)
    AfterDecision(self);
    return;
  }
  const GatheredPtr previous = st.last;
  st.last = g;
  // What an incremental decision holds already: the same generation, clusters and deletion
  // records as the decision in force (a refresh or webhook at an unchanged commit, a poll after
  // an event arrived mid-decision).
  engine::GatherChange change;
  change.has_previous = previous != nullptr;
  change.same_generation = previous && previous->generation == g->generation;
  change.same_clusters = st.watched_clusters == st.clusters;
  change.same_deletions = SameDeletions(st.decided_deletions, g->deletions);
  const bool same_inputs = engine::SameInputs(change);
  if (engine::WatchAgain(change)) {
    EnsureWatching(self, *g);
    st.watched_clusters = st.clusters;
  }
  Decide(self, *g, &previous, same_inputs);
}

// ---- incremental decisions (RollingSyncDecider) ----

// The decider gives the observations back; the next decision is from scratch.
void ReleaseDecider(Self* self) {
  auto& st = self->state;
  if (!st.decider) return;
  st.observed = st.decider->ReleaseObserved();
  st.decider.reset();
  st.decider_generation = nullptr;
  st.decider_index = {};
}

// After a from-scratch decision landed: a RollingSync set's next events are decided on what
// they change. The decision's status and the mirror's records are what the store holds now.
void SeedDecider(Self* self, engine::AppSetReconcileResult& result) {
  auto& st = self->state;
  engine::SeedFacts facts;
  facts.has_gather = st.last != nullptr;
  facts.loaded = st.mirror.has_value();
  facts.deleting = st.deleting;
  facts.planned = result.plan.planned;
  if (!engine::SeedsDecider(facts, st.spec->appset, st.spec->progressive_syncs)) return;
  engine::StoredRolloutStatus stored;
  stored.application_status = std::move(result.plan.application_status);
  stored.conditions = std::move(result.plan.conditions);
  stored.has_rollout = result.plan.rollout.has_value();
  if (result.plan.rollout) stored.rollout = std::move(*result.plan.rollout);
  stored.other = std::move(result.plan.other_status);
  std::shared_ptr<const engine::ApplicationSet> set(st.spec, &st.spec->appset);
  st.decider = std::make_unique<engine::RollingSyncDecider>(
      std::move(set), std::move(stored), std::move(st.observed), st.mirror->stored, st.gathered_at,
      Now(self));
  st.observed.clear();
  st.decider_generation = st.last->generation;
  for (const auto& app : st.last->generation->apps) {
    st.decider_index.app_of_label[{app.cluster, AppLabel(self, app.name)}] = app.name;
    st.decider_index.apps_of_cluster[app.cluster].push_back(app.name);
  }
}

// What the cluster actors and finished attempts reported since the last decision, into the
// decider: each concerned app's observation is refreshed as RefreshObserved refreshes it.
void FeedDecider(Self* self) {
  auto& st = self->state;
  const std::set<std::string> apps = engine::AppsToRefresh(st.applied_changed, st.live_changed,
                                                           st.clusters_changed, st.decider_index);
  for (const auto& app : apps) {
    engine::ObservedApp o = st.decider->TakeObserved(app);
    if (o.desired.name.empty()) continue;  // not of the decider's generation
    // The decider's generation is the observation's: only what the clusters and attempts
    // reported is refreshed.
    const engine::ObservationRefresh refresh =
        engine::RefreshOf(o.desired, o.desired, /*same_generation=*/true,
                          st.live_changed.count({o.desired.cluster, AppLabel(self, app)}) > 0,
                          st.applied_changed.count(app) > 0);
    ObserveCluster(self, o);
    if (refresh.live) ObserveLive(self, o);
    if (refresh.applied) ObserveApplied(self, o);
    st.decider->PutObserved(std::move(o));
  }
  st.live_changed.clear();
  st.applied_changed.clear();
  st.clusters_changed.clear();
}

// At a gather that decides (a resync): the decider's next decision against a from-scratch one
// on the same state. A difference is a bug: counted, logged with the first differing app, and
// the set is decided from scratch (its state is what the store holds, not the decider's).
void CheckDecider(Self* self) {
  auto& st = self->state;
  FeedDecider(self);
  const engine::DeciderCheck check =
      engine::CheckDecider(st.decider->stored_apps(), st.mirror->stored, [&] {
        engine::DeciderCheck decided;
        st.decider->DecideChecked(Now(self), decided);
        return decided;
      });
  if (check.agrees) return;
  Log(self, engine::DivergenceLine(check.difference));
  if (st.services->publish.decision_divergence) {
    st.services->publish.decision_divergence(st.spec->appset.name);
  }
}

// A decision's change as store writes: every record it names, nothing else (which records a
// decision writes is engine::ChangeOfDecision's and ChangeOfDelta's rule).
void PutChange(const std::string& set, const MirrorChange& change, store::StateBatch& batch) {
  for (const auto& [app, entry] : change.statuses) batch.PutAppStatus(set, app, entry);
  if (change.conditions) batch.PutConditions(set, *change.conditions);
  if (change.rollout) batch.PutRollout(set, *change.rollout);
  for (const auto& [app, spec] : change.specs) batch.PutAppSpec(set, app, spec);
  for (const auto& [app, record] : change.operations) {
    batch.PutOperation(set, app, engine::OperationRecordToJson(record));
  }
}

// An event's decision on what changed, committed before it is acted on.
void DecideIncrementally(Self* self) {
  auto& st = self->state;
  FeedDecider(self);
  auto persisted = std::make_shared<Persisted>();
  persisted->delta = st.decider->Decide(Now(self));
  persisted->pending_deletions = st.pending_deletions;
  persisted->change = engine::ChangeOfDelta(*persisted->delta, st.decider->status());
  store::StateBatch batch;
  PutChange(st.spec->appset.name, persisted->change, batch);
  if (batch.ops().empty()) {
    self->send(self, persisted_atom::value, persisted);
    return;
  }
  CommitOnPool<PersistedPtr>(self, std::move(batch), persisted, persisted_atom::value);
}

// One decision on gathered inputs and the actor's live state, committed before it is acted on.
// `previous` is the gather before `g` when `g` is new (apps gone since are marked for deletion);
// null when deciding again on the same gather, which changes no deletion mark.
void Decide(Self* self, const Gathered& gathered, const GatheredPtr* previous, bool same_inputs) {
  auto& st = self->state;
  engine::RouteFacts route;
  route.decider_holds_generation = st.decider && st.decider_generation == gathered.generation;
  route.new_gather = previous != nullptr;
  route.same_inputs = same_inputs;
  route.resync_due = route.decider_holds_generation && route.new_gather && ResyncDue(self);
  switch (engine::RouteOf(route)) {
    case engine::DecisionRoute::kIncremental:
      DecideIncrementally(self);
      return;
    case engine::DecisionRoute::kCheckThenFromScratch:
      CheckDecider(self);
      break;
    case engine::DecisionRoute::kFromScratch:
      break;
  }
  ReleaseDecider(self);
  const Gathered* g = &gathered;
  const engine::Time now = Now(self);
  engine::AppSetReconcileInput input;
  input.appset = &st.spec->appset;
  engine::Issues issues;
  input.stored = engine::DecodeStoredRolloutStatus(engine::StoredStatusJson(*st.mirror), issues);
  for (const auto& i : issues) Log(self, "stored status: " + engine::FormatIssue(i));
  input.apps = RefreshObserved(self, *g);
  input.generator_repository_errors = g->generation->generator_repository_errors;
  // Lent to the engine, which hands them back (the mirror's decoded specs and operations).
  input.stored_apps = std::move(st.mirror->stored);
  st.gathered_at = engine::ReuseApplicationsSince(st.gathered_at, previous != nullptr, now);
  input.reuse_applications_since = st.gathered_at;
  input.progressive_syncs = st.spec->progressive_syncs;
  input.analysis_prometheus = st.spec->analysis_prometheus;
  input.automated_warned = st.automated_warned;
  input.now = now;

  auto persisted = std::make_shared<Persisted>();
  persisted->result = engine::ReconcileAppSet(std::move(input));
  engine::AppSetReconcileResult& result = persisted->result;
  st.observed = std::move(result.observed);
  st.mirror->stored = std::move(result.stored_apps);
  if (result.automated_warning) {
    Log(self, "warning: " + *result.automated_warning);
    st.automated_warned = true;
  }

  // What changed against the mirror becomes one atomic batch, with the deletion marks of the
  // apps the gather no longer generates (MarkApps adds them to the change's removed apps).
  engine::DecisionChange decided = engine::ChangeOfDecision(*st.mirror, result);
  persisted->change = std::move(decided.change);
  store::StateBatch batch;
  PutChange(st.spec->appset.name, persisted->change, batch);
  if (previous != nullptr) {
    MarkApps(self, *g, *previous, decided.present, batch, *persisted);
  } else {
    persisted->pending_deletions = st.pending_deletions;
  }

  if (batch.ops().empty()) {
    self->send(self, persisted_atom::value, persisted);
    return;
  }
  CommitOnPool<PersistedPtr>(self, std::move(batch), persisted, persisted_atom::value);
}

// Applies a committed decision's change to the mirror (engine::ApplyChange says how) and tells
// the incremental decider, if one holds the set, the specs and operations it now holds.
void ApplyChange(Self* self, MirrorChange change) {
  auto& st = self->state;
  if (!st.mirror) return;  // a decision is only taken with the mirror loaded
  Mirror& m = *st.mirror;
  const engine::MirrorUpdated updated = engine::ApplyChange(m, std::move(change));
  engine::RollingSyncDecider* decider = st.decider.get();
  if (!decider) return;
  for (const auto& app : updated.specs) decider->SetSpec(app, *m.stored.at(app).spec);
  for (const auto& app : updated.operations) decider->SetOperation(app, m.stored.at(app).operation);
}

// [issue 29] Counts the rollback a committed decision started (fleetwave_rollbacks_total), from
// the stored status.rollout it began from and the one it committed: called before the change
// reaches the mirror. The engine says whether one started; a restart that finds a rollback
// stored never counts it again.
void CountRollbackStarted(Self* self, const MirrorChange& change) {
  auto& st = self->state;
  if (!st.mirror || !st.services->publish.rollback_started) return;
  const std::string reason = engine::RollbackStartedByDecision(st.mirror->rollout, change.rollout);
  if (!reason.empty()) st.services->publish.rollback_started(st.spec->appset.name, reason);
}

// Nothing of a decision was acknowledged: act on none of it and decide again, from scratch (a
// decider would be ahead of the store), shortly.
void DecisionNotCommitted(Self* self, const std::string& error) {
  auto& st = self->state;
  const engine::NotCommitted retry = engine::DecisionNotCommitted(error, st.services->now());
  Log(self, retry.log);
  ReleaseDecider(self);
  st.unchanged = false;  // the retry must decide: nothing of this decision is in force
  st.regather = true;    // on what the store holds
  ArmWake(self, retry.retry_at);
  DeliverAnswers(self);
}

// The published summary but its status.
Json SummaryOf(Self* self) {
  const auto& set = self->state.spec->appset;
  return {{"metadata", {{"name", set.name}}},
          {"spec", {{"file", set.file}, {"strategy", engine::StrategyJson(set.strategy)}}}};
}

// app -> cluster of the last generation, made once per generation; app_clusters_version names
// the map returned (another map, another version).
const std::map<std::string, std::string>& AppClusters(Self* self) {
  auto& st = self->state;
  static const std::map<std::string, std::string> kNone;
  if (!st.last) {
    if (st.app_clusters) {
      st.app_clusters.reset();
      st.app_clusters_generation = nullptr;
      ++st.app_clusters_version;
    }
    return kNone;
  }
  if (st.app_clusters_generation != st.last->generation || !st.app_clusters) {
    auto clusters = std::make_shared<std::map<std::string, std::string>>();
    for (const auto& app : st.last->generation->apps) clusters->emplace(app.name, app.cluster);
    st.app_clusters = std::move(clusters);
    st.app_clusters_generation = st.last->generation;
    ++st.app_clusters_version;
  }
  return *st.app_clusters;
}

void OnPersisted(Self* self, PersistedPtr p) {
  auto& st = self->state;
  st.busy = false;
  if (!p->error.empty()) {
    DecisionNotCommitted(self, p->error);
    return;
  }
  if (p->deletions_changed) self->send(st.coordinator, reconcile_atom::value);
  CountRollbackStarted(self, p->change);
  ApplyChange(self, std::move(p->change));
  st.pending_deletions = p->pending_deletions;
  engine::AppSetReconcileResult& result = p->result;
  // The syncs first (they are committed): publishing a large set must not delay its applies.
  RunAttempts(self, result.attempts_due, result.starts);
  if (st.services->publish.reconcile_seconds) {
    st.services->publish.reconcile_seconds(
        "appset",
        std::chrono::duration<double>(std::chrono::steady_clock::now() - st.reconcile_started)
            .count());
  }
  // The engine's lines name the appset, app and cluster themselves.
  if (st.services->log) {
    for (const auto& line : result.log) st.services->log(line);
  }
  if (st.services->publish.appset) {
    Json summary = SummaryOf(self);
    summary["status"] = std::move(result.status);
    engine::ShowPendingDeletions(summary["status"], p->pending_deletions);
    const auto& clusters = AppClusters(self);
    const PublishOrigin origin{self->id(), ++st.publish_seq, nullptr,  // from scratch: any
                               st.app_clusters_version};
    st.services->publish.appset(st.spec->appset.name, summary, std::move(result.applications),
                                clusters, &origin);
  }
  if (st.services->publish.drift) {
    st.services->publish.drift(st.spec->appset.name, result.plan.drifted,
                               result.plan.healed.size());
  }
  DeliverAnswers(self);
  // New commits are found by polling: the next reconcile comes at the latest one poll interval
  // from now (sooner when the engine asked for a wake-up).
  const std::optional<engine::Time> wake = PollOrEarlier(self, result.wake_at);
  st.decided_generation = st.last ? st.last->generation : nullptr;
  st.decided_deletions = st.last ? st.last->deletions : StoredDeletions{};
  st.decided_at = Now(self);
  st.engine_wake_at = result.wake_at;
  st.unchanged = true;  // events that came in meanwhile set `dirty`: AfterDecision decides again
  ArmWake(self, wake);
  st.analysis_due = result.plan.analysis_due;
  SeedDecider(self, result);
  MaybeMeasure(self);
  AfterDecision(self);
}

// An incremental decision landed: log, publish what changed, act.
void OnDeltaPersisted(Self* self, PersistedPtr p) {
  auto& st = self->state;
  st.busy = false;
  if (!p->error.empty()) {
    DecisionNotCommitted(self, p->error);
    return;
  }
  CountRollbackStarted(self, p->change);
  ApplyChange(self, std::move(p->change));
  engine::AppSetDelta& d = *p->delta;
  RunAttempts(self, d.attempts_due, d.starts);  // committed: applies before publishing
  if (st.services->publish.reconcile_seconds) {
    st.services->publish.reconcile_seconds(
        "appset",
        std::chrono::duration<double>(std::chrono::steady_clock::now() - st.reconcile_started)
            .count());
  }
  if (st.services->log) {
    for (const auto& line : d.log) st.services->log(line);
  }
  if (st.services->publish.appset && st.decider && engine::DeltaPublishes(d)) {
    // The decider's status is lent to the summary for the call: no copy of the set's status.
    Json summary = SummaryOf(self);
    Json& status = summary["status"];
    status.swap(st.decider->status());
    engine::ShowPendingDeletions(status, p->pending_deletions);
    // Only the entries the decision patched can differ from this actor's previous publish.
    const auto& clusters = AppClusters(self);
    const PublishOrigin origin{self->id(), ++st.publish_seq,
                               d.entry_positions ? &*d.entry_positions : nullptr,
                               st.app_clusters_version};
    st.services->publish.appset(st.spec->appset.name, summary, st.decider->applications(), clusters,
                                &origin);
    status.erase("pendingDeletions");
    status.swap(st.decider->status());
  }
  if (st.services->publish.drift)
    st.services->publish.drift(st.spec->appset.name, d.drifted, d.healed);
  DeliverAnswers(self);
  const std::optional<engine::Time> wake = PollOrEarlier(self, d.wake_at);
  // decided_at stays the last from-scratch decision's: the resync comes every kResyncPolls
  // polls whatever the events did meanwhile.
  st.engine_wake_at = d.wake_at;
  st.unchanged = true;
  ArmWake(self, wake);
  st.analysis_due = d.analysis_due;
  MaybeMeasure(self);
  AfterDecision(self);
}

void Reconcile(Self* self, bool regather, bool poll) {
  auto& st = self->state;
  if (!poll) st.unchanged = false;
  if (regather) st.regather = true;
  if (st.deleting) return;  // the deletion actor acts; a new spec wakes this actor again
  if (st.busy) {
    st.dirty = true;
    return;
  }
  st.busy = true;
  st.reconcile_started = std::chrono::steady_clock::now();
  if (engine::DecidesOnLastGather(st.regather, st.last != nullptr, st.mirror.has_value())) {
    const GatheredPtr last = st.last;  // held: the decision reads it
    Decide(self, *last, nullptr);
    return;
  }
  st.regather = false;  // a request arriving from here on gathers again after this one
  st.gather_started_at = st.services->now();
  SchedulePoll(self);
  AppSetActorImpl me = caf::actor_cast<AppSetActorImpl>(self);
  AppSetSpecPtr spec = st.spec;
  sources::Source* source = st.services->source;
  store::Store* store = st.services->store;
  const bool load = !st.mirror.has_value();
  std::shared_ptr<sources::RenderCache> renders = st.renders;
  GenerationPtr last = st.last ? st.last->generation : nullptr;
  // A gather that throws still answers (issue 30), or the actor would stay busy for good.
  st.services->pool->Post(
      "appset=" + spec->appset.name,
      [me, spec, source, store, load, renders, last] {
        caf::anon_send(me, gathered_atom::value, Gather(spec, source, store, load, *renders, last));
      },
      [me](const std::string& error) {
        auto failed = std::make_shared<Gathered>();
        failed->failed = error;
        caf::anon_send(me, gathered_atom::value, GatheredPtr(std::move(failed)));
      });
}

// ---- sync attempts ----

void FinishAttempt(Self* self, const std::string& app, const engine::OperationRecord& running,
                   std::vector<engine::ObjectResult> results,
                   std::vector<engine::AppliedObject> applied,
                   const std::optional<engine::Error>& error, bool used_slot) {
  auto& st = self->state;
  const engine::GeneratedApplication* generated = st.last ? FindApp(*st.last, app) : nullptr;
  const Json spec = generated ? Member(generated->object, "spec") : Json::object();
  auto done = std::make_shared<AttemptDone>();
  done->app = app;
  done->record = engine::EndAttempt(running, generated ? &spec : nullptr, std::move(results), error,
                                    Now(self));
  done->applied = std::move(applied);
  done->used_slot = used_slot;
  store::StateBatch batch;
  batch.PutOperation(st.spec->appset.name, app, engine::OperationRecordToJson(done->record));
  CommitOnPool<AttemptDonePtr>(self, std::move(batch), done, finished_atom::value);
}

void OnFinished(Self* self, AttemptDonePtr done) {
  auto& st = self->state;
  st.in_flight.erase(done->app);
  if (done->used_slot) self->send(st.coordinator, release_atom::value);
  if (!done->error.empty()) {
    Log(self, "app=" + done->app + " cannot record the sync's end: " + done->error);
  } else {
    st.mirror->stored[done->app].operation = done->record;
    if (st.decider) st.decider->SetOperation(done->app, done->record);
    const std::optional<engine::SyncFinished> finished = engine::SyncFinishedOf(done->record);
    if (finished && st.services->publish.sync_finished) {
      st.services->publish.sync_finished(st.spec->appset.name, finished->trigger, finished->phase);
    }
    const engine::GeneratedApplication* generated =
        st.last ? FindApp(*st.last, done->app) : nullptr;
    Log(self,
        engine::AttemptEndLine(
            done->app, generated ? std::optional(generated->cluster) : std::nullopt, done->record));
  }
  if (!done->applied.empty()) {
    st.applied[done->app] = done->applied;
    st.applied_changed.insert(done->app);
  }
  Reconcile(self, false);
}

void SendAttempt(Self* self, const std::string& app, const engine::OperationRecord& record,
                 const std::vector<engine::RenderedObject>& desired) {
  auto& st = self->state;
  const engine::GeneratedApplication* generated = FindApp(*st.last, app);
  auto cluster = st.clusters->find(generated->cluster);
  const engine::AttemptTarget destination{
      {st.spec->appset.name, app}, generated->cluster, cluster != st.clusters->end()};
  engine::LiveObjects live;
  auto view = st.views.find(generated->cluster);
  if (view != st.views.end()) {
    auto entries = view->second.apps.find(AppLabel(self, app));
    if (entries != view->second.apps.end()) {
      for (const auto& e : entries->second) live.push_back(e.object);
    }
  }
  engine::AttemptSendPlan plan = engine::PlanAttemptSend(
      destination, record, Member(generated->object, "spec"), desired, live);
  if (plan.finish_now) {
    FinishAttempt(self, app, record, std::move(plan.attempt.settled), {}, plan.error, false);
    return;
  }
  engine::SyncAttempt& attempt = plan.attempt;
  auto command = std::make_shared<ApplyCommand>();
  command->appset = st.spec->appset.name;
  command->app = app;
  command->operation_id = record.id;
  command->objects = std::move(attempt.apply);
  command->actions = std::move(attempt.actions);
  command->prune = std::move(attempt.prune);
  auto settled = std::make_shared<std::vector<engine::ObjectResult>>(std::move(attempt.settled));
  ClusterActor target = cluster->second;
  // By value: the gathered apps `generated` points into may be replaced before the reply.
  const std::string cluster_name = generated->cluster;
  Log(self, engine::AttemptSendLine(destination, command->objects.size(), command->prune.size()));
  // One global sync slot per attempt (the coordinator's limit), held until the attempt ends.
  self->request(st.coordinator, caf::infinite, slot_atom::value).then([=](slot_atom) {
    self->request(target, std::chrono::minutes(5), apply_atom::value, ApplyCommandPtr(command))
        .then(
            [=](ApplyReplyPtr reply) {
              std::vector<engine::ObjectResult> results = *settled;
              results.insert(results.end(), reply->results.begin(), reply->results.end());
              FinishAttempt(self, app, record, std::move(results), reply->applied, reply->error,
                            true);
            },
            [=](caf::error& err) {
              FinishAttempt(
                  self, app, record, *settled, {},
                  engine::TransientError("", "cluster " + cluster_name +
                                                 " did not answer: " + self->system().render(err)),
                  true);
            });
  });
}

void StartAttempt(Self* self, const std::string& app, const engine::OperationRecord& record) {
  auto& st = self->state;
  const engine::GeneratedApplication* generated = FindApp(*st.last, app);
  if (generated == nullptr) return;  // no longer generated: its operation stays as it is
  st.in_flight.insert(app);
  const auto& renders = st.last->generation->renders;
  auto render = renders.find(app);
  engine::CurrentRender current;
  if (render != renders.end()) current = {render->second.ok(), &render->second.revisions};
  if (engine::ChooseAttemptRender(current, record.revisions) ==
      engine::AttemptRenderChoice::kUseCurrent) {
    SendAttempt(self, app, record, *render->second.objects);
    return;
  }
  // Rendered on the pool at the operation's pinned revisions.
  AppSetActorImpl me = caf::actor_cast<AppSetActorImpl>(self);
  sources::Source* source = st.services->source;
  auto job = std::make_shared<AttemptRender>();
  job->app = app;
  job->record = record;
  const std::string set = st.spec->appset.name;
  const engine::GeneratedApplication copy = *generated;
  const engine::InputLimits limits = st.spec->limits;
  st.services->pool->Post([me, source, job, set, copy, limits] {
    sources::ResolveOnce resolver(*source);
    job->render = sources::RenderApp(resolver, set, copy, &job->record.revisions,
                                     engine::Discovery::BuiltIn(), limits);
    caf::anon_send(me, rendered_atom::value, AttemptRenderPtr(job));
  });
}

void OnAttemptRendered(Self* self, AttemptRenderPtr job) {
  switch (engine::AfterAttemptRender(job->render.ok(),
                                     FindApp(*self->state.last, job->app) != nullptr)) {
    case engine::AfterPinnedRender::kFinishWithRenderError:
      FinishAttempt(self, job->app, job->record, {}, {}, job->render.error(), false);
      return;
    case engine::AfterPinnedRender::kDrop:
      self->state.in_flight.erase(job->app);
      return;
    case engine::AfterPinnedRender::kSend:
      SendAttempt(self, job->app, job->record, *job->render.objects);
      return;
  }
}

// Starts the app's attempt when engine::DecideAttempt finds it due: new starts, retries, and
// operations a crash interrupted (PlanSyncAttempt re-applies only what the cluster lacks).
void RunDueAttempt(Self* self, const std::string& app, const engine::StoredApp& stored,
                   engine::Time now);

void RunDueAttempts(Self* self) {
  auto& st = self->state;
  if (!st.mirror || !st.last || st.deleting) return;
  const engine::Time now = st.services->now();
  for (const auto& [app, stored] : st.mirror->stored) RunDueAttempt(self, app, stored, now);
}

// The attempts a decision found due and the syncs it started: no scan of every app.
void RunAttempts(Self* self, const std::vector<std::string>& due,
                 const std::vector<engine::SyncStart>& started) {
  auto& st = self->state;
  if (!st.mirror || !st.last || st.deleting) return;
  const engine::Time now = st.services->now();
  auto run = [&](const std::string& app) {
    auto it = st.mirror->stored.find(app);
    if (it != st.mirror->stored.end()) RunDueAttempt(self, app, it->second, now);
  };
  for (const auto& app : due) run(app);
  for (const auto& start : started) run(start.app);
}

void RunDueAttempt(Self* self, const std::string& app, const engine::StoredApp& stored,
                   engine::Time now) {
  auto& st = self->state;
  engine::AttemptFacts facts;
  facts.operation = stored.operation ? &*stored.operation : nullptr;
  facts.in_flight = st.in_flight.count(app) > 0;
  const engine::GeneratedApplication* generated = FindApp(*st.last, app);
  facts.generated = generated != nullptr;
  if (generated != nullptr) {
    if (auto view = st.views.find(generated->cluster); view != st.views.end()) {
      facts.cluster_reachable = view->second.flags.reachable;
      facts.cluster_synced = view->second.flags.synced;
    }
  }
  const engine::AttemptDecision decision = engine::DecideAttempt(facts, now);
  switch (decision.readiness) {
    case engine::AttemptReadiness::kNotDue:
      return;
    case engine::AttemptReadiness::kWaitUntil:
      ArmWake(self, decision.wake_at);
      return;
    case engine::AttemptReadiness::kStart: {
      const engine::OperationRecord record = *stored.operation;  // StartAttempt may change it
      StartAttempt(self, app, record);
      return;
    }
  }
}

// ---- manual sync ----

// Tells the caller of an operator command what happens, and logs it with the set's name.
void Answer(Self* self, caf::response_promise& promise, const engine::CommandAnswer& answer) {
  Log(self, answer.message);
  if (promise.pending()) promise.deliver(answer);
}

engine::SetCommandContext CommandContext(Self* self) {
  auto& st = self->state;
  return {st.spec->appset.name, st.last != nullptr && st.mirror.has_value(), st.deleting};
}

void ManualSync(Self* self, const std::string& app, const std::string& revision,
                const std::string& caller, caf::response_promise answer) {
  auto& st = self->state;
  if (st.busy) {  // one decision in flight at a time, so the mirror stays the store's image
    st.deferred.push_back([=] { ManualSync(self, app, revision, caller, answer); });
    return;
  }
  const std::string what = "manual sync by " + caller;
  const engine::GeneratedApplication* generated = st.last ? FindApp(*st.last, app) : nullptr;
  if (auto refused =
          engine::RefuseSetCommand(CommandContext(self), what, app, generated != nullptr)) {
    Answer(self, answer, *refused);
    return;
  }
  const engine::ObservedApp observed = Observe(self, *st.last, *generated);
  std::optional<engine::StoredApp> stored;
  if (auto it = st.mirror->stored.find(app); it != st.mirror->stored.end()) {
    stored = it->second;
  } else {
    stored.emplace();
  }
  auto entry = st.mirror->statuses.find(app);
  const std::vector<std::string> pinned = engine::ManualSyncPin(
      entry != st.mirror->statuses.end() ? &entry->second : nullptr, observed.revisions);
  engine::ManualSyncDecision decision = engine::StartManualSync(
      observed, stored, pinned,
      revision.empty() ? std::nullopt : std::optional<std::string>(revision), caller, Now(self),
      st.spec->appset.projects.get());
  if (!decision.start) {
    Answer(self, answer,
           {engine::CommandRefusalOf(decision.error->kind),
            what + " of application " + app + " refused: " + decision.error->ToString()});
    return;
  }
  auto persisted = std::make_shared<Persisted>();
  const Json record = engine::OperationRecordToJson(decision.start->record);
  persisted->change.operations[app] = decision.start->record;
  persisted->result.log.push_back("app=" + app + " manual sync by " + caller + " (operation " +
                                  decision.start->record.id + ")");
  persisted->result.status = Json::object();
  persisted->answer = std::move(answer);
  persisted->accepted = {
      engine::CommandOutcome::kAccepted,
      "sync of application " + app + " started (operation " + decision.start->record.id + ")"};
  store::StateBatch batch;
  batch.PutOperation(st.spec->appset.name, app, record);
  st.busy = true;  // the commit below is this actor's decision in flight
  // The next decision publishes the Running operation, so the API shows it until it ends.
  st.dirty = true;
  CommitOnPool<PersistedPtr>(self, std::move(batch), persisted, persisted_atom::value);
}

// ---- pause, resume, abort, rollback, skip ----

// Changes the stored rollout state (durable, RollingSync §7) and reconciles with it.
void RolloutAction(Self* self, engine::RolloutCommand command, const std::string& app,
                   const std::string& reason, const std::string& caller,
                   caf::response_promise answer) {
  auto& st = self->state;
  engine::RolloutCommandFacts facts;
  facts.appset = st.spec->appset.name;
  facts.mirror_loaded = st.mirror.has_value();
  facts.deleting = st.deleting;
  facts.has_generation = st.last != nullptr;
  facts.app_in_generation = st.last && !app.empty() && FindApp(*st.last, app) != nullptr;
  const bool waits_for_load = engine::RolloutCommandWaitsForLoad(facts);
  if (st.busy || waits_for_load) {  // one decision or load in flight at a time
    if (waits_for_load && !st.busy) Reconcile(self, true);
    st.deferred.push_back([=] { RolloutAction(self, command, app, reason, caller, answer); });
    return;
  }
  const std::string what = engine::RolloutCommandWhat(command, caller);
  if (auto refused = engine::RefuseRolloutCommand(facts, what, app)) {
    Answer(self, answer, *refused);
    return;
  }
  engine::Issues issues;
  engine::RolloutState state =
      engine::DecodeRolloutState(st.mirror->rollout.value_or(Json::object()), issues);
  engine::CommandAnswer outcome = engine::ApplyRolloutCommand(state, command, st.spec->appset.name,
                                                              app, reason, Now(self), caller);
  outcome.message = what + ": " + outcome.message;
  if (outcome.outcome != engine::CommandOutcome::kAccepted) {
    Answer(self, answer, outcome);
    return;
  }
  auto persisted = std::make_shared<Persisted>();
  const Json rollout = engine::EncodeRolloutState(state);
  persisted->change.rollout = rollout;
  persisted->result.log.push_back(engine::RolloutCommandLogLine(command, app, reason, caller));
  persisted->answer = std::move(answer);
  persisted->accepted = std::move(outcome);
  store::StateBatch batch;
  batch.PutRollout(st.spec->appset.name, rollout);
  ReleaseDecider(self);  // the rollout state changed under it: the next decision is from scratch
  st.busy = true;
  st.dirty = true;  // the next reconcile plans with the new state
  CommitOnPool<PersistedPtr>(self, std::move(batch), persisted, persisted_atom::value);
}

// ---- analysis measurements (issue 29) ----

// Queries Prometheus on the pool for the measurement the last decision asked for, once it is
// due (the decision's wake-up brings the actor back then); one query at a time per set.
void MaybeMeasure(Self* self) {
  auto& st = self->state;
  switch (engine::MeasureStepOf(st.analysis_due, st.measuring, st.deleting, st.services->now())) {
    case engine::MeasureStep::kNothing:
      return;
    case engine::MeasureStep::kWaitUntilDue:
      ArmWake(self, st.analysis_due->due);  // the wake-up comes back here
      return;
    case engine::MeasureStep::kMeasureNow:
      break;
  }
  st.measuring = true;
  auto job = std::make_shared<Measured>();
  job->request = *st.analysis_due;
  const std::string prometheus =
      engine::AnalysisPrometheusOf(job->request.spec, st.spec->analysis_prometheus);
  job->url = clients::PrometheusQueryUrl(prometheus, job->request.spec.query);
  AppSetActorImpl me = caf::actor_cast<AppSetActorImpl>(self);
  auto now = st.services->now;
  st.services->pool->Post(
      "appset " + st.spec->appset.name + " analysis",
      [me, job, prometheus, now] {
        const engine::PrometheusAnswer answer = clients::PrometheusInstantQuery(
            prometheus, job->request.spec.query, std::chrono::seconds(10));
        job->measurement = engine::Measure(job->request.spec, answer, now());
        caf::anon_send(me, measured_atom::value, MeasuredPtr(job));
      },
      [me, job, now](const std::string& error) {
        // The query job threw: a failed measurement, never a pass.
        job->measurement = engine::Measure(job->request.spec, {std::nullopt, error}, now());
        caf::anon_send(me, measured_atom::value, MeasuredPtr(job));
      });
}

// A measurement came back: stored in status.rollout.analysis (write-ahead) before the next
// decision acts on it; one the rollout no longer wants (another step or generation, a halt) is
// dropped.
void OnMeasured(Self* self, MeasuredPtr m) {
  auto& st = self->state;
  st.measuring = false;
  if (st.busy || !st.mirror) {
    st.deferred.push_back([self, m] {
      self->state.measuring = true;
      OnMeasured(self, m);
    });
    st.measuring = true;  // still to be stored: no second query meanwhile
    return;
  }
  const engine::AnalysisRequest& request = m->request;
  const std::string line = engine::MeasurementLogLine(request, m->measurement, m->url);
  const std::optional<engine::RolloutState> state =
      engine::RolloutWithMeasurement(st.mirror->rollout, request, m->measurement);
  if (!state) {
    Log(self, engine::MeasurementDroppedLine(line));
    Reconcile(self, false);
    return;
  }
  auto persisted = std::make_shared<Persisted>();
  const Json rollout = engine::EncodeRolloutState(*state);
  persisted->change.rollout = rollout;
  persisted->result.log.push_back(line);
  persisted->measured = std::make_pair(request.step, m->measurement.passed);
  store::StateBatch batch;
  batch.PutRollout(st.spec->appset.name, rollout);
  ReleaseDecider(self);  // the rollout state changed under it: the next decision is from scratch
  st.analysis_due.reset();
  st.busy = true;
  st.dirty = true;  // the next reconcile judges the step with the measurement
  CommitOnPool<PersistedPtr>(self, std::move(batch), persisted, persisted_atom::value);
}

// ---- live data ----

void OnClusterUpdate(Self* self, const ClusterUpdatePtr& update) {
  // Only the actor the set is subscribed through speaks for its cluster: a replaced actor's last
  // report, or a retired one's (its context left the kubeconfig), arriving after the new map
  // would bring back what it replaced.
  const ClusterActor from = ClusterActorOf(self->state.watched_clusters, update->cluster);
  const caf::strong_actor_ptr& sender = self->current_sender();
  if (!from || !sender || sender->id() != from.id()) return;
  auto& view = self->state.views[update->cluster];
  const engine::ClusterReportEffect effect =
      engine::ApplyClusterReport(update->cluster, view.flags, update->reachable, update->synced);
  view.flags = effect.flags;
  if (effect.changed) self->state.clusters_changed.insert(update->cluster);
  for (const auto& [label, entries] : update->apps) {
    view.apps[label] = entries;
    self->state.live_changed.emplace(update->cluster, label);
  }
  if (const auto& publish = self->state.services->publish.cluster) {
    std::string server;
    for (const auto& c : self->state.spec->clusters) {
      if (c.name == update->cluster) server = c.server;
    }
    publish(update->cluster,
            {{"server", server}, {"up", update->reachable}, {"synced", update->synced}});
  }
  if (!effect.log.empty()) Log(self, effect.log);
  Reconcile(self, false);
}

AppSetActorImpl::behavior_type AppSetBehavior(Self* self, SetParent coordinator,
                                              AppSetActorConfig config) {
  auto& st = self->state;
  st.spec = config.spec;
  st.clusters = config.clusters;
  st.services = config.services;
  st.coordinator = coordinator;
  Reconcile(self, true);
  return {
      [=](reconcile_atom) { Reconcile(self, true); },
      [=](wake_atom, uint64_t generation) {
        if (generation != self->state.wake_generation) return;
        self->state.wake_at.reset();
        MaybeMeasure(self);  // a measurement due now needs no decision first
        // The poll gathers; an earlier wake-up (a retry, a deadline) decides on the last gather
        // (a gather asked for meanwhile, e.g. after a failure, still happens: st.regather).
        switch (OnWake(self)) {
          case engine::WakeAction::kGatherAnew:
            Reconcile(self, true, /*poll=*/true);
            break;
          case engine::WakeAction::kDecideOnLastGather:
            Reconcile(self, false);
            break;
        }
      },
      [=](gathered_atom, GatheredPtr g) { OnGathered(self, std::move(g)); },
      [=](persisted_atom, PersistedPtr p) {
        if (p->delta) {
          OnDeltaPersisted(self, std::move(p));
          return;
        }
        // A manual sync's commit carries no status: publish nothing, just run its attempt.
        if (p->result.status.empty()) {
          self->state.busy = false;
          self->state.unchanged = false;  // its operation shows in the next decision
          if (!p->error.empty()) {
            Log(self, engine::CommandNotStoredLog(p->error));
            if (p->answer && p->answer->pending()) {
              p->answer->deliver(engine::CommandNotStored(p->accepted, p->error));
            }
          } else {
            ApplyChange(self, std::move(p->change));
            if (p->measured && self->state.services->publish.analysis_measured) {
              self->state.services->publish.analysis_measured(
                  self->state.spec->appset.name, p->measured->first, p->measured->second);
            }
            for (const auto& line : p->result.log) Log(self, line);
            // Answered once the decision that follows (st.dirty) is published: a caller told
            // 202 finds the operation (or the paused rollout) in the API at once.
            if (p->answer) self->state.answer_after_publish.emplace_back(*p->answer, p->accepted);
            RunDueAttempts(self);
          }
          AfterDecision(self);
          return;
        }
        OnPersisted(self, std::move(p));
      },
      [=](rendered_atom, AttemptRenderPtr job) { OnAttemptRendered(self, std::move(job)); },
      [=](finished_atom, AttemptDonePtr done) { OnFinished(self, std::move(done)); },
      [=](live_atom, ClusterUpdatePtr update) { OnClusterUpdate(self, update); },
      [=](spec_atom, AppSetSpecPtr spec, ClusterMapPtr clusters) {
        self->state.spec = std::move(spec);
        if (clusters) self->state.clusters = std::move(clusters);
        self->state.deleting = false;  // look again: the definition may be back
        Reconcile(self, true);
      },
      [=](marked_atom, PersistedPtr p) { OnSetMarkPersisted(self, std::move(p)); },
      [=](measured_atom, MeasuredPtr m) { OnMeasured(self, std::move(m)); },
      [=](sync_atom, const std::string& app, const std::string& revision,
          const std::string& caller) -> caf::result<engine::CommandAnswer> {
        auto promise = self->make_response_promise();
        ManualSync(self, app, revision, caller, promise);
        return promise;
      },
      [=](pause_atom, const std::string& caller) -> caf::result<engine::CommandAnswer> {
        auto promise = self->make_response_promise();
        RolloutAction(self, engine::RolloutCommand::kPause, "", "", caller, promise);
        return promise;
      },
      [=](resume_atom, const std::string& caller) -> caf::result<engine::CommandAnswer> {
        auto promise = self->make_response_promise();
        RolloutAction(self, engine::RolloutCommand::kResume, "", "", caller, promise);
        return promise;
      },
      [=](abort_atom, const std::string& caller) -> caf::result<engine::CommandAnswer> {
        auto promise = self->make_response_promise();
        RolloutAction(self, engine::RolloutCommand::kAbort, "", "", caller, promise);
        return promise;
      },
      [=](rollback_atom, const std::string& to,
          const std::string& caller) -> caf::result<engine::CommandAnswer> {
        // The engine reads a rollback's reason as its target revision.
        auto promise = self->make_response_promise();
        RolloutAction(self, engine::RolloutCommand::kRollback, "", to, caller, promise);
        return promise;
      },
      [=](skip_atom, const std::string& app, const std::string& reason,
          const std::string& caller) -> caf::result<engine::CommandAnswer> {
        auto promise = self->make_response_promise();
        RolloutAction(self, engine::RolloutCommand::kSkip, app, reason, caller, promise);
        return promise;
      },
  };
}

}  // namespace

AppSetActor SpawnAppSetActor(caf::actor_system& system, const SetParent& coordinator,
                             AppSetActorConfig config) {
  return system.spawn(AppSetBehavior, coordinator, std::move(config));
}

}  // namespace fleetwave::actors
