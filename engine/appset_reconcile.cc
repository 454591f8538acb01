#include "engine/appset_reconcile.h"

#include <algorithm>
#include <set>
#include <utility>

#include "engine/allatonce.h"
#include "engine/app_health.h"
#include "engine/app_sync_policy.h"
#include "engine/apply_plan.h"
#include "engine/retry_policy.h"
#include "engine/rollout_spec_diff.h"
#include "engine/sync_operation.h"
#include "engine/tracking.h"

namespace fleetwave::engine {
namespace {

// The condition a source error puts on the app. Argo's name for a repository or render failure.
// Deliberately not InvalidSpecError/UnknownError: those move a Pending entry to Progressing
// ("has error and cannot sync"), after which the rollout never syncs the app again short of a new
// commit, so a transient git failure would strand it. A ComparisonError app stays Pending (holding
// its maxUpdate slot, never synced) and syncs once its source reads again
// (appset_reconcile_test.cc SourceError*).
constexpr const char* kSourceErrorCondition = "ComparisonError";

const Json* Child(const Json* object, const char* key) {
  if (object == nullptr || !object->is_object()) return nullptr;
  auto it = object->find(key);
  return it == object->end() || it->is_null() ? nullptr : &*it;
}

bool IsMultiSourceSpec(const Json& spec) {
  const Json* sources = Child(&spec, "sources");
  return sources != nullptr && sources->is_array() && !sources->empty();
}

std::string JoinRevisions(const std::vector<std::string>& revisions) {
  std::string out;
  for (const auto& r : revisions) {
    if (!out.empty()) out += ",";
    out += r;
  }
  return out;
}

// Deterministic from its inputs and unique per start: the previous operation's id chains the
// starts of one app, so two starts in the same second at the same revision still differ.
std::string OperationId(const std::string& app, SyncStartTrigger trigger,
                        const std::vector<std::string>& revisions, const OperationRecord* last,
                        Time now) {
  const std::string previous = last != nullptr ? last->id : std::string();
  const std::string key = app + "\x1f" + SyncStartTriggerName(trigger) + "\x1f" +
                          FormatRfc3339(now) + "\x1f" + JoinRevisions(revisions) + "\x1f" +
                          previous;
  return std::string(SyncStartTriggerName(trigger)) + "-" + Fnv1a64Hex(key);
}

const OperationRecord* StoredOperation(const StoredApp* stored) {
  return stored != nullptr && stored->operation ? &*stored->operation : nullptr;
}

bool Running(const OperationRecord* op) {
  return op != nullptr && op->phase == OperationPhase::kRunning;
}

// Everything one app's reconcile computes before the strategy decides: its comparison, its
// health, and the Application the planner reads.
struct AppView {
  const ObservedApp* observed = nullptr;
  // The generated app as the planner reads it (automated sync disabled under RollingSync, the
  // stored spec while updates are held back): name, labels, cluster and metadata as generated.
  const GeneratedApplication* desired = nullptr;
  StoredApp* stored = nullptr;
  AppIdentity id;
  std::shared_ptr<const AppSync> sync;  // shared with the observation's cache
  HealthStatus health;
  std::vector<ApplicationCondition> conditions;
  Application* live = nullptr;  // what Plan reads
  // The spec the Application has after this reconcile: the desired one, or else the stored one,
  // which `live->spec` holds (moved out of the store: the input is consumed).
  bool new_spec_is_desired = false;
  bool write_spec = false;
};

AppSync CompareObserved(const AppIdentity& id, const ObservedApp& app,
                        const std::vector<IgnoreDifference>& ignore) {
  if (!app.reachable || app.source_error || app.rendered == nullptr) {
    AppSync unknown;
    unknown.status = SyncCode::kUnknown;
    if (!app.reachable) {
      unknown.reason = SyncReason::kUnreachable;
      unknown.message = "cluster is unreachable";
    } else {
      unknown.message = app.source_error ? app.source_error->ToString() : "manifests not rendered";
    }
    return unknown;
  }
  return CompareApp(id, *app.rendered, app.live, ignore, true);
}

HealthStatus AssessObserved(const ObservedApp& app) {
  AppHealthInput in;
  in.reachable = app.reachable;
  if (app.reachable && (app.source_error || app.rendered == nullptr)) {
    // Without the rendered objects there is nothing to judge health over: Unknown holds the
    // next step, as an unreachable cluster does.
    return {HealthCode::kUnknown, "manifests could not be rendered"};
  }
  in.gate = GateReadAfterWrite(app.applied, app.live);
  if (app.rendered) {
    in.desired.reserve(app.rendered->size());
    for (const auto& o : *app.rendered) in.desired.push_back(o.ref);
  }
  in.live = app.live_health;
  return AssessAppHealth(in);
}

OperationState OperationStateOf(const OperationRecord& op) {
  OperationState s;
  s.phase = std::string(OperationPhaseName(op.phase));
  s.started_at = op.started_at;
  s.operation = op.operation;
  return s;
}

// The revisions the app is judged at: the ones resolved this reconcile; without them (a source
// error) the pin, so that a failed fetch never reads as a revision change.
std::vector<std::string> CurrentRevisions(const ObservedApp& app, const AppRolloutStatus* entry,
                                          const OperationRecord* op) {
  if (!app.revisions.empty()) return app.revisions;
  if (entry != nullptr) return entry->target_revisions;
  if (op != nullptr) return op->revisions;
  return {};
}

const AppRolloutStatus* FindEntry(const std::vector<AppRolloutStatus>& entries,
                                  const std::string& app) {
  auto it = std::lower_bound(
      entries.begin(), entries.end(), app,
      [](const AppRolloutStatus& e, const std::string& name) { return e.application < name; });
  if (it != entries.end() && it->application == app) return &*it;
  // Stored entries are normally sorted; fall back to a scan when they are not.
  for (const auto& e : entries) {
    if (e.application == app) return &e;
  }
  return nullptr;
}

Json StoredStatusJson(const StoredRolloutStatus& stored,
                      const std::optional<AppSetCondition>& extra, Time now) {
  PlanResult r;
  r.other_status = stored.other;
  r.application_status = stored.application_status;
  r.conditions = extra ? MergeConditions(stored.conditions, {*extra}, {}, now) : stored.conditions;
  if (stored.has_rollout) r.rollout = stored.rollout;
  return PlanStatusJson(r);
}

std::string Prefix(const ApplicationSet& set, const GeneratedApplication& app) {
  std::string out = "appset=" + set.name + " app=" + app.name;
  if (!app.cluster.empty()) out += " cluster=" + app.cluster;
  return out;
}

// A key of everything an app's Application is built from besides its comparison (held and
// compared by address) and reconciledAt: the spec's and metadata's fingerprints, health,
// conditions, revisions and the operation's state. 0: none (a spec without a fingerprint).
class KeyHasher {
 public:
  void Add(std::string_view s) {
    for (unsigned char c : s) Byte(c);
    Byte(0xff);  // a separator, so that "ab","c" and "a","bc" differ
  }
  void Add(uint64_t v) {
    for (int i = 0; i < 8; ++i) Byte(static_cast<unsigned char>(v >> (8 * i)));
  }
  void Add(const std::optional<Time>& t) {
    Add(t ? static_cast<uint64_t>(t->time_since_epoch().count()) : ~0ull);
  }
  uint64_t Value() const { return h_ == 0 ? 1 : h_; }

