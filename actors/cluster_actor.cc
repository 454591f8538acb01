#include "actors/cluster_actor.h"

#include <any>
#include <caf/all.hpp>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>

#include "actors/actor_executor.h"
#include "actors/atoms.h"
#include "actors/blocking_pool.h"
#include "actors/cluster_cache.h"
#include "actors/cluster_interface.h"
#include "actors/live_entry_projection.h"
#include "actors/services.h"
#include "actors/workload_actor.h"
#include "cluster-clients/informer.h"
#include "cluster-clients/json_fields.h"
#include "engine/check.h"
#include "engine/cluster_rules.h"
#include "engine/progress/progress_deadline.h"
#include "engine/progress/progress_decision.h"
#include "engine/progress/workload_projection.h"
#include "engine/sync/tracking.h"
#include "store/state.h"

namespace fleetwave::actors {
namespace {

using clients::Result;

struct KindWatch {
  clients::ResourceRef resource;
  std::shared_ptr<clients::Informer> informer;  // null while discovery resolves the kind
};

void ReleaseOnLoop(clients::Transport* transport, std::shared_ptr<clients::ClusterClient> client,
                   std::shared_ptr<ActorExecutor> executor);

// The ClusterClient keeps a raw pointer to its executor, and requests still in flight when the
// actor exits keep the client alive: so the executor may only go once the client has. The
// actor hands both to the transport's loop, which releases them when nothing else holds the
// client (every request ended; stopped informers let go of it).
void ReleaseWhenIdle(clients::Transport* transport, std::shared_ptr<clients::ClusterClient> client,
                     std::shared_ptr<ActorExecutor> executor) {
  transport->Post(
      [transport, client = std::move(client), executor = std::move(executor)]() mutable {
        ReleaseOnLoop(transport, std::move(client), std::move(executor));
      });
}

void ReleaseOnLoop(clients::Transport* transport, std::shared_ptr<clients::ClusterClient> client,
                   std::shared_ptr<ActorExecutor> executor) {
  if (client.use_count() <= 1) {
    client.reset();
    executor.reset();
    return;
  }
  transport->RunAt(transport->Now() + std::chrono::milliseconds(200),
                   [transport, client, executor]() mutable {
                     ReleaseOnLoop(transport, std::move(client), std::move(executor));
                   });
}

// A workload with a deadline: its actor and the decision it last reported.
struct WorkloadSlot {
  WorkloadActor actor;
  engine::DeadlineView view;
};

// A labelled workload's live entry as the watch delivered it, with its health should its
// deadline be exceeded: the cluster actor picks one by the workload actor's decision.
struct LabelledWorkload {
  std::string label;
  LiveEntry entry;
  engine::HealthStatus if_exceeded;
};

// Stored deadline records by namespace, kind, name (the store does not know the API group).
using WorkloadKey = std::tuple<std::string, std::string, std::string>;

struct ClusterState {
  ClusterActorConfig config;
  std::shared_ptr<ActorExecutor> executor;
  std::shared_ptr<clients::ClusterClient> client;
  std::unique_ptr<ClusterCache> cache;
  std::map<std::string, KindWatch> kinds;                 // "apiVersion/Kind"
  std::map<std::string, clients::ResourceRef> resources;  // "group/Kind", for deletes
  std::set<std::string> logged;                           // one-time messages already logged
  std::map<caf::actor_id, caf::actor_addr> subscribers;   // weak: no reference cycles
  bool tick_armed = false;
  // The probe timer in force: its generation (older timers are ignored) and when it fires.
  std::uint64_t probe_timer_generation = 0;
  std::optional<clients::SteadyTime> probe_timer_at;
  std::string last_failure;
  // Progress deadlines (ClusterActorConfig::workload_kinds).
  std::vector<std::shared_ptr<clients::Informer>> workload_informers;
  // Those of kinds whose deadline Kubernetes decides (Deployments): their cache is what a
  // term's start publishes the rows from (nothing else is held for them).
  std::vector<std::shared_ptr<clients::Informer>> echoed_informers;
  std::map<engine::ObjectRef, WorkloadSlot> workloads;
  std::map<engine::ObjectRef, LabelledWorkload> labelled_workloads;
  std::map<WorkloadKey, store::Json> stored_workloads;  // loaded, not yet claimed by an actor
  // Every watched workload with a deadline as last seen, deciding or not: a term that starts
  // spawns their actors from it (decide_atom).
  std::map<engine::ObjectRef, WorkloadPtr> deadlined;
  // The workload watches that listed (kind, namespace) while not deciding: their stale stored
  // records go once a term starts.
  std::set<std::pair<std::string, std::string>> listed_workloads;
  bool records_loaded = false;  // stored_workloads read for the current term

  ~ClusterState() {
    if (executor) executor->Close();
    for (auto& [key, watch] : kinds) {
      if (watch.informer) watch.informer->Stop();
    }
    kinds.clear();
    for (auto& informer : workload_informers) informer->Stop();
    workload_informers.clear();
    echoed_informers.clear();
    // The workload actors are this actor's: they go with it (a restarted cluster actor
    // respawns them from the store).
    for (auto& [ref, slot] : workloads) {
      caf::anon_send_exit(slot.actor, caf::exit_reason::user_shutdown);
    }
    if (client && config.transport) {
      ReleaseWhenIdle(config.transport, std::move(client), std::move(executor));
    }
  }

