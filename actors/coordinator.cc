#include "actors/coordinator.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include <caf/all.hpp>

#include "actors/appset_actor.h"
#include "actors/atoms.h"
#include "actors/blocking_pool.h"
#include "actors/deletion_actor.h"
#include "engine/coordinator_commands.h"
#include "engine/fleet_change.h"
#include "engine/operator_command.h"
#include "engine/project_reload.h"
#include "engine/reload_plan.h"
#include "engine/sync/sync_slots.h"
#include "engine/webhook.h"

namespace fleetwave::actors {
namespace {
using DaemonInputsPtr = std::shared_ptr<const DaemonInputs>;
}  // namespace
}  // namespace fleetwave::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(fleetwave::actors::DaemonInputsPtr)

namespace fleetwave::actors {
namespace {

using loaded_atom = caf::atom_constant<caf::atom("loaded")>;
using sweep_atom = caf::atom_constant<caf::atom("sweep")>;

struct AppSetEntry {
  AppSetActor actor;
  std::string file;
  AppSetSpecPtr spec;
  int restarts = 0;
  // False once no file defines it (trusted inputs): its actor keeps the last good spec and
  // stores the PendingDeletion mark; the deletion actor deletes and then reports it deleted.
  bool defined = true;
};

struct CoordinatorState {
  CoordinatorConfig config;
  // The inputs in force: the last good config and clusters, and per file its last good sets.
  DaemonInputs inputs;
  // Per file its last good sets, the errors reported last, the files of the last load that
  // read the directory (engine::PlanReload moves it on).
  engine::ReloadState reload;
  // [issue 29] The AppProjects of the files in force, and what every set's spec carries.
  engine::GoodProjects good_projects;
  engine::AppProjectsPtr projects;
  std::vector<std::string> config_errors;  // the same, of fleetwave.yaml

  ClusterMap clusters;  // context -> cluster actor
  // Contexts that left the kubeconfig, kept running while a pending deletion needs them (the
  // deletion actor reports which) so their apps' objects can still be deleted; stopped once
  // none does and the marks had time to be stored (retired_at + settle).
  std::map<std::string, std::pair<ClusterActor, engine::Time>> retired;
  std::set<std::string> needed;  // clusters the deletion actor needs
  DeletionActor deleter;
  // False while the ApplicationSet directory is empty or unreadable or a kubeconfig failed to
  // load: nothing is marked for deletion and no deletion starts.
  bool trusted = true;
  std::map<std::string, clients::ClusterConfig> cluster_configs;
  std::map<std::string, AppSetEntry> appsets;    // name -> actor
  std::map<caf::actor_addr, std::string> names;  // child -> appset name or "cluster:<name>"

  bool loading = false;
  bool reload_again = false;
  uint64_t ticket_requested = 0;  // the highest reload ticket received
  uint64_t ticket_loading = 0;    // the highest ticket the load in flight covers
  bool stopping = false;

  // The global sync slots, shared fairly among the actors asking (engine/sync/sync_slots.h):
  // each asking actor is a holder number there, each request a ticket.
  engine::SyncSlots slots{0};
  std::map<caf::actor_addr, engine::SyncSlots::Holder> holder_ids;
  engine::SyncSlots::Holder next_holder = 1;
  std::map<engine::SyncSlots::Ticket, std::pair<engine::SyncSlots::Holder, caf::response_promise>>
      waiting;