 private:
  void Byte(unsigned char c) {
    h_ ^= c;
    h_ *= 1099511628211ull;  // FNV-1a
  }
  uint64_t h_ = 14695981039346656037ull;
};

uint64_t ApplicationKey(const AppView& v, uint64_t spec_fingerprint, const OperationRecord* op) {
  if (spec_fingerprint == 0) return 0;
  KeyHasher k;
  k.Add(spec_fingerprint);
  k.Add(v.desired->name);
  const Json* metadata = Child(&v.desired->object, "metadata");
  const uint64_t metadata_fingerprint = metadata != nullptr ? SpecFingerprint(*metadata) : 1;
  if (metadata != nullptr && metadata->is_object() && metadata_fingerprint == 0) return 0;
  k.Add(metadata_fingerprint);
  for (const auto& [key, value] : v.desired->labels) {
    k.Add(key);
    k.Add(value);
  }
  k.Add(HealthCodeName(v.health.status));
  k.Add(v.health.message);
  for (const auto& c : v.conditions) {
    k.Add(c.type);
    k.Add(c.message);
  }
  k.Add(static_cast<uint64_t>(v.live->revisions.size()));
  for (const auto& r : v.live->revisions) k.Add(r);
  if (op != nullptr) {
    k.Add(op->id);
    k.Add(OperationPhaseName(op->phase));
    k.Add(op->message);
    k.Add(static_cast<uint64_t>(op->retry_count));
    k.Add(std::optional<Time>(op->started_at));
    k.Add(op->finished_at);
    k.Add(op->next_attempt_at);
    k.Add(static_cast<uint64_t>(op->results.size()));
  } else {
    k.Add("no operation");
  }
  return k.Value();
}

// The Argo-shaped Application the API serves (DecodeApplication reads it back). Built member
// by member (no initializer lists, which copy their values) around the app's new spec, which it
// takes over; `reconciled_at` is `now` formatted once per reconcile.
Json ApplicationJson(const AppView& v, Json spec, const OperationRecord* op,
                     const std::string& reconciled_at) {
  const ObservedApp& app = *v.observed;
  const GeneratedApplication& desired = *v.desired;
  Json metadata = Json::object();
  if (const Json* m = Child(&desired.object, "metadata"); m && m->is_object()) {
    for (const char* key : {"namespace", "labels", "annotations"}) {
      if (const Json* f = Child(m, key)) metadata[key] = *f;
    }
  }
  metadata["name"] = desired.name;
  if (!desired.labels.empty()) metadata["labels"] = desired.labels;

  Json sync = Json::object();
  sync["status"] = std::string(SyncCodeName(v.sync->status));
  if (IsMultiSourceSpec(spec)) {
    sync["revisions"] = v.live->revisions;
  } else if (!v.live->revisions.empty()) {
    sync["revision"] = v.live->revisions.front();
  }
  if (!v.sync->message.empty()) sync["message"] = v.sync->message;

  Json resources = Json::array();
  resources.get_ref<Json::array_t&>().reserve(v.sync->objects.size());
  for (const auto& o : v.sync->objects) {
    Json r = Json::object();
    r["group"] = o.ref.group;
    r["kind"] = o.ref.kind;
    r["namespace"] = o.ref.namespace_;
    r["name"] = o.ref.name;
    r["status"] = std::string(SyncCodeName(o.status));
    if (auto h = app.live_health.find(o.ref); h != app.live_health.end()) {
      Json health = Json::object();
      health["status"] = std::string(HealthCodeName(h->second.status));
      if (!h->second.message.empty()) health["message"] = h->second.message;
      r["health"] = std::move(health);
    }
    resources.push_back(std::move(r));
  }

  Json status = Json::object();
  status["sync"] = std::move(sync);
  Json health = Json::object();
  health["status"] = std::string(HealthCodeName(v.health.status));
  if (!v.health.message.empty()) health["message"] = v.health.message;
  status["health"] = std::move(health);
  if (op != nullptr) status["operationState"] = OperationRecordToJson(*op);
  status["reconciledAt"] = reconciled_at;
  status["resources"] = std::move(resources);
  if (!v.conditions.empty()) {
    Json conditions = Json::array();
    for (const auto& c : v.conditions) {
      Json condition = Json::object();
      condition["type"] = c.type;
      condition["message"] = c.message;
      conditions.push_back(std::move(condition));
    }
    status["conditions"] = std::move(conditions);
  }
  Json out = Json::object();
  out["apiVersion"] = "argoproj.io/v1alpha1";
  out["kind"] = "Application";
  out["metadata"] = std::move(metadata);
  out["spec"] = std::move(spec);
  out["status"] = std::move(status);
  return out;
}

// The decisions worth a log line, from the difference between the stored and the new entries,
// rollout state and conditions (level-triggered: nothing is remembered between reconciles).
void LogRolloutChanges(const ApplicationSet& set, const StoredRolloutStatus& before,
                       const PlanResult& after, const std::vector<AppView>& views,
                       std::vector<std::string>& log) {
  for (const auto& v : views) {
    const AppRolloutStatus* now_entry = FindEntry(after.application_status, v.id.app);
    if (now_entry == nullptr) continue;
    const AppRolloutStatus* old = FindEntry(before.application_status, v.id.app);
    const std::string prefix = Prefix(set, *v.desired);
    const std::string step = " (step " + now_entry->step + ")";
    const bool promoted = now_entry->status == RolloutAppState::kPending &&
                          (old == nullptr || old->status != RolloutAppState::kPending);
    if (promoted) {
      log.push_back(prefix + " promoted to Pending" + step);
      continue;
    }
    if (old == nullptr) {
      log.push_back(prefix + " " + ToString(now_entry->status) + step + ": " + now_entry->message);
      continue;
    }
    if (old->status != now_entry->status) {
      log.push_back(prefix + " " + ToString(old->status) + " -> " + ToString(now_entry->status) +
                    step + ": " + now_entry->message);
    } else if (old->target_revisions != now_entry->target_revisions) {
      log.push_back(prefix + " pinned to " + JoinRevisions(now_entry->target_revisions) + ", " +
                    ToString(now_entry->status) + step + ": " + now_entry->message);
    }
  }
  if (after.rollout) {
    const RolloutState& was = before.rollout;
    const RolloutState& is = *after.rollout;
    const std::string prefix = "appset=" + set.name;
    if (is.generation != was.generation) {
      log.push_back(prefix + " rollout generation " + std::to_string(is.generation) + " started");
    } else if (was.step > 0 && is.step != was.step) {
      for (int s = was.step;
           s < (is.step == 0 ? static_cast<int>(set.strategy.steps.size()) + 1 : is.step); ++s) {
        log.push_back(prefix + " step " + std::to_string(s) + " complete");
      }
      if (is.step != 0 && is.step < was.step) {
        log.push_back(prefix + " step " + std::to_string(is.step) + " re-opened");
      }
    }
  }
  // Conditions: a new or changed RolloutProgressing / InvalidRolloutConfig / ErrorOccurred.
  for (const auto& c : after.conditions) {
    if (c.type != "RolloutProgressing" && c.type != "InvalidRolloutConfig" &&
        c.type != "ErrorOccurred") {
      continue;
    }
    auto old = std::find_if(before.conditions.begin(), before.conditions.end(),
                            [&](const AppSetCondition& o) { return o.type == c.type; });
    const bool changed = old == before.conditions.end() || old->status != c.status ||
                         old->reason != c.reason || old->message != c.message;
    if (!changed) continue;
    if (c.reason == "ApplicationSetRolloutComplete") {
      log.push_back("appset=" + set.name + " rollout completed");
    } else if (c.type != "RolloutProgressing" || c.reason != "ApplicationSetModified") {
      // "performing rollout of step N" is already told by the step lines above.
      log.push_back("appset=" + set.name + " " + c.type + "=" + c.status + " " + c.reason + ": " +
                    c.message);
    }
  }
}

void KeepEarliest(std::optional<Time>& wake, Time t) {
  if (!wake || t < *wake) wake = t;
}

}  // namespace

const char* SyncStartTriggerName(SyncStartTrigger trigger) {
  switch (trigger) {
    case SyncStartTrigger::kRollout:
      return "rollout";
    case SyncStartTrigger::kAutomated:
      return "automated";
    case SyncStartTrigger::kManual:
      return "manual";
  }
  return "rollout";
}

AppSetReconcileResult ReconcileAppSet(AppSetReconcileInput input) {
  AppSetReconcileResult out;
  const ApplicationSet& set = *input.appset;
  const Strategy& strategy = set.strategy;
  const Time now = TruncateToSeconds(input.now);

  // Whether this reconcile may write Application specs: not while the set is gated off
  // (progressiveSyncs: false), has no steps, or has a strategy the planner refuses.
  const ReconcileGate gate = GateProgressiveSyncs(input.progressive_syncs, strategy);
  const bool refused_strategy =
      !strategy.type.empty() && strategy.type != "AllAtOnce" && !strategy.IsRollingSync();
  const bool writes = gate.reconcile && !refused_strategy &&
                      !(strategy.IsRollingSync() && !strategy.RollingSyncEnabled());
  const bool may_update = ApplicationsSyncAllows(set.applications_sync, AppAction::kUpdate);

  // The generated apps as the planner reads them. RollingSync: automated sync is off on every
  // generated app (the rollout starts syncs); held-back updates: the app keeps its stored spec.
  // Only the apps those rules change are copied (and changed); every other one is moved out of
  // its observation for the reconcile and moved back at the end, since the observations are
  // handed back unchanged (appset_reconcile_test.cc HandsTheObservationsBackUnchanged) and a
  // copy of each generated Application per reconcile was a large part of its cost
  // (bench/reconcile_bench.cc).
  const size_t n = input.apps.size();
  std::vector<GeneratedApplication> desired;
  desired.reserve(n);
  std::vector<char> borrowed(n, 0);  // desired[i] was moved out of input.apps[i]
  std::vector<GeneratedApplication> to_disable;
  std::vector<size_t> to_disable_at;
  std::vector<StoredApp*> stored(n, nullptr);
  for (size_t i = 0; i < n; ++i) {
    GeneratedApplication& g = input.apps[i].desired;
    auto it = input.stored_apps.find(g.name);
    if (it != input.stored_apps.end()) stored[i] = &it->second;
    const bool disable = strategy.RollingSyncEnabled() && AutomatedSyncEnabled(DesiredSpecOf(g));
    const bool held_back = !may_update && stored[i] != nullptr && stored[i]->spec.has_value();
    if (disable) {
      to_disable.push_back(g);
      to_disable_at.push_back(i);
      desired.emplace_back();  // filled below
    } else if (held_back) {
      desired.push_back(g);
    } else {
      desired.push_back(std::move(g));
      borrowed[i] = 1;
    }
  }
  AutomatedDisabled disabled =
      DisableAutomatedForRollingSync(set, std::move(to_disable), input.automated_warned);
  out.automated_warning = std::move(disabled.warning);
  for (size_t k = 0; k < to_disable_at.size(); ++k) {
    GeneratedApplication& g = desired[to_disable_at[k]];
    g = std::move(disabled.apps[k]);
    // The spec changed: its fingerprint is recomputed, so that comparing fingerprints never
    // reads the changed spec as the generated one.
    g.spec_fingerprint = SpecFingerprint(DesiredSpecOf(g));
  }

  // Per app: comparison, health, and the live Application the planner reads.
  std::vector<AppView> views(n);
  std::vector<Application> live_apps(n);
  for (size_t i = 0; i < n; ++i) {
    const ObservedApp& app = input.apps[i];
    AppView& v = views[i];
    GeneratedApplication& gen = desired[i];
    v.observed = &app;
    v.desired = &gen;
    v.stored = stored[i];
    v.live = &live_apps[i];
    v.id = {set.name, gen.name};
    Json* stored_spec = v.stored && v.stored->spec ? &*v.stored->spec : nullptr;
    // Equal fingerprints mean equal specs; only different ones need the full comparison.
    if (stored_spec != nullptr && v.stored->spec_fingerprint == 0) {
      v.stored->spec_fingerprint = SpecFingerprint(*stored_spec);
    }
    const uint64_t stored_fingerprint = stored_spec != nullptr ? v.stored->spec_fingerprint : 0;

    // The spec after this reconcile: the desired one (Argo's appset controller writes it every
    // reconcile), unless the set may not write or applicationsSync holds updates back.
    if (stored_spec == nullptr) {
      v.new_spec_is_desired = true;
      v.write_spec = writes;
    } else if (writes && may_update &&
               !SpecFingerprintsEqual(stored_fingerprint, gen.spec_fingerprint) &&
               *stored_spec != DesiredSpecOf(gen)) {
      v.new_spec_is_desired = true;
      v.write_spec = true;
    }
    if (stored_spec != nullptr && !may_update) {
      // The Application keeps its spec: the rollout plans and syncs with it, so the held-back
      // difference never reads as a spec change on every reconcile. (A copy: see above.)
      gen.object["spec"] = *stored_spec;
      gen.spec_fingerprint = stored_fingerprint;
    }

    if (app.compared != nullptr && gen.spec_fingerprint != 0 &&
        app.compared_spec == gen.spec_fingerprint) {
      v.sync = app.compared;
    } else {
      v.sync = std::make_shared<const AppSync>(
          CompareObserved(v.id, app, DecodeIgnoreDifferences(DesiredSpecOf(gen))));
      input.apps[i].compared = v.sync;
      input.apps[i].compared_spec = gen.spec_fingerprint;
    }
    v.health = AssessObserved(app);
    if (app.source_error)
      v.conditions.push_back({kSourceErrorCondition, app.source_error->ToString()});

    Application& live = *v.live;
    live.name = gen.name;
    live.labels = gen.labels;
    // The Application as it stands before this reconcile's write: what fleetwave stored, or on
    // first sight the desired spec. (A copy: the stored apps are handed back.)
    if (stored_spec != nullptr) {
      live.spec = *stored_spec;
      live.spec_fingerprint = stored_fingerprint;
    } else {
      live.spec = DesiredSpecOf(gen);
      live.spec_fingerprint = gen.spec_fingerprint;
    }
    if (live.spec_fingerprint == 0) live.spec_fingerprint = SpecFingerprint(live.spec);
    live.sync_status = std::string(SyncCodeName(v.sync->status));
    live.revisions = CurrentRevisions(app, FindEntry(input.stored.application_status, live.name),
                                      StoredOperation(v.stored));
    live.health_status = std::string(HealthCodeName(v.health.status));
    // reconciledAt stays unset for the planner: it guards `fleetwave plan` against an
    // Application status older than the entry's transition, and the daemon's observation is
    // fresh by construction. Set, a clock stepped back would hold Pending entries until it
    // caught up (appset_reconcile_test.cc ClockSteppedBackBeforeTheStartNeverReSends).
    if (const OperationRecord* op = StoredOperation(v.stored)) {
      live.operation_state = OperationStateOf(*op);
    }
    live.conditions = v.conditions;
  }

  // The operation each app has after this reconcile: a start (out.starts[started[i]])
  // replaces the stored one.
  constexpr size_t kNotStarted = static_cast<size_t>(-1);
  std::vector<size_t> started(n, kNotStarted);
  auto start = [&](const AppView& v, SyncStartTrigger trigger, Json operation,
                   std::vector<std::string> revisions, Time started_at) {
    SyncStart s;
    s.app = v.id.app;
    s.trigger = trigger;
    s.record =
        StartOperation(OperationId(v.id.app, trigger, revisions, StoredOperation(v.stored), now),
                       std::move(operation), std::move(revisions), started_at);
    out.log.push_back(Prefix(set, *v.desired) + " sync started (" + SyncStartTriggerName(trigger) +
                      ") operation=" + s.record.id +
                      " revision=" + JoinRevisions(s.record.revisions));
    started[static_cast<size_t>(&v - views.data())] = out.starts.size();
    out.starts.push_back(std::move(s));
  };

  if (gate.reconcile) {
    // progressiveSyncs is on again (or the set is no longer RollingSync): its gate's condition
    // goes, as the planner clears its own errors.
    auto& conditions = input.stored.conditions;
    conditions.erase(std::remove_if(conditions.begin(), conditions.end(),
                                    [](const AppSetCondition& c) {
                                      return c.type == "ErrorOccurred" &&
                                             c.reason == "ProgressiveSyncsDisabled";
                                    }),
                     conditions.end());
  }
  if (!gate.reconcile) {
    // progressiveSyncs: false: the set is not reconciled at all; only the condition is set.
    out.plan.application_status = input.stored.application_status;
    out.plan.conditions = MergeConditions(input.stored.conditions, {*gate.condition}, {}, now);
    if (input.stored.has_rollout) out.plan.rollout = input.stored.rollout;
    out.plan.other_status = input.stored.other;
    out.status = PlanStatusJson(out.plan);
    const AppSetCondition& c = *gate.condition;
    auto old = std::find_if(input.stored.conditions.begin(), input.stored.conditions.end(),
                            [&](const AppSetCondition& o) { return o.type == c.type; });
    if (old == input.stored.conditions.end() || old->reason != c.reason) {
      out.log.push_back("appset=" + set.name + " " + c.message);
    }
  } else if (strategy.IsRollingSync()) {
    // The entries, rollout state and conditions before the reconcile, for the log lines.
    StoredRolloutStatus before;
    before.application_status = input.stored.application_status;
    before.conditions = input.stored.conditions;
    before.rollout = input.stored.rollout;
    const bool observation_complete = std::all_of(input.apps.begin(), input.apps.end(),
                                                  [](const ObservedApp& a) { return a.observed; });
    out.plan = Plan(set, std::move(input.stored), desired, live_apps, now, observation_complete);
    out.status = PlanStatusJson(out.plan);
    LogRolloutChanges(set, before, out.plan, views, out.log);
    // What drifted, named by the comparison's first difference (object and JSON pointer).
    for (const std::string& name : out.plan.healed) {
      for (const AppView& v : views) {
        if (v.id.app != name) continue;
        out.log.push_back(Prefix(set, *v.desired) + " drifted from its pinned revision (" +
                          v.sync->message + "): it is synced again in step order");
      }
    }

    // apps_to_sync are the Pending apps of the open steps. A sync starts for one only when none
    // is running and no operation at the pinned revisions started since the entry's transition:
    // a sync is never re-sent every reconcile.
    // The views by name (pointers, so no name is copied).
    std::vector<const AppView*> by_name;
    by_name.reserve(views.size());
    for (const auto& v : views) by_name.push_back(&v);
    auto name_less = [](const AppView* a, const AppView* b) { return a->id.app < b->id.app; };
    std::stable_sort(by_name.begin(), by_name.end(), name_less);
    for (const std::string& name : out.plan.apps_to_sync) {
      auto vit =
          std::lower_bound(by_name.begin(), by_name.end(), name,
                           [](const AppView* a, const std::string& b) { return a->id.app < b; });
      const AppRolloutStatus* entry = FindEntry(out.plan.application_status, name);
      auto op_it = out.plan.operations.find(name);
      if (vit == by_name.end() || (*vit)->id.app != name || entry == nullptr ||
          op_it == out.plan.operations.end()) {
        continue;
      }
      const AppView& v = **vit;
      const OperationRecord* op = StoredOperation(v.stored);
      std::string held;
      if (!v.observed->reachable) {
        held = "cluster is unreachable";
      } else if (v.observed->source_error) {
        held = "manifests could not be read or rendered";
      } else if (Running(op)) {
        held = "operation " + op->id + " is running";
      } else if (op != nullptr && op->revisions == entry->target_revisions &&
                 entry->last_transition_time && op->started_at >= *entry->last_transition_time) {
        continue;  // already started for this entry; its phase moves the entry on
      }
      if (!held.empty()) {
        // Told once: in the reconcile that made the entry Pending.
        if (entry->last_transition_time == now) {
          out.log.push_back(Prefix(set, *v.desired) + " sync held back: " + held);
        }
        continue;
      }
      // Started no earlier than the entry's transition, so that the planner's rule (an operation
      // started at or after the transition moves a Pending entry on) holds whatever the clock
      // did since the promotion: with a clock stepped back, a start stamped `now` would read as
      // older than the entry and be sent again every reconcile.
      start(v, SyncStartTrigger::kRollout, op_it->second, entry->target_revisions,
            std::max(now, entry->last_transition_time.value_or(now)));
    }
  } else {
    // A set the planner refuses keeps its stored status.
    if (refused_strategy) out.status = StoredStatusJson(input.stored, std::nullopt, now);
    out.plan = Plan(set, std::move(input.stored), desired, live_apps, now);
    if (out.plan.planned) out.status = PlanStatusJson(out.plan);
    if (!out.plan.planned) {
      for (const auto& issue : out.plan.issues) {
        out.log.push_back("appset=" + set.name + " " + issue.path + ": " + issue.message);
      }
    }
    for (size_t i = 0; out.plan.planned && i < views.size(); ++i) {
      const AppView& v = views[i];
      const ObservedApp& app = *v.observed;
      if (app.source_error || app.rendered == nullptr) continue;
      const OperationRecord* op = StoredOperation(v.stored);
      AutoSyncInput in;
      in.app_spec = DesiredSpecOf(desired[i]);
      in.sync = *v.sync;
      in.revision = JoinRevisions(app.revisions);
      if (op != nullptr) {
        in.pinned_revision = JoinRevisions(op->revisions);
        LastSync last;
        last.revision = in.pinned_revision;
        last.succeeded = op->phase == OperationPhase::kSucceeded;
        if (op->phase != OperationPhase::kRunning) last.finished = op->finished_at;
        in.last_sync = last;
      }
      in.operation_running = Running(op);
      in.desired_objects = app.rendered->size();
      const AutoSyncDecision d = DecideAutoSync(in, now);
      if (d.requeue_after) KeepEarliest(out.wake_at, now + *d.requeue_after);
      if (d.action != AutoSyncAction::kSync) continue;
      start(v, SyncStartTrigger::kAutomated,
            BuildAutomatedSyncOperation(in.app_spec, app.revisions, IsMultiSourceSpec(in.app_spec)),
            app.revisions, now);
      out.log.back() += " (" + d.message + ")";
    }
  }

  // Names sorted (as the input's apps normally are): the Applications come out in name order
  // as they are built, with no sort of the finished documents.
  const bool sorted_by_name = std::is_sorted(
      desired.begin(), desired.end(),
      [](const GeneratedApplication& a, const GeneratedApplication& b) { return a.name < b.name; });
  const std::string reconciled_at = FormatRfc3339(now);
  out.applications.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const AppView& v = views[i];
    // The new spec: the stored one, which `live` took over and the planner is done with, or the
    // desired one.
    if (v.write_spec) {
      out.specs.emplace(v.id.app, v.new_spec_is_desired ? DesiredSpecOf(*v.desired) : v.live->spec);
    }
    const OperationRecord* op = nullptr;
    if (started[i] != kNotStarted) {
      op = &out.starts[started[i]].record;
    } else if (const OperationRecord* stored = StoredOperation(v.stored)) {
      op = stored;
      if (stored->phase == OperationPhase::kRunning) {
        if (!stored->next_attempt_at || *stored->next_attempt_at <= now) {
          out.attempts_due.push_back(v.id.app);
        } else {
          KeepEarliest(out.wake_at, *stored->next_attempt_at);
        }
      }
    }
    // The app's last Application is served again when nothing it shows changed
    // (ReusesTheApplicationWhileNothingItShowsChanged).
    ObservedApp& memo = input.apps[i];
    const uint64_t key = ApplicationKey(
        v, v.new_spec_is_desired ? v.desired->spec_fingerprint : v.live->spec_fingerprint, op);
    if (input.reuse_applications_since && key != 0 && memo.application != nullptr &&
        memo.application_key == key && memo.application_sync == v.sync &&
        memo.application_built >= *input.reuse_applications_since) {
      out.applications.push_back(memo.application);
      continue;
    }
    Json spec = v.new_spec_is_desired ? DesiredSpecOf(*v.desired) : std::move(v.live->spec);
    auto application =
        std::make_shared<const Json>(ApplicationJson(v, std::move(spec), op, reconciled_at));
    memo.application = application;
    memo.application_sync = v.sync;
    memo.application_key = key;
    memo.application_built = now;
    out.applications.push_back(std::move(application));
  }
  std::sort(out.attempts_due.begin(), out.attempts_due.end());
  if (!sorted_by_name) {
    std::sort(out.applications.begin(), out.applications.end(),
              [](const std::shared_ptr<const Json>& a, const std::shared_ptr<const Json>& b) {
                return (*a)["metadata"]["name"].get<std::string>() <
                       (*b)["metadata"]["name"].get<std::string>();
              });
  }
  if (out.plan.step_deadline) KeepEarliest(out.wake_at, *out.plan.step_deadline);
  views.clear();  // they point into input.apps and desired
  for (size_t i = 0; i < n; ++i) {
    if (borrowed[i]) input.apps[i].desired = std::move(desired[i]);
  }
  out.observed = std::move(input.apps);
  out.stored_apps = std::move(input.stored_apps);
  return out;
}