  void Log(const std::string& message) const {
    const std::string line = "cluster " + config.cluster.name + ": " + message;
    if (config.log) {
      config.log(line);
    } else {
      std::cerr << "fleetwave: " << line << "\n";
    }
  }
  // A message logged only the first time `key` is seen.
  void LogOnce(const std::string& key, const std::string& message) {
    if (logged.insert(key).second) Log(message);
  }
};

// The implementation's interface: the public protocol (cluster_interface.h) plus what only
// the actor itself and its children send it: client callbacks, its tick and probe timers, and
// its workload actors' deadline decisions.
using ClusterActorImpl =
    ClusterActor::extend<caf::reacts_to<run_atom, RunClosure>, caf::reacts_to<tick_atom>,
                         caf::reacts_to<probe_atom, std::uint64_t>,
                         caf::reacts_to<deadline_atom, WorkloadViewPtr>>;
using Self = ClusterActorImpl::stateful_pointer<ClusterState>;

void SendProbe(Self self);

// Sends the pending updates at the next tick; armed only while something is pending.
void ArmTick(Self self) {
  auto& st = self->state;
  if (st.tick_armed || !st.cache->HasPending()) return;
  st.tick_armed = true;
  self->delayed_send(self, st.config.tick, tick_atom::value);
}

// Keeps a timer for the next probe the liveness plans (none while a probe is out). A timer
// that is no longer the one in force is ignored when it fires.
void ArmProbe(Self self) {
  auto& st = self->state;
  const std::optional<clients::SteadyTime> at = st.cache->liveness().NextProbeAt();
  if (!at || (st.probe_timer_at && *st.probe_timer_at <= *at)) return;
  st.probe_timer_at = *at;
  const clients::SteadyTime now = self->clock().now();
  const auto delay = std::chrono::ceil<std::chrono::milliseconds>(
      *at > now ? *at - now : clients::Duration::zero());
  self->delayed_send(self, delay, probe_atom::value, ++st.probe_timer_generation);
}

// After an outcome was counted: logs a change of reachability, plans the probe, arms the tick.
void AfterOutcome(Self self, bool was_up, bool was_down) {
  auto& st = self->state;
  if (auto line = engine::ReachabilityChangeLine(was_up, was_down, st.cache->reachable(),
                                                 st.cache->down(), st.cache->liveness().hung(),
                                                 st.cache->failures_in_a_row(), st.last_failure)) {
    st.Log(*line);
  }
  ArmProbe(self);
  ArmTick(self);
}

// Counts one outcome towards reachability (clients::Liveness) and logs a change.
void NoteResult(Self self, const Result& r, const std::string& what,
                clients::Liveness::Source source = clients::Liveness::Source::kRequest) {
  auto& st = self->state;
  const bool was_up = st.cache->reachable();
  const bool was_down = st.cache->down();
  if (ClusterFailure(r)) st.last_failure = what + ": " + r.ToString();
  st.cache->Record(r, self->clock().now(), source);
  AfterOutcome(self, was_up, was_down);
}

void SendProbe(Self self) {
  auto& st = self->state;
  st.cache->liveness().ProbeSent();
  clients::RawRequest probe;
  probe.path = "/version";
  probe.idempotent = false;  // one attempt: the liveness schedules the next
  probe.progress_timeout = st.cache->liveness().policy().probe_timeout;
  st.client->Request(std::move(probe), [self](Result r) {
    auto& st = self->state;
    const bool was_up = st.cache->reachable();
    const bool was_down = st.cache->down();
    if (ClusterFailure(r)) st.last_failure = "GET /version: " + r.ToString();
    st.cache->liveness().RecordProbe(r, self->clock().now());
    AfterOutcome(self, was_up, was_down);
  });
}

void OnProbeTimer(Self self, std::uint64_t generation) {
  auto& st = self->state;
  if (generation != st.probe_timer_generation) return;  // replaced by an earlier one
  st.probe_timer_at.reset();
  if (st.cache->liveness().ProbeDue(self->clock().now())) {
    SendProbe(self);
  } else {
    ArmProbe(self);
  }
}

void SendUpdate(Self self, SubscriberId id, ClusterUpdate update) {
  auto& st = self->state;
  auto it = st.subscribers.find(id);
  if (it == st.subscribers.end()) return;
  auto target = caf::actor_cast<LiveSink>(it->second);
  if (!target) {
    st.cache->RemoveSubscriber(id);
    st.subscribers.erase(it);
    return;
  }
  ClusterUpdatePtr payload = std::make_shared<ClusterUpdate>(std::move(update));
  self->send(target, live_atom::value, std::move(payload));
}

// The entry the informer's typed projector made (ProjectEntry); null, and logged, if the
// projection is not one (a watch started without that projector: a bug, one object skipped).
const ProjectedEntry* Projected(Self self, const clients::Projection& p) {
  const ProjectedEntry* entry = p.typed ? std::any_cast<ProjectedEntry>(p.typed.get()) : nullptr;
  if (entry == nullptr || !entry->entry.object) {
    self->state.Log("projection of " + p.ns + "/" + p.name + " is not a live entry; skipped");
    return nullptr;
  }
  return entry;
}

// A labelled workload's health: Degraded (with the timeout's message) while its workload actor
// says the deadline is exceeded, else as judged without a timeout.
LiveEntry EffectiveEntry(const ClusterState& st, const LabelledWorkload& lw) {
  LiveEntry entry = lw.entry;  // the live object stays shared
  auto slot = st.workloads.find(entry.object->ref);
  if (slot != st.workloads.end()) {
    entry.health = engine::WorkloadHealthUnderDeadline(
        entry.health, lw.if_exceeded, slot->second.view.exceeded, slot->second.view.message);
  }
  return entry;
}

// An entry the cache already holds unchanged wakes no set (ClusterCache::Upsert); the event
// still counts towards reachability.
void OnUpsert(Self self, const clients::Projection& p) {
  const ProjectedEntry* e = Projected(self, p);
  if (e == nullptr) return;
  auto& st = self->state;
  const engine::ObjectRef& ref = e->entry.object->ref;
  if (e->health_if_exceeded) {
    LabelledWorkload& lw = st.labelled_workloads[ref];
    lw = LabelledWorkload{e->label, e->entry, *e->health_if_exceeded};
    st.cache->Upsert(lw.label, EffectiveEntry(st, lw));
  } else {
    st.labelled_workloads.erase(ref);
    st.cache->Upsert(e->label, e->entry);
  }
  NoteResult(self, Result{}, "watch", clients::Liveness::Source::kWatchEvent);
}

void OnDelete(Self self, const clients::Projection& p) {
  const ProjectedEntry* e = Projected(self, p);
  if (e == nullptr) return;
  self->state.labelled_workloads.erase(e->entry.object->ref);
  self->state.cache->Remove(e->entry.object->ref);
  NoteResult(self, Result{}, "watch", clients::Liveness::Source::kWatchEvent);
}

// ---- Progress deadlines: one workload actor per watched workload with a deadline ----

// A workload actor's decision changed: a labelled workload's health follows at the next tick.
void OnDeadlineView(Self self, const WorkloadViewPtr& v) {
  auto& st = self->state;
  if (!v) return;
  auto slot = st.workloads.find(v->ref);
  // A stopped actor's last words (its slot is gone or already has a successor) change nothing.
  if (slot == st.workloads.end() ||
      slot->second.actor.address() != caf::actor_cast<caf::actor_addr>(self->current_sender())) {
    return;
  }
  if (v->removed) {
    st.workloads.erase(slot);
  } else {
    slot->second.view = v->view;
  }
  if (auto lw = st.labelled_workloads.find(v->ref); lw != st.labelled_workloads.end()) {
    st.cache->Upsert(lw->second.label, EffectiveEntry(st, lw->second));
    ArmTick(self);
  }
}

void ForgetWorkload(Self self, const engine::ObjectRef& ref) {
  auto& st = self->state;
  auto slot = st.workloads.find(ref);
  if (slot == st.workloads.end()) return;
  const bool was_exceeded = slot->second.view.exceeded;
  st.workloads.erase(slot);
  if (auto lw = st.labelled_workloads.find(ref);
      was_exceeded && lw != st.labelled_workloads.end()) {
    st.cache->Upsert(lw->second.label, EffectiveEntry(st, lw->second));
    ArmTick(self);
  }
}

void OnWorkload(Self self, std::optional<engine::ProjectedWorkload> pw) {
  auto& st = self->state;
  const bool has_deadline = engine::HoldsProgressCondition(pw->workload);
  auto w = std::make_shared<const engine::Workload>(std::move(pw->workload));
  auto slot = st.workloads.find(pw->ref);
  const engine::WorkloadEventStep step = engine::OnWorkloadEvent(
      has_deadline, st.config.deciding && st.records_loaded, slot != st.workloads.end());
  if (step.remember) {
    st.deadlined[pw->ref] = w;
  } else {
    st.deadlined.erase(pw->ref);
  }
  if (step.tell_actor) self->send(slot->second.actor, workload_atom::value, WorkloadPtr(w));
  if (step.forget_actor) ForgetWorkload(self, pw->ref);
  if (!step.spawn_actor) return;
  WorkloadActorConfig config;
  config.cluster = st.config.cluster.name;
  config.ref = pw->ref;
  config.services = st.config.services;
  config.parent = self;
  const WorkloadKey key{pw->ref.namespace_, pw->ref.kind, pw->ref.name};
  if (auto stored = st.stored_workloads.find(key); stored != st.stored_workloads.end()) {
    config.stored = std::move(stored->second);
    st.stored_workloads.erase(stored);
  }
  WorkloadActor actor = SpawnWorkloadActor(self->system(), std::move(config));
  self->monitor(actor);
  st.workloads[pw->ref] = WorkloadSlot{actor, {}};
  self->send(actor, workload_atom::value, WorkloadPtr(w));
}

void OnWorkloadGone(Self self, const std::optional<engine::ProjectedWorkload>& pw) {
  auto& st = self->state;
  st.deadlined.erase(pw->ref);
  if (auto slot = st.workloads.find(pw->ref); slot != st.workloads.end()) {
    self->send(slot->second.actor, stop_atom::value);
  }
  ForgetWorkload(self, pw->ref);
}

// A Deployment's row (engine::OnEchoedWorkloadEvent): Kubernetes' own condition, published
// straight from the watch's projection as the workload actor would publish it; no actor, no
// timer, no stored record (Kubernetes holds the condition), and nothing evaluated.
void EchoWorkload(Self self, std::optional<engine::ProjectedWorkload> before,
                  std::optional<engine::ProjectedWorkload> after) {
  auto& st = self->state;
  const Services& services = *st.config.services;
  const engine::ObjectRef ref = after ? after->ref : before->ref;
  std::optional<engine::Workload> b, a;
  if (before) b = std::move(before->workload);
  if (after) a = std::move(after->workload);
  const engine::EchoedWorkloadStep step = engine::OnEchoedWorkloadEvent(b, a, st.config.deciding);
  const std::string cluster = st.config.cluster.name;
  if (step.remove && services.publish.workload_removed) {
    services.publish.workload_removed(cluster, ref.namespace_, ref.kind, ref.name);
  }
  if (!step.publish && !step.log_transition) return;
  // An echo: a Deployment's evaluation reads no clock and schedules nothing.
  const engine::ProgressResult result = engine::EvaluateProgress(*a, std::nullopt, engine::Time{});
  if (step.log_transition && result.condition) {
    const std::string line =
        "workload cluster=" + cluster + " namespace=" + ref.namespace_ + " kind=" + ref.kind +
        " name=" + ref.name + " revision=" + result.revision +
        ": Progressing=" + result.condition->status + " reason=" + result.condition->reason + " (" +
        result.condition->message + "), as Kubernetes wrote it";
    if (services.log) {
      services.log(line);
    } else {
      st.Log(line);
    }
  }
  if (step.publish && services.publish.workload) {
    services.publish.workload(WorkloadItem(cluster, ref, *a, result, std::nullopt));
  }
}

// What a workload watch's typed projector made of an object (StartWorkloadInformers).
std::optional<engine::ProjectedWorkload> WorkloadOf(const clients::Projection& p) {
  const auto* w =
      p.typed ? std::any_cast<std::optional<engine::ProjectedWorkload>>(p.typed.get()) : nullptr;
  return w != nullptr ? *w : std::nullopt;
}

// One event of a workload watch: a Deployment's row is echoed (EchoWorkload); every other kind
// goes to its workload actor. `before`/`after`: null for an add/a delete.
void OnWorkloadWatchEvent(Self self, const clients::Projection* before,
                          const clients::Projection* after) {
  std::optional<engine::ProjectedWorkload> a;
  if (after != nullptr) {
    a = WorkloadOf(*after);
    if (!a) return;
  }
  std::optional<engine::ProjectedWorkload> b;
  const bool decided = !a || engine::DaemonDecidesDeadline(a->workload.kind);
  if (before != nullptr && (after == nullptr || !decided)) {
    b = WorkloadOf(*before);
  }
  if (after == nullptr && !b) return;
  if (!engine::DaemonDecidesDeadline(a ? a->workload.kind : b->workload.kind)) {
    EchoWorkload(self, std::move(b), std::move(a));
  } else if (a) {
    OnWorkload(self, std::move(a));
  } else {
    OnWorkloadGone(self, b);
  }
}

// A term starts: every Deployment's row, from the watches' caches (a standby showed none).
void PublishEchoedWorkloads(Self self) {
  for (const auto& informer : self->state.echoed_informers) {
    for (const clients::Projection& p : informer->Snapshot()) {
      OnWorkloadWatchEvent(self, nullptr, &p);
    }
  }
}

// After a workload watch listed: stored records of workloads it did not list were left by
// objects deleted while the daemon was away; they go from the store.
void OnWorkloadsListed(Self self, const std::string& kind, const std::string& ns) {
  auto& st = self->state;
  if (!st.config.deciding || !st.records_loaded) {
    st.listed_workloads.emplace(kind, ns);  // forgotten once a term starts (StartDeciding)
    return;
  }
  store::StateBatch batch;
  std::size_t n = 0;
  for (auto it = st.stored_workloads.begin(); it != st.stored_workloads.end();) {
    const auto& [rns, rkind, rname] = it->first;
    if (engine::RecordCoveredByListing(rkind, rns, kind, ns)) {
      batch.RemoveWorkload(st.config.cluster.name, rns, rkind, rname);
      ++n;
      it = st.stored_workloads.erase(it);
    } else {
      ++it;
    }
  }
  if (n == 0) return;
  store::Store* store = st.config.services->store;
  auto log = st.config.log;
  const std::string cluster = st.config.cluster.name;
  st.config.services->StorePool().Post([store, batch = std::move(batch), log, cluster, n] {
    const store::WriteResult r = store::State(*store).Commit(batch);
    if (!r.ok() && log) {
      log("cluster " + cluster + ": forgetting " + std::to_string(n) +
          " stored deadline records of deleted workloads failed: " + r.status.message);
    }
  });
}

void StartWorkloadInformers(Self self, const std::string& kind, const clients::ResourceRef& ref) {
  auto& st = self->state;
  for (const std::string& ns : engine::WorkloadWatchNamespaces(st.config.workload_namespaces)) {
    clients::InformerOptions options;
    options.resource = ref;
    options.ns = ns;
    // Decoded once, on the loop thread, and shared by the cache and the callbacks: the JSON
    // projection the cache held was about 3 KB per Deployment at N=500 (8b67c0b), copied twice
    // per event and decoded again by every reader.
    options.project_typed = [](const clients::Json& object) {
      return std::any(engine::WorkloadFromProjection(engine::ProjectWorkload(object)));
    };
    clients::InformerHandlers h;
    h.on_add = [self](const clients::Projection& p) { OnWorkloadWatchEvent(self, nullptr, &p); };
    h.on_update = [self](const clients::Projection& before, const clients::Projection& after) {
      OnWorkloadWatchEvent(self, &before, &after);
    };
    h.on_delete = [self](const clients::Projection& p) { OnWorkloadWatchEvent(self, &p, nullptr); };
    h.on_synced = [self, kind, ns] { OnWorkloadsListed(self, kind, ns); };
    h.on_error = [self, kind](const Result& r) {
      if (ClusterFailure(r)) {
        NoteResult(self, r, "workload watch " + kind);
      } else if (r.problem != clients::Problem::kExpired) {
        self->state.Log("workload watch " + kind + ": " + r.ToString());
      }
    };
    std::shared_ptr<clients::Informer> informer =
        clients::Informer::Start(st.client, options, h, st.executor.get());
    if (!engine::DaemonDecidesDeadline(kind)) {
      st.echoed_informers.push_back(informer);
    }
    st.workload_informers.push_back(std::move(informer));
  }
}

// Runs `fn` in this actor after `delay`.
void RunLater(Self self, std::chrono::milliseconds delay, std::function<void()> fn) {
  self->delayed_send(self, delay, run_atom::value,
                     RunClosure(std::make_shared<std::function<void()>>(std::move(fn))));
}

// Discovery's answer as the engine's rule takes it (the classification is cluster-clients').
engine::DiscoveryAnswer AnswerOf(const Result& r) {
  if (r.ok()) return engine::DiscoveryAnswer::kServed;
  if (r.outcome == clients::Outcome::kNotFound) return engine::DiscoveryAnswer::kNotServed;
  return engine::DiscoveryAnswer::kFailed;
}

// Watches one configured workload kind once discovery says the cluster serves it (CloneSet:
// apps.kruise.io v1alpha1, else v1beta1; a cluster without Kruise is logged once, not retried).
void WatchWorkloadKind(Self self, const std::string& kind, std::vector<std::string> versions) {
  if (versions.empty()) return;
  const std::string api_version = versions.front();
  self->state.client->Resolve(
      api_version, kind,
      [self, kind, versions = std::move(versions)](Result r, clients::ResourceRef ref) mutable {
        auto& st = self->state;
        switch (engine::OnDiscovery(AnswerOf(r), versions.size() - 1)) {
          case engine::DiscoveryStep::kWatch:
            StartWorkloadInformers(self, kind, ref);
            return;
          case engine::DiscoveryStep::kTryNextVersion:
            versions.erase(versions.begin());
            WatchWorkloadKind(self, kind, std::move(versions));
            return;
          case engine::DiscoveryStep::kNotServed:
            st.LogOnce("deadlines " + kind,
                       "kind " + kind + " is not served; its progress deadlines are not watched");
            return;
          case engine::DiscoveryStep::kRetryLater:
            NoteResult(self, r, "discovery of " + kind);
            RunLater(self, st.config.discovery_retry_interval,
                     [self, kind, versions] { WatchWorkloadKind(self, kind, versions); });
            return;
        }
      });
}

void TakeWorkloadRecords(Self self, store::Loaded<std::vector<store::WorkloadRecord>> loaded) {
  auto& st = self->state;
  if (!loaded.ok()) {
    // Not fatal: deadlines start afresh (a clock restarts rather than nothing being watched).
    st.Log("loading the stored progress-deadline records failed (" + loaded.status.message +
           "); deadlines of this cluster start afresh");
  }
  st.stored_workloads.clear();
  for (auto& r : loaded.value) {
    st.stored_workloads[WorkloadKey{r.ns, r.kind, r.name}] = std::move(r.record.value);
  }
  st.records_loaded = true;
}

void StartWorkloadInformersOfKinds(Self self) {
  auto& st = self->state;
  for (const std::string& kind : st.config.workload_kinds) {
    std::vector<std::string> versions = engine::WorkloadKindApiVersions(kind);
    if (!versions.empty()) {
      WatchWorkloadKind(self, kind, std::move(versions));
    } else {
      st.LogOnce("workload kind " + kind,
                 "workload kind " + kind + " has no progress-deadline rule; not watched");
    }
  }
}

// Reads this cluster's stored deadline records on the pool, then runs `then` in the actor.
void LoadWorkloadRecords(Self self, std::function<void()> then) {
  auto& st = self->state;
  const Services* services = st.config.services;
  ClusterActorImpl me = self;
  store::Store* store = services->store;
  const std::string cluster = st.config.cluster.name;
  services->pool->Post([store, cluster, me, self, then = std::move(then)] {
    auto loaded = std::make_shared<store::Loaded<std::vector<store::WorkloadRecord>>>(
        store::State(*store).LoadWorkloads(cluster));
    // Runs in the actor (its mailbox), so `self` is alive whenever this runs.
    auto fn = std::make_shared<std::function<void()>>([self, loaded, then] {
      TakeWorkloadRecords(self, std::move(*loaded));
      then();
    });
    caf::anon_send(me, run_atom::value, RunClosure(std::move(fn)));
  });
}

bool WatchesDeadlines(Self self) {
  const Services* services = self->state.config.services;
  return services != nullptr && services->store != nullptr && services->pool != nullptr &&
         !self->state.config.workload_kinds.empty();
}

// Deciding from the start: reads the stored deadline records, then starts the workload watches
// (so every workload actor starts from its record: the same clock across a restart). A standby
// watches at once and reads the records when a term starts (StartDeciding).
void StartWorkloadWatches(Self self) {
  if (!WatchesDeadlines(self)) return;
  if (self->state.config.deciding) {
    LoadWorkloadRecords(self, [self] { StartWorkloadInformersOfKinds(self); });
  } else {
    StartWorkloadInformersOfKinds(self);
  }
}

// Stores the kinds this actor watches (watches/<cluster>) for a standby to watch them too.
void ShareWatchedKinds(Self self) {
  auto& st = self->state;
  if (!st.config.share_watched_kinds || !st.config.deciding || st.kinds.empty() ||
      st.config.services == nullptr || st.config.services->store == nullptr) {
    return;
  }
  store::Json kinds = store::Json::array();
  for (const auto& [key, watch] : st.kinds) kinds.push_back(key);
  store::StateBatch batch;
  batch.PutWatchedKinds(st.config.cluster.name, kinds);
  store::Store* store = st.config.services->store;
  auto log = st.config.log;
  const std::string cluster = st.config.cluster.name;
  st.config.services->StorePool().Post([store, batch = std::move(batch), log, cluster] {
    const store::WriteResult r = store::State(*store).Commit(batch);
    if (!r.ok() && log) {
      log("cluster " + cluster +
          ": storing the watched kinds for the standbys failed: " + r.status.message);
    }
  });
}

// A term starts (decide_atom true): the stored deadline records are read afresh (the former
// leader moved them on), every remembered workload with a deadline gets its actor from its
// record, and the records of workloads the watches did not list go.
void StartDeciding(Self self) {
  auto& st = self->state;
  st.config.deciding = true;
  ShareWatchedKinds(self);
  if (!WatchesDeadlines(self)) return;
  PublishEchoedWorkloads(self);
  LoadWorkloadRecords(self, [self] {
    auto& st = self->state;
    if (!st.config.deciding) return;  // the term ended meanwhile
    const auto deadlined = st.deadlined;
    for (const auto& [ref, workload] : deadlined) {
      if (st.workloads.count(ref) > 0) continue;
      WorkloadActorConfig config;
      config.cluster = st.config.cluster.name;
      config.ref = ref;
      config.services = st.config.services;
      config.parent = self;
      const WorkloadKey key{ref.namespace_, ref.kind, ref.name};
      if (auto stored = st.stored_workloads.find(key); stored != st.stored_workloads.end()) {
        config.stored = std::move(stored->second);
        st.stored_workloads.erase(stored);
      }
      WorkloadActor actor = SpawnWorkloadActor(self->system(), std::move(config));
      self->monitor(actor);
      st.workloads[ref] = WorkloadSlot{actor, {}};
      self->send(actor, workload_atom::value, workload);
    }
    const auto listed = st.listed_workloads;
    st.listed_workloads.clear();
    for (const auto& [kind, ns] : listed) OnWorkloadsListed(self, kind, ns);
  });
}

// The term ended (decide_atom false): the deadline actors stop (their records stay for the
// next leader); the workloads stay remembered.
void StopDeciding(Self self) {
  auto& st = self->state;
  st.config.deciding = false;
  st.records_loaded = false;
  st.stored_workloads.clear();
  std::vector<engine::ObjectRef> refs;
  for (auto& [ref, slot] : st.workloads) {
    self->demonitor(slot.actor.address());
    self->send_exit(slot.actor, caf::exit_reason::user_shutdown);
    refs.push_back(ref);
  }
  for (const auto& ref : refs) ForgetWorkload(self, ref);
}

void StartInformer(Self self, const std::string& key, const clients::ResourceRef& ref) {
  auto& st = self->state;
  clients::InformerOptions options;
  options.resource = ref;
  options.label_selector = engine::kAppLabel;  // existence: what fleetwave applied
  options.project_typed = [](const clients::Json& object) {
    return std::any(ProjectEntry(object));
  };
  clients::InformerHandlers h;
  h.on_add = [self](const clients::Projection& p) { OnUpsert(self, p); };
  h.on_update = [self](const clients::Projection&, const clients::Projection& after) {
    OnUpsert(self, after);
  };
  h.on_delete = [self](const clients::Projection& p) { OnDelete(self, p); };
  h.on_synced = [self, key] {
    self->state.cache->WatchSynced(key);
    NoteResult(self, Result{}, "list " + key);
  };
  h.on_error = [self, key](const Result& r) {
    if (ClusterFailure(r)) {
      NoteResult(self, r, "watch " + key);
    } else if (r.problem != clients::Problem::kExpired) {  // 410: an ordinary relist
      // An object skipped for its shape (or a request the server refused): worth a line.
      self->state.Log("watch " + key + ": " + r.ToString());
    }
  };
  st.kinds[key].resource = ref;
  st.kinds[key].informer = clients::Informer::Start(st.client, options, h, st.executor.get());
  ShareWatchedKinds(self);
}

void WatchKind(Self self, const std::string& api_version, const std::string& kind) {
  auto& st = self->state;
  const std::string key = api_version + "/" + kind;
  if (st.kinds.count(key)) return;  // idempotent per kind
  st.kinds[key] = KindWatch{};
  st.cache->WatchStarted(key);
  ArmTick(self);
  st.client->Resolve(
      api_version, kind, [self, api_version, kind, key](Result r, clients::ResourceRef ref) {
        auto& st = self->state;
        auto it = st.kinds.find(key);
        if (it == st.kinds.end() || it->second.informer) return;
        const engine::DiscoveryStep step = engine::OnDiscovery(AnswerOf(r), 0);
        if (step == engine::DiscoveryStep::kWatch) {
          st.resources[ref.group + "/" + ref.kind] = ref;
          StartInformer(self, key, ref);
          return;
        }
        st.kinds.erase(it);
        st.cache->WatchDropped(key);
        NoteResult(self, r, "discovery of " + key);
        if (step == engine::DiscoveryStep::kNotServed) {
          // Not fatal: the next watch_kind asks again (a CRD may arrive later).
          st.LogOnce("unknown " + key,
                     "kind " + kind + " of " + api_version + " is not served; not watched");
          return;
        }
        st.LogOnce("discovery " + key,
                   "discovery of " + key + " failed (" + r.ToString() + "); retrying");
        self->delayed_send(self, st.config.discovery_retry_interval, watch_kind_atom::value,
                           api_version, kind);
      });
}

// Deletes or patches one object whose kind a watch resolved (live objects come from watches).
const clients::ResourceRef* ResourceOf(Self self, const engine::ObjectRef& ref) {
  auto it = self->state.resources.find(ref.group + "/" + ref.kind);
  return it == self->state.resources.end() ? nullptr : &it->second;
}

Result UnknownKind(const engine::ObjectRef& ref) {
  return clients::ErrorResult(
      clients::Outcome::kPermanent, clients::Problem::kRequest,
      "kind " + ref.kind + " (group \"" + ref.group + "\") is not watched on this cluster");
}

void DeleteObject(Self self, const engine::ObjectRef& ref, std::function<void(Result)> done) {
  const clients::ResourceRef* resource = ResourceOf(self, ref);
  if (resource == nullptr) {
    done(UnknownKind(ref));
    return;
  }
  clients::DeleteOptions options;
  options.propagation_policy = "Background";
  self->state.client->Delete(*resource, ref.namespace_, ref.name, options,
                             [self, done = std::move(done)](Result r) {
                               NoteResult(self, r, "delete");
                               done(std::move(r));
                             });
}

engine::ObjectResult DeleteResult(const engine::ObjectRef& ref, const Result& r, const char* verb) {
  return engine::DeletionResult(ref, r.ok(), r.outcome == clients::Outcome::kNotFound, r.ToString(),
                                verb);
}

// One apply command in flight. Callbacks run in the actor, so plain counters suffice.
struct ApplyRun {
  ApplyCommandPtr cmd;
  caf::typed_response_promise<ApplyReplyPtr> promise;
  std::shared_ptr<ApplyReply> reply;
  std::vector<std::optional<engine::AppliedObject>> applied;
  std::size_t ordered = 0;  // leading Namespaces and CRDs: applied one after another
  std::size_t next = 0;
  std::size_t outstanding = 0;
  // Requests that failed because of the cluster (ClusterFailure), and all the others.
  std::size_t cluster_failures = 0;
  std::size_t answered = 0;
  Result last_failure;