  static inline const char* name = "coordinator";
};

// The coordinator's interfaces plus what only it sends itself: a load's result and the
// retired clusters' sweep.
using CoordinatorImpl = CoordinatorActor::extend<caf::reacts_to<loaded_atom, DaemonInputsPtr>,
                                                 caf::reacts_to<sweep_atom>>;
using Self = CoordinatorImpl::stateful_base<CoordinatorState>;

void Log(Self* self, const std::string& line) {
  if (self->state.config.services->log) self->state.config.services->log(line);
}

// Counted in fleetwave_degraded_total{reason}.
void Degraded(Self* self, const char* reason) {
  if (self->state.config.services->publish.degraded) {
    self->state.config.services->publish.degraded(reason);
  }
}

ClusterMapPtr ClusterMapOf(Self* self) {
  ClusterMap map = self->state.clusters;
  for (const auto& [name, retired] : self->state.retired) map.emplace(name, retired.first);
  return std::make_shared<const ClusterMap>(std::move(map));
}

std::chrono::seconds RetireSettle(Self* self) {
  return engine::RetireSettle(self->state.inputs.config.git_poll_interval_seconds);
}

// Stops the retired contexts engine::RetiredToStop names.
void SweepRetired(Self* self) {
  auto& st = self->state;
  std::map<std::string, engine::Time> retired_at;
  for (const auto& [name, retired] : st.retired) retired_at[name] = retired.second;
  const std::vector<std::string> stop =
      engine::RetiredToStop(retired_at, st.needed, st.config.services->now(), RetireSettle(self));
  for (const auto& name : stop) {
    Log(self, "cluster=" + name +
                  " left the kubeconfig and no pending deletion needs it; its actor stops");
    auto it = st.retired.find(name);
    st.names.erase(it->second.first.address());
    self->send_exit(it->second.first, caf::exit_reason::user_shutdown);
    st.retired.erase(it);
  }
  if (!stop.empty() && st.deleter) {
    self->send(st.deleter, clusters_atom::value, ClusterMapOf(self), st.trusted);
  }
}

void SpawnCluster(Self* self, const clients::ClusterConfig& config) {
  auto& st = self->state;
  ClusterActor actor = st.config.spawn_cluster(self->system(), config);
  self->monitor(actor);
  st.names[actor.address()] = "cluster:" + config.name;
  st.clusters[config.name] = actor;
  st.cluster_configs[config.name] = config;
}

AppSetSpecPtr SpecOf(Self* self, const engine::ApplicationSet& appset) {
  auto spec = std::make_shared<AppSetSpec>();
  spec->appset = appset;
  spec->clusters = self->state.inputs.clusters;
  spec->limits = self->state.inputs.config.limits;
  spec->progressive_syncs = self->state.inputs.config.progressive_syncs;
  spec->analysis_prometheus = self->state.inputs.config.analysis_prometheus;
  const engine::SetTimings timings =
      engine::SetTimingsOf(self->state.inputs.config.git_poll_interval_seconds,
                           self->state.inputs.config.deletion_grace_period_seconds);
  spec->poll_interval = timings.poll_interval;
  spec->inputs_trusted = self->state.trusted;
  spec->deletion_grace = timings.deletion_grace;
  return spec;
}

void SpawnAppSet(Self* self, const std::string& name) {
  auto& st = self->state;
  AppSetEntry& entry = st.appsets[name];
  AppSetActorConfig config;
  config.spec = entry.spec;
  config.clusters = ClusterMapOf(self);
  config.services = st.config.services;
  // Marks are announced through the coordinator, which knows the deletion actor of the moment.
  entry.actor = SpawnAppSetActor(self->system(), caf::actor_cast<SetParent>(self), config);
  self->monitor(entry.actor);
  st.names[entry.actor.address()] = name;
}

// Makes the running actors match the inputs in force: engine::PlanFleetChange decides, the
// coordinator spawns, stops and sends.
void Apply(Self* self) {
  auto& st = self->state;
  engine::FleetNow now;
  for (const auto& c : st.inputs.cluster_configs) {
    auto running = st.cluster_configs.find(c.name);
    now.clusters.push_back({c.name, running != st.cluster_configs.end() && running->second == c});
  }
  for (const auto& [name, actor] : st.clusters) now.running_clusters.insert(name);
  for (const auto& [name, retired] : st.retired) now.retired_clusters.insert(name);
  now.good_files = &st.reload.good_files;
  for (const auto& [name, entry] : st.appsets) now.sets[name] = {entry.defined, entry.file};
  now.trusted = st.trusted;
  now.deletion_grace_seconds = st.inputs.config.deletion_grace_period_seconds;
  const engine::FleetChange change = engine::PlanFleetChange(now);
  for (const auto& line : change.log) Log(self, line);

  std::map<std::string, const clients::ClusterConfig*> configs;
  for (const auto& c : st.inputs.cluster_configs) configs[c.name] = &c;
  for (const auto& name : change.stop_retired) {
    auto old = st.retired.find(name);
    st.names.erase(old->second.first.address());
    self->send_exit(old->second.first, caf::exit_reason::user_shutdown);
    st.retired.erase(old);
  }
  for (const auto& name : change.restart_clusters) {
    auto old = st.clusters.find(name);
    st.names.erase(old->second.address());
    self->send_exit(old->second, caf::exit_reason::user_shutdown);
    SpawnCluster(self, *configs.at(name));
  }
  for (const auto& name : change.spawn_clusters) SpawnCluster(self, *configs.at(name));
  for (const auto& name : change.retire_clusters) {
    if (st.config.services->publish.cluster_removed) {
      st.config.services->publish.cluster_removed(name);
    }
    auto it = st.clusters.find(name);
    st.names[it->second.address()] = "retired:" + name;
    st.retired[name] = {it->second, st.config.services->now()};
    self->delayed_send(self, RetireSettle(self) + std::chrono::seconds(1), sweep_atom::value);
    st.cluster_configs.erase(name);
    st.clusters.erase(it);
  }

  const ClusterMapPtr cluster_map = ClusterMapOf(self);
  auto spec_of = [&](const engine::WantedSet& where) {
    engine::ApplicationSet set = *where.set;
    set.projects = st.projects;  // the projects in force, a failing file's last good ones kept
    return SpecOf(self, set);
  };
  for (const auto& [name, where] : change.spawn_sets) {
    st.appsets[name].spec = spec_of(where);
    st.appsets[name].file = where.file;
    SpawnAppSet(self, name);
  }
  for (const auto& [name, where] : change.respec_sets) {
    AppSetEntry& entry = st.appsets.at(name);
    entry.defined = true;
    entry.spec = spec_of(where);
    entry.file = where.file;
    self->send(entry.actor, spec_atom::value, entry.spec, cluster_map);
  }
  for (const engine::UndefinedSet& undefined : change.undefined_sets) {
    AppSetEntry& entry = st.appsets.at(undefined.name);
    entry.defined = undefined.defined;
    auto spec = std::make_shared<AppSetSpec>(*entry.spec);
    spec->defined = undefined.defined;
    spec->inputs_trusted = change.inputs_trusted;
    spec->deletion_grace = std::chrono::seconds(change.deletion_grace_seconds);
    entry.spec = spec;
    self->send(entry.actor, spec_atom::value, AppSetSpecPtr(spec), cluster_map);
  }
  // The deletion actor hears the clusters and the trust after every change (either may move).
  if (st.deleter) self->send(st.deleter, clusters_atom::value, cluster_map, st.trusted);
}

// Merges a fresh load into the inputs in force; a failing part keeps its last good version.
void Merge(Self* self, const DaemonInputs& fresh, bool first) {
  auto& st = self->state;
  const auto& publish = st.config.services->publish;
  for (const auto& w : fresh.warnings) Log(self, "warning: " + w);
  engine::ConfigLoad load;
  load.errors = &fresh.config_errors;
  load.errors_before = &st.config_errors;
  load.load_failed = fresh.load_failed;
  load.first = first;
  const engine::ConfigVerdict verdict = engine::PlanConfigLoad(load);
  if (verdict.line) Log(self, *verdict.line);
  if (verdict.degraded) Degraded(self, "file");
  if (verdict.take_fresh) {
    st.inputs.config = fresh.config;
    st.inputs.clusters = fresh.clusters;
    st.inputs.cluster_configs = fresh.cluster_configs;
    st.inputs.config_path = fresh.config_path;
    if (publish.repositories) publish.repositories(fresh.config.repositories);
    if (publish.file) publish.file(fresh.config_path, {});
  } else if (publish.file) {
    publish.file(fresh.config_path, fresh.config_errors);
  }
  st.config_errors = fresh.config_errors;
  const bool had_sets = !st.reload.good_files.empty();
  engine::ReloadPlan plan = engine::PlanReload(st.reload, fresh.config_errors.empty(),
                                               fresh.directory_error, fresh.files);
  st.good_projects = engine::NextGoodProjects(st.good_projects, fresh.directory_error, fresh.files);
  st.projects = engine::ProjectsInForce(st.good_projects);
  st.trusted = plan.trusted;
  for (const engine::FileEvent& e : plan.events) {
    const engine::FileReport report = engine::ReportFileEvent(e);
    if (report.degraded) Degraded(self, "file");
    for (const auto& line : report.lines) Log(self, line);
    switch (e.kind) {
      case engine::FileEvent::Kind::kRemoved:
        // A file that left the directory takes every error shown under it with it, its
        // load's and those its sets' actors published (a gather that failed).
        if (publish.file) publish.file(e.path, {});
        if (publish.file_removed) publish.file_removed(e.path);
        break;
      case engine::FileEvent::Kind::kClean:
        if (publish.file) publish.file(e.path, {});
        break;
      case engine::FileEvent::Kind::kFailed:
        if (publish.file) publish.file(e.path, e.errors);
        break;
    }
  }
  if (auto line = engine::DirectoryLine(fresh.directory_error, plan.directory_empty, had_sets,
                                        fresh.config.application_sets)) {
    Log(self, *line);
  }
  st.reload = std::move(plan.next);
  Apply(self);
}

void StartLoad(Self* self) {
  auto& st = self->state;
  if (st.loading) {
    st.reload_again = true;
    return;
  }
  st.loading = true;
  st.ticket_loading = st.ticket_requested;
  CoordinatorImpl me = caf::actor_cast<CoordinatorImpl>(self);
  auto load = st.config.load;
  const std::string config_path =
      st.inputs.config_path.empty() ? std::string("the configuration") : st.inputs.config_path;
  // A load that throws still answers: a load whose every part failed, so that everything in
  // force stays (Merge) and the next reload runs (`loading` is reset by the answer).
  st.config.services->pool->Post(
      config_path,
      [me, load] {
        caf::anon_send(me, loaded_atom::value,
                       DaemonInputsPtr(std::make_shared<DaemonInputs>(load())));
      },
      [me, config_path](const std::string& error) {
        auto failed = std::make_shared<DaemonInputs>();
        failed->config_path = config_path;
        failed->config_errors = {error + " (the reload failed)"};
        failed->directory_error = "the reload failed";
        failed->load_failed = true;
        caf::anon_send(me, loaded_atom::value, DaemonInputsPtr(std::move(failed)));
      });
}

// Runs a step of the coordinator (merging a load, applying it) so that an exception in it is
// an error on the configuration, shown in the API, never the coordinator's death (which would
// take every reload with it).
template <typename Step>
bool Guarded(Self* self, const char* what, Step step) {
  std::string error;
  try {
    step();
    return true;
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = "unknown exception";
  }
  auto& st = self->state;
  const std::string message = engine::InternalErrorLine(st.inputs.config_path, what, error);
  Log(self, message);
  Degraded(self, "internal");
  if (st.config.services->publish.file) {
    st.config.services->publish.file(st.inputs.config_path, {message});
  }
  return false;
}

void GrantSlots(Self* self) {
  auto& st = self->state;
  for (const auto ticket : st.slots.Grant()) {
    auto it = st.waiting.find(ticket);
    it->second.second.deliver(slot_atom::value);
    st.waiting.erase(it);
  }
}

engine::SyncSlots::Holder HolderOf(Self* self, const caf::actor_addr& actor) {
  auto& st = self->state;
  auto [it, added] = st.holder_ids.emplace(actor, st.next_holder);
  if (added) ++st.next_holder;
  return it->second;
}

void SpawnDeleter(Self* self) {
  auto& st = self->state;
  DeletionActorConfig config;
  config.services = st.config.services;
  config.clusters = ClusterMapOf(self);
  config.inputs_trusted = st.trusted;
  st.deleter = SpawnDeletionActor(self->system(), caf::actor_cast<DeletionParent>(self), config);
  self->monitor(st.deleter);
  st.names[st.deleter.address()] = "deleter";
}

// A set's deletion completed (the deletion actor removed its records): its actor stops, its
// board entry and metrics go, and a file that defines it again spawns it afresh.
void OnSetDeleted(Self* self, const std::string& name) {
  auto& st = self->state;
  auto it = st.appsets.find(name);
  if (it != st.appsets.end()) {
    st.names.erase(it->second.actor.address());
    self->send_exit(it->second.actor, caf::exit_reason::user_shutdown);
    st.appsets.erase(it);
  }
  if (st.config.services->publish.appset_removed) {
    st.config.services->publish.appset_removed(name);
  }
  Guarded(self, "applying a deletion", [&] { Apply(self); });
}

void OnDown(Self* self, const caf::down_msg& down) {
  auto& st = self->state;
  // Slots a dead actor held go back to the pool.
  if (auto holder = st.holder_ids.find(down.source); holder != st.holder_ids.end()) {
    // Its waiting requests die with it (their promises answer nobody).
    st.slots.Forget(holder->second);
    for (auto it = st.waiting.begin(); it != st.waiting.end();) {
      it = it->second.first == holder->second ? st.waiting.erase(it) : std::next(it);
    }
    st.holder_ids.erase(holder);
  }
  GrantSlots(self);
  auto name = st.names.find(down.source);
  if (name == st.names.end() || st.stopping) return;  // stopped on purpose
  const std::string who = name->second;
  st.names.erase(name);
  const std::string reason = self->system().render(down.reason);
  if (who == "deleter") {
    Log(self,
        "the deletion actor failed (" + reason + "); restarting it, state re-read from the store");
    SpawnDeleter(self);
    self->send(st.deleter, clusters_atom::value, ClusterMapOf(self), st.trusted);
    return;
  }
  if (who.rfind("retired:", 0) == 0) {
    st.retired.erase(who.substr(8));
    return;
  }
  if (who.rfind("cluster:", 0) == 0) {
    const std::string cluster = who.substr(8);
    Log(self, "cluster=" + cluster + " actor failed (" + reason + "); restarting it");
    auto config = st.cluster_configs.find(cluster);
    if (config == st.cluster_configs.end()) return;
    SpawnCluster(self, config->second);
    // Every appset actor re-subscribes through the new map.
    const ClusterMapPtr map = ClusterMapOf(self);
    for (auto& [set, entry] : st.appsets) {
      self->send(entry.actor, spec_atom::value, entry.spec, map);
    }
    if (st.deleter) self->send(st.deleter, clusters_atom::value, map, st.trusted);
    return;
  }
  auto entry = st.appsets.find(who);
  if (entry == st.appsets.end()) return;
  ++entry->second.restarts;
  Log(self, "appset=" + who + " actor failed (" + reason + "); restarting it (restart " +
                std::to_string(entry->second.restarts) + "), state re-read from the store");
  SpawnAppSet(self, who);
}

// An operator's command for a set goes to its actor, which answers the caller itself (once the
// command is stored, or with why it cannot be carried out now).
template <typename... Ts>
caf::result<engine::CommandAnswer> Forward(Self* self, const std::string& appset,
                                           const std::string& what, Ts&&... xs) {
  auto& st = self->state;
  auto it = st.appsets.find(appset);
  if (auto refusal =
          engine::RefuseAtCoordinator(st.stopping, it != st.appsets.end(), what, appset)) {
    return *refusal;
  }
  auto promise = self->make_response_promise();
  promise.delegate(it->second.actor, std::forward<Ts>(xs)...);
  return promise;
}

CoordinatorImpl::behavior_type CoordinatorBehavior(Self* self, CoordinatorConfig config) {
  auto& st = self->state;
  st.config = std::move(config);
  st.slots = engine::SyncSlots(st.config.max_concurrent_syncs);
  self->set_down_handler([=](caf::down_msg& down) { OnDown(self, down); });
  SpawnDeleter(self);
  Guarded(self, "loading the inputs", [&] { Merge(self, st.config.initial, true); });
  st.config.initial = DaemonInputs{};
  if (st.config.services->publish.ready) st.config.services->publish.ready(true);
  return {
      [=](reload_atom) { StartLoad(self); },
      [=](reload_atom, uint64_t ticket) {
        self->state.ticket_requested = std::max(self->state.ticket_requested, ticket);
        StartLoad(self);
      },
      [=](ping_atom) { return ping_atom::value; },
      [=](loaded_atom, DaemonInputsPtr fresh) {
        auto& s = self->state;
        s.loading = false;
        if (s.stopping) return;
        Log(self,
            "reload: " + std::to_string(fresh->files.size()) + " ApplicationSet file(s) read");
        const bool merged =
            Guarded(self, "applying the reload", [&] { Merge(self, *fresh, false); });
        if (s.reload_again) {
          s.reload_again = false;
          StartLoad(self);
          return;
        }
        if (s.config.services->publish.reloaded) {
          s.config.services->publish.reloaded(
              s.ticket_loading, engine::ReloadSucceeded(merged, fresh->config_errors.empty(),
                                                        !fresh->directory_error, fresh->files));
        }
      },
      [=](slot_atom) -> caf::result<slot_atom> {
        auto& s = self->state;
        // The holder first: make_response_promise() takes the request's sender, after which
        // current_sender() is null and every slot would be booked to no one, so no release
        // would ever find it (CoordinatorSlotsTest.AReleasedSlotGoesToTheNextWaiter).
        const caf::actor_addr holder =
            self->current_sender() ? self->current_sender()->address() : caf::actor_addr{};
        auto promise = self->make_response_promise();
        const auto id = HolderOf(self, holder);
        s.waiting.emplace(s.slots.Request(id), std::make_pair(id, promise));
        GrantSlots(self);
        return promise;
      },
      [=](release_atom) {
        auto& s = self->state;
        const caf::actor_addr holder =
            self->current_sender() ? self->current_sender()->address() : caf::actor_addr{};
        auto id = s.holder_ids.find(holder);
        if (id == s.holder_ids.end()) return;
        s.slots.Release(id->second);
        GrantSlots(self);
      },
      [=](sync_atom, const std::string& appset, const std::string& app, const std::string& revision,
          const std::string& caller) -> caf::result<engine::CommandAnswer> {
        return Forward(self, appset, "sync of application " + app, sync_atom::value, app, revision,
                       caller);
      },
      [=](refresh_atom, const std::string& caller) -> engine::CommandAnswer {
        // An operator's refresh: every set reconciles now (resolving its revisions again)
        // instead of at its next poll.
        const engine::RefreshOutcome outcome =
            engine::RefreshEveryOutcome(self->state.appsets.size(), caller);
        Log(self, outcome.line);
        for (auto& [name, entry] : self->state.appsets) {
          self->send(entry.actor, reconcile_atom::value);
        }
        return outcome.answer;
      },
      [=](webhook_atom, const std::vector<std::string>& repo_urls, const std::string& ref,
          const std::string& default_branch, const std::string& caller) -> engine::CommandAnswer {
        // A push webhook: only the sets reading the pushed repository at the pushed ref
        // reconcile (and so fetch) now; the others wait for their poll.
        engine::WebhookPush push;
        push.repo_urls = repo_urls;
        push.ref = ref;
        push.default_branch = default_branch;
        std::vector<std::string> names;
        for (auto& [name, entry] : self->state.appsets) {
          if (!entry.spec || !engine::AppSetFollowsPush(entry.spec->appset, push)) continue;
          self->send(entry.actor, reconcile_atom::value);
          names.push_back(name);
        }
        const engine::RefreshOutcome outcome =
            engine::WebhookRefreshOutcome(repo_urls, ref, caller, names);
        Log(self, outcome.line);
        return outcome.answer;
      },
      [=](pause_atom, const std::string& appset,
          const std::string& caller) -> caf::result<engine::CommandAnswer> {
        return Forward(self, appset, "pause", pause_atom::value, caller);
      },
      [=](resume_atom, const std::string& appset,
          const std::string& caller) -> caf::result<engine::CommandAnswer> {
        return Forward(self, appset, "resume", resume_atom::value, caller);
      },
      [=](abort_atom, const std::string& appset,
          const std::string& caller) -> caf::result<engine::CommandAnswer> {
        return Forward(self, appset, "abort", abort_atom::value, caller);
      },
      [=](rollback_atom, const std::string& appset, const std::string& to,
          const std::string& caller) -> caf::result<engine::CommandAnswer> {
        return Forward(self, appset, "rollback", rollback_atom::value, to, caller);
      },
      [=](skip_atom, const std::string& appset, const std::string& app, const std::string& reason,
          const std::string& caller) -> caf::result<engine::CommandAnswer> {
        return Forward(self, appset, "skip of application " + app, skip_atom::value, app, reason,
                       caller);
      },
      [=](deleted_atom, const std::string& appset) { OnSetDeleted(self, appset); },
      [=](reconcile_atom) { self->send(self->state.deleter, reconcile_atom::value); },
      [=](needs_atom, const std::vector<std::string>& clusters) {
        self->state.needed = std::set<std::string>(clusters.begin(), clusters.end());
        SweepRetired(self);
      },
      [=](sweep_atom) { SweepRetired(self); },
      [=](delete_atom, const std::string& appset,
          const std::string& caller) -> caf::result<engine::CommandAnswer> {
        auto& s = self->state;
        const std::string what = "deletion of applicationset " + appset + " by " + caller;
        auto it = s.appsets.find(appset);
        if (auto refusal = engine::RefuseSetDeletionAtCoordinator(s.stopping, it != s.appsets.end(),
                                                                  what, appset)) {
          return *refusal;
        }
        if (auto refusal = engine::RefuseOperatorDeletion(
                appset, {it->second.defined, it->second.file}, caller)) {
          Log(self, refusal->line);
          return refusal->answer;
        }
        auto promise = self->make_response_promise();
        promise.delegate(s.deleter, delete_atom::value, appset, caller);
        return promise;
      },
      [=](stop_atom) {
        auto& s = self->state;
        s.stopping = true;
        self->send_exit(s.deleter, caf::exit_reason::user_shutdown);
        for (auto& [name, retired] : s.retired) {
          self->send_exit(retired.first, caf::exit_reason::user_shutdown);
        }
        for (auto& [name, entry] : s.appsets) {
          self->send_exit(entry.actor, caf::exit_reason::user_shutdown);
        }
        // Pooled, they keep their watches and caches warm for the next term (cluster_pool.h).
        if (!s.config.clusters_outlive_term) {
          for (auto& [name, actor] : s.clusters) {
            self->send_exit(actor, caf::exit_reason::user_shutdown);
          }
        }
        for (auto& [ticket, waiter] : s.waiting)
          waiter.second.deliver(caf::make_error(caf::sec::request_receiver_down));
        s.waiting.clear();
        self->quit();
      },
  };
}

}  // namespace

CoordinatorActor SpawnCoordinator(caf::actor_system& system, CoordinatorConfig config) {
  return system.spawn(CoordinatorBehavior, std::move(config));
}

}  // namespace fleetwave::actors