std::vector<std::string> ManualSyncPin(const Json* entry,
                                       const std::vector<std::string>& resolved) {
  const Json* targets = Child(entry, "targetRevisions");
  if (targets == nullptr || !targets->is_array() || targets->empty()) return resolved;
  std::vector<std::string> pinned;
  for (const auto& t : *targets) {
    if (t.is_string()) pinned.push_back(t.get<std::string>());
  }
  return pinned;
}

SyncStartTrigger TriggerOfOperation(const OperationRecord& record) {
  const Json* by = Child(&record.operation, "initiatedBy");
  const Json* user = Child(by, "username");
  if (user != nullptr && *user == "applicationset-controller") return SyncStartTrigger::kRollout;
  const Json* automated = Child(by, "automated");
  if (automated != nullptr && *automated == true) return SyncStartTrigger::kAutomated;
  return SyncStartTrigger::kManual;
}

ManualSyncDecision StartManualSync(const ObservedApp& app, const std::optional<StoredApp>& stored,
                                   const std::vector<std::string>& pinned,
                                   const std::optional<std::string>& revision,
                                   const std::string& caller, Time now_in) {
  const Time now = TruncateToSeconds(now_in);
  ManualSyncDecision out;
  if (stored && stored->operation && stored->operation->phase == OperationPhase::kRunning) {
    out.error =
        ConflictError("", "an operation is already running (" + stored->operation->id + ")");
    return out;
  }
  if (!app.reachable) {
    out.error = TransientError("", "cluster " + app.desired.cluster + " is unreachable");
    return out;
  }
  const Json& spec = stored && stored->spec ? *stored->spec : DesiredSpecOf(app.desired);
  const std::vector<std::string>& at = pinned.empty() ? app.revisions : pinned;
  if (!revision && at.empty()) {
    out.error = TransientError("", "no revision is known for this application yet");
    return out;
  }
  ManualSync m = BuildManualSyncOperation(spec, at, IsMultiSourceSpec(spec), revision, caller);
  if (m.error) {
    out.error = std::move(m.error);
    return out;
  }
  std::vector<std::string> revisions = revision ? std::vector<std::string>{*revision} : at;
  SyncStart s;
  s.app = app.desired.name;
  s.trigger = SyncStartTrigger::kManual;
  s.record =
      StartOperation(OperationId(s.app, s.trigger, revisions,
                                 stored && stored->operation ? &*stored->operation : nullptr, now),
                     std::move(m.operation), std::move(revisions), now);
  out.start = std::move(s);
  return out;
}