  void Count(const Result& r) {
    if (ClusterFailure(r)) {
      ++cluster_failures;
      last_failure = r;
    } else {
      ++answered;
    }
  }
};

void FinishApply(const std::shared_ptr<ApplyRun>& run) {
  for (auto& a : run->applied) {
    if (a) run->reply->applied.push_back(std::move(*a));
  }
  // No request got through: the attempt could not run at all (protocol.h, ApplyReply::error;
  // cluster_actor_test.cc, AnApplyThatReachesNoServerIsAnError).
  if (engine::ApplyReachedNoServer(run->answered, run->cluster_failures)) {
    run->reply->error = clients::ToError(run->last_failure, "", "the cluster did not answer");
  }
  ApplyReplyPtr reply = run->reply;
  run->promise.deliver(std::move(reply));
}

void Prune(Self self, const std::shared_ptr<ApplyRun>& run) {
  const std::size_t base = run->cmd->objects.size();
  run->outstanding = run->cmd->prune.size();
  if (run->outstanding == 0) {
    FinishApply(run);
    return;
  }
  for (std::size_t i = 0; i < run->cmd->prune.size(); ++i) {
    const engine::ObjectRef ref = run->cmd->prune[i];
    DeleteObject(self, ref, [run, base, i, ref](Result r) {
      run->Count(r);
      run->reply->results[base + i] = DeleteResult(ref, r, "pruned");
      if (--run->outstanding == 0) FinishApply(run);
    });
  }
}

void ApplyOne(Self self, const std::shared_ptr<ApplyRun>& run, std::size_t i,
              std::function<void()> then) {
  const engine::RenderedObject& object = run->cmd->objects[i];
  clients::ApplyOptions options;
  options.field_manager = engine::kFieldManager;
  options.force = i < run->cmd->actions.size() && run->cmd->actions[i].force;
  self->state.client->Apply(
      object.object, options, [self, run, i, then = std::move(then)](Result r) {
        NoteResult(self, r, "apply");
        run->Count(r);
        const engine::ObjectRef& ref = run->cmd->objects[i].ref;
        if (r.ok()) {
          clients::FieldReader body(r.object);
          engine::AppliedObject applied;
          applied.ref = ref;
          applied.resource_version = body.String({"metadata", "resourceVersion"});
          applied.generation = body.Int({"metadata", "generation"}).value_or(0);
          run->applied[i] = std::move(applied);
        }
        run->reply->results[i] = engine::ApplyResult(ref, r.ok(), r.ToString());
        then();
      });
}

void ApplyRest(Self self, const std::shared_ptr<ApplyRun>& run) {
  const std::size_t n = run->cmd->objects.size();
  run->outstanding = n - run->ordered;
  if (run->outstanding == 0) {
    Prune(self, run);
    return;
  }
  for (std::size_t i = run->ordered; i < n; ++i) {
    ApplyOne(self, run, i, [self, run] {
      if (--run->outstanding == 0) Prune(self, run);
    });
  }
}

void ApplyOrdered(Self self, const std::shared_ptr<ApplyRun>& run) {
  if (run->next >= run->ordered) {
    ApplyRest(self, run);
    return;
  }
  ApplyOne(self, run, run->next++, [self, run] { ApplyOrdered(self, run); });
}

std::optional<engine::Error> RefusalWhileDown(const ClusterState& st) {
  return engine::RefusalWhileDown(st.cache->down(), st.config.cluster.name, st.last_failure);
}

caf::result<ApplyReplyPtr> StartApply(Self self, const ApplyCommandPtr& cmd) {
  auto& st = self->state;
  auto reply = std::make_shared<ApplyReply>();
  FLEETWAVE_CHECK(cmd != nullptr, "an apply command without its payload");
  reply->operation_id = cmd->operation_id;
  if (auto refusal = RefusalWhileDown(st)) {
    reply->error = std::move(*refusal);
    return ApplyReplyPtr(std::move(reply));
  }
  for (const engine::WatchedKind& k : engine::KindsToWatch(cmd->objects)) {
    WatchKind(self, k.api_version, k.kind);
  }
  auto run = std::make_shared<ApplyRun>();
  run->cmd = cmd;
  run->promise = self->make_response_promise<ApplyReplyPtr>();
  run->reply = std::move(reply);
  for (const auto& o : cmd->objects) {
    run->reply->results.push_back({o.ref, engine::ObjectResultCode::kSyncFailed, "not run"});
  }
  for (const auto& ref : cmd->prune) {
    run->reply->results.push_back({ref, engine::ObjectResultCode::kSyncFailed, "not run"});
  }
  run->applied.resize(cmd->objects.size());
  run->ordered = engine::SequentialApplyPrefix(cmd->objects);
  ApplyOrdered(self, run);
  return run->promise;
}

caf::result<DeleteReplyPtr> StartDelete(Self self, const DeleteCommandPtr& cmd) {
  auto& st = self->state;
  auto reply = std::make_shared<DeleteReply>();
  FLEETWAVE_CHECK(cmd != nullptr, "a delete command without its payload");
  if (auto refusal = RefusalWhileDown(st)) {
    reply->error = std::move(*refusal);
    return DeleteReplyPtr(std::move(reply));
  }
  const std::size_t total = cmd->objects.size() + cmd->unmark.size();
  if (total == 0) return DeleteReplyPtr(std::move(reply));
  auto promise = self->make_response_promise<DeleteReplyPtr>();
  reply->results.resize(total);
  auto outstanding = std::make_shared<std::size_t>(total);
  auto finish = [promise, reply, outstanding]() mutable {
    if (--*outstanding == 0) promise.deliver(DeleteReplyPtr(reply));
  };
  for (std::size_t i = 0; i < cmd->objects.size(); ++i) {
    const engine::ObjectRef ref = cmd->objects[i];
    DeleteObject(self, ref, [reply, i, ref, finish](Result r) mutable {
      reply->results[i] = DeleteResult(ref, r, "deleted");
      finish();
    });
  }
  for (std::size_t j = 0; j < cmd->unmark.size(); ++j) {
    const std::size_t i = cmd->objects.size() + j;
    const engine::ObjectRef ref = cmd->unmark[j];
    auto done = [self, reply, i, ref, finish](Result r) mutable {
      reply->results[i] = engine::UnmarkResult(ref, r.ok(), r.ToString());
      finish();
    };
    const clients::ResourceRef* resource = ResourceOf(self, ref);
    if (resource == nullptr) {
      done(UnknownKind(ref));
      continue;
    }
    st.client->MergePatch(*resource, ref.namespace_, ref.name, engine::UntrackPatch(),
                          [self, done](Result r) mutable {
                            NoteResult(self, r, "merge patch");
                            done(std::move(r));
                          });
  }
  return promise;
}

ClusterActorImpl::behavior_type ClusterBehavior(Self self, ClusterActorConfig config) {
  auto& st = self->state;
  st.config = std::move(config);
  st.cache = std::make_unique<ClusterCache>(st.config.cluster.name, st.config.liveness,
                                            st.config.options.seed);
  st.executor = std::make_shared<ActorExecutor>(caf::actor_cast<RunTarget>(self));
  clients::ClientOptions options = st.config.options;
  if (!options.log) {
    // The client warns from the transport's loop thread, possibly after this actor is gone
    // (ReleaseWhenIdle): the sink gets copies, never the actor's state.
    options.log = [prefix = "cluster " + st.config.cluster.name + ": ",
                   sink = st.config.log](const std::string& m) {
      if (sink) {
        sink(prefix + m);
      } else {
        std::cerr << "fleetwave: " << prefix << m << "\n";
      }
    };
  }
  st.client = clients::ClusterClient::Create(st.config.cluster, st.config.transport,
                                             st.executor.get(), st.config.exec_runner, options);
  for (const clients::ResourceRef& r :
       {clients::NamespacesResource(), clients::DeploymentsResource(),
        clients::StatefulSetsResource(), clients::DaemonSetsResource(),
        clients::CloneSetsResource()}) {
    st.resources[r.group + "/" + r.kind] = r;
  }
  self->set_down_handler([self](const caf::down_msg& down) {
    const caf::actor_id id = down.source.id();
    // A workload actor that failed: forgotten, and respawned by the workload's next event.
    for (auto& [ref, slot] : self->state.workloads) {
      if (slot.actor.address() == down.source) {
        if (down.reason) self->state.Log("workload actor of " + ref.KindName() + " failed");
        ForgetWorkload(self, engine::ObjectRef(ref));
        break;
      }
    }
    self->state.cache->RemoveSubscriber(id);
    self->state.subscribers.erase(id);
  });
  SendProbe(self);
  StartWorkloadWatches(self);
  return {
      [self](run_atom, const RunClosure& fn) {
        RunInActor(fn, [self](const std::string& m) { self->state.Log(m); });
      },
      [self](watch_kind_atom, const std::string& api_version, const std::string& kind) {
        WatchKind(self, api_version, kind);
      },
      [self](subscribe_atom, const std::string& label, const LiveSink& who) {
        auto& st = self->state;
        if (!who) return;
        if (st.subscribers.emplace(who.id(), caf::actor_cast<caf::actor_addr>(who)).second) {
          self->monitor(who);
        }
        SendUpdate(self, who.id(), st.cache->Subscribe(label, who.id()));
      },
      [self](unsubscribe_atom, const std::string& label, const LiveSink& who) {
        if (!who) return;
        auto& st = self->state;
        st.cache->Unsubscribe(label, who.id());
        if (!st.cache->Subscribed(who.id()) && st.subscribers.erase(who.id())) {
          self->demonitor(who.address());
        }
      },
      [self](tick_atom) {
        auto& st = self->state;
        st.tick_armed = false;
        for (auto& [id, update] : st.cache->Flush()) SendUpdate(self, id, std::move(update));
      },
      [self](probe_atom, std::uint64_t generation) { OnProbeTimer(self, generation); },
      [self](apply_atom, const ApplyCommandPtr& cmd) { return StartApply(self, cmd); },
      [self](delete_atom, const DeleteCommandPtr& cmd) { return StartDelete(self, cmd); },
      [self](deadline_atom, const WorkloadViewPtr& view) { OnDeadlineView(self, view); },
      [self](decide_atom, bool deciding) {
        if (deciding == self->state.config.deciding) return;
        if (deciding) {
          StartDeciding(self);
        } else {
          StopDeciding(self);
        }
      },
  };
}

}  // namespace

ClusterActor SpawnClusterActor(caf::actor_system& system, ClusterActorConfig config) {
  return system.spawn(ClusterBehavior, std::move(config));
}

}  // namespace fleetwave::actors