SyncAttempt PlanSyncAttempt(const AppIdentity& app, const std::vector<RenderedObject>& desired,
                            const std::vector<LiveObject>& live,
                            const std::vector<IgnoreDifference>& ignore, bool prune) {
  SyncAttempt out;
  const ApplyPlan plan = PlanApply(app, desired, live, prune);
  // An object whose live copy already carries the desired applied hash and has no drift is not
  // sent again: a restart, or a commit that leaves it unchanged, applies nothing
  // (appset_reconcile_test.cc PlanSyncAttempt*).
  const AppSync sync = CompareApp(app, desired, live, ignore, true);
  std::map<ObjectRef, SyncCode> status;
  for (const auto& o : sync.objects) status.emplace(o.ref, o.status);
  std::map<ObjectRef, const RenderedObject*> by_ref;
  for (const auto& d : desired) by_ref.emplace(d.ref, &d);
  for (const auto& action : plan.apply) {
    auto d = by_ref.find(action.ref);
    if (d == by_ref.end()) continue;
    auto s = status.find(action.ref);
    if (s != status.end() && s->second == SyncCode::kSynced && !action.adopt) {
      out.settled.push_back({action.ref, ObjectResultCode::kSynced, "unchanged"});
      continue;
    }
    out.apply.push_back(*d->second);
    out.actions.push_back(action);
  }
  for (const auto& r : plan.refused) {
    out.settled.push_back({r.ref, ObjectResultCode::kSyncFailed, r.message});
  }
  out.prune = plan.prune;
  for (const auto& ref : plan.prune_skipped) {
    out.settled.push_back({ref, ObjectResultCode::kPruneSkipped, "ignored (Prune=false)"});
  }
  return out;
}

OperationRecord FinishSyncAttempt(const OperationRecord& running, const Json& app_spec,
                                  std::vector<ObjectResult> results,
                                  const std::optional<Error>& error, Time now) {
  // The operation carries its retry policy (BuildSyncOperation copies it); a record without one
  // (written by hand, or by an older build) falls back to the app's.
  if (Child(&running.operation, "retry") == nullptr) {
    OperationRecord with_retry = running;
    const Json* retry = Child(Child(&app_spec, "syncPolicy"), "retry");
    if (retry != nullptr && retry->is_object()) {
      if (!with_retry.operation.is_object()) with_retry.operation = Json::object();
      with_retry.operation["retry"] = *retry;
    }
    return FinishAttempt(with_retry, std::move(results), error, TruncateToSeconds(now));
  }
  return FinishAttempt(running, std::move(results), error, TruncateToSeconds(now));
}

}  // namespace fleetwave::engine
