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
                        const std::vector<std::string>& revisions,
                        const std::optional<StoredApp>& stored, Time now) {
  std::string previous;
  if (stored && stored->operation) previous = stored->operation->id;
  const std::string key = app + "\x1f" + SyncStartTriggerName(trigger) + "\x1f" +
                          FormatRfc3339(now) + "\x1f" + JoinRevisions(revisions) + "\x1f" +
                          previous;
  return std::string(SyncStartTriggerName(trigger)) + "-" + Fnv1a64Hex(key);
}

const StoredApp* FindStored(const std::map<std::string, StoredApp>& stored,
                            const std::string& app) {
  auto it = stored.find(app);
  return it == stored.end() ? nullptr : &it->second;
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
  const StoredApp* stored = nullptr;
  AppIdentity id;
  AppSync sync;
  HealthStatus health;
  std::vector<ApplicationCondition> conditions;
  Application live;  // what Plan reads
  Json new_spec;     // the spec the Application has after this reconcile
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
      unknown.message = app.source_error ? *app.source_error : "manifests not rendered";
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

std::string Prefix(const ApplicationSet& set, const ObservedApp& app) {
  std::string out = "appset=" + set.name + " app=" + app.desired.name;
  if (!app.desired.cluster.empty()) out += " cluster=" + app.desired.cluster;
  return out;
}

// The Argo-shaped Application the API serves (DecodeApplication reads it back).
Json ApplicationJson(const AppView& v, const std::optional<OperationRecord>& op, Time now) {
  const ObservedApp& app = *v.observed;
  Json metadata = Json::object();
  if (const Json* m = Child(&app.desired.object, "metadata"); m && m->is_object()) {
    for (const char* key : {"namespace", "labels", "annotations"}) {
      if (const Json* f = Child(m, key)) metadata[key] = *f;
    }
  }
  metadata["name"] = app.desired.name;
  if (!app.desired.labels.empty()) metadata["labels"] = app.desired.labels;

  Json sync = {{"status", std::string(SyncCodeName(v.sync.status))}};
  if (IsMultiSourceSpec(v.new_spec)) {
    sync["revisions"] = v.live.revisions;
  } else if (!v.live.revisions.empty()) {
    sync["revision"] = v.live.revisions.front();
  }
  if (!v.sync.message.empty()) sync["message"] = v.sync.message;

  Json resources = Json::array();
  for (const auto& o : v.sync.objects) {
    Json r = {{"group", o.ref.group},
              {"kind", o.ref.kind},
              {"namespace", o.ref.namespace_},
              {"name", o.ref.name},
              {"status", std::string(SyncCodeName(o.status))}};
    if (auto h = app.live_health.find(o.ref); h != app.live_health.end()) {
      r["health"] = {{"status", std::string(HealthCodeName(h->second.status))}};
      if (!h->second.message.empty()) r["health"]["message"] = h->second.message;
    }
    resources.push_back(std::move(r));
  }

  Json status = Json::object();
  status["sync"] = std::move(sync);
  status["health"] = {{"status", std::string(HealthCodeName(v.health.status))}};
  if (!v.health.message.empty()) status["health"]["message"] = v.health.message;
  if (op) status["operationState"] = OperationRecordToJson(*op);
  status["reconciledAt"] = FormatRfc3339(now);
  status["resources"] = std::move(resources);
  if (!v.conditions.empty()) {
    Json conditions = Json::array();
    for (const auto& c : v.conditions) {
      conditions.push_back({{"type", c.type}, {"message", c.message}});
    }
    status["conditions"] = std::move(conditions);
  }
  return Json{{"apiVersion", "argoproj.io/v1alpha1"},
              {"kind", "Application"},
              {"metadata", std::move(metadata)},
              {"spec", v.new_spec},
              {"status", std::move(status)}};
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
    const std::string prefix = Prefix(set, *v.observed);
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

  // RollingSync: automated sync is off on every generated app (the rollout starts syncs).
  std::vector<GeneratedApplication> desired;
  desired.reserve(input.apps.size());
  for (const auto& a : input.apps) desired.push_back(a.desired);
  AutomatedDisabled disabled =
      DisableAutomatedForRollingSync(set, std::move(desired), input.automated_warned);
  desired = std::move(disabled.apps);
  out.automated_warning = std::move(disabled.warning);

  // Whether this reconcile may write Application specs: not while the set is gated off
  // (progressiveSyncs: false), has no steps, or has a strategy the planner refuses.
  const ReconcileGate gate = GateProgressiveSyncs(input.progressive_syncs, strategy);
  const bool refused_strategy =
      !strategy.type.empty() && strategy.type != "AllAtOnce" && !strategy.IsRollingSync();
  const bool writes = gate.reconcile && !refused_strategy &&
                      !(strategy.IsRollingSync() && !strategy.RollingSyncEnabled());
  const bool may_update = ApplicationsSyncAllows(set.applications_sync, AppAction::kUpdate);

  // Per app: comparison, health, and the live Application the planner reads.
  std::vector<AppView> views(input.apps.size());
  for (size_t i = 0; i < input.apps.size(); ++i) {
    const ObservedApp& app = input.apps[i];
    AppView& v = views[i];
    v.observed = &app;
    v.stored = FindStored(input.stored_apps, app.desired.name);
    v.id = {set.name, app.desired.name};
    const Json& desired_spec = DesiredSpecOf(desired[i]);
    const Json* stored_spec = v.stored && v.stored->spec ? &*v.stored->spec : nullptr;

    // The spec after this reconcile: the desired one (Argo's appset controller writes it every
    // reconcile), unless the set may not write or applicationsSync holds updates back.
    if (stored_spec == nullptr) {
      v.new_spec = desired_spec;
      v.write_spec = writes;
    } else if (writes && may_update && *stored_spec != desired_spec) {
      v.new_spec = desired_spec;
      v.write_spec = true;
    } else {
      v.new_spec = *stored_spec;
    }
    if (stored_spec != nullptr && !may_update) {
      // The Application keeps its spec: the rollout plans and syncs with it, so the held-back
      // difference never reads as a spec change on every reconcile.
      desired[i].object["spec"] = *stored_spec;
      desired[i].spec_fingerprint = SpecFingerprint(*stored_spec);
    }

    v.sync = CompareObserved(v.id, app, DecodeIgnoreDifferences(DesiredSpecOf(desired[i])));
    v.health = AssessObserved(app);
    if (app.source_error) v.conditions.push_back({kSourceErrorCondition, *app.source_error});

    Application& live = v.live;
    live.name = app.desired.name;
    live.labels = app.desired.labels;
    // The Application as it stands before this reconcile's write: what fleetwave stored, or on
    // first sight the desired spec.
    live.spec = stored_spec != nullptr ? *stored_spec : desired_spec;
    live.spec_fingerprint =
        stored_spec != nullptr ? SpecFingerprint(live.spec) : desired[i].spec_fingerprint;
    if (live.spec_fingerprint == 0) live.spec_fingerprint = SpecFingerprint(live.spec);
    live.sync_status = std::string(SyncCodeName(v.sync.status));
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
  std::vector<Application> live_apps;
  live_apps.reserve(views.size());
  for (const auto& v : views) live_apps.push_back(v.live);

  // The operation each app has after this reconcile (a start replaces the stored one).
  std::map<std::string, OperationRecord> started;
  auto start = [&](const AppView& v, SyncStartTrigger trigger, Json operation,
                   std::vector<std::string> revisions, Time started_at) {
    const std::optional<StoredApp> stored =
        v.stored ? std::optional<StoredApp>(*v.stored) : std::nullopt;
    SyncStart s;
    s.app = v.id.app;
    s.trigger = trigger;
    s.record = StartOperation(OperationId(v.id.app, trigger, revisions, stored, now),
                              std::move(operation), std::move(revisions), started_at);
    out.log.push_back(Prefix(set, *v.observed) + " sync started (" + SyncStartTriggerName(trigger) +
                      ") operation=" + s.record.id +
                      " revision=" + JoinRevisions(s.record.revisions));
    started.emplace(s.app, s.record);
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

    // apps_to_sync are the Pending apps of the open steps. A sync starts for one only when none
    // is running and no operation at the pinned revisions started since the entry's transition:
    // a sync is never re-sent every reconcile.
    std::map<std::string, const AppView*> by_name;
    for (const auto& v : views) by_name.emplace(v.id.app, &v);
    for (const std::string& name : out.plan.apps_to_sync) {
      auto vit = by_name.find(name);
      const AppRolloutStatus* entry = FindEntry(out.plan.application_status, name);
      auto op_it = out.plan.operations.find(name);
      if (vit == by_name.end() || entry == nullptr || op_it == out.plan.operations.end()) continue;
      const AppView& v = *vit->second;
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
          out.log.push_back(Prefix(set, *v.observed) + " sync held back: " + held);
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
      in.sync = v.sync;
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

  for (const auto& v : views) {
    if (v.write_spec) out.specs.emplace(v.id.app, v.new_spec);
    std::optional<OperationRecord> op;
    if (auto it = started.find(v.id.app); it != started.end()) {
      op = it->second;
    } else if (const OperationRecord* stored = StoredOperation(v.stored)) {
      op = *stored;
      if (stored->phase == OperationPhase::kRunning) {
        if (!stored->next_attempt_at || *stored->next_attempt_at <= now) {
          out.attempts_due.push_back(v.id.app);
        } else {
          KeepEarliest(out.wake_at, *stored->next_attempt_at);
        }
      }
    }
    out.applications.push_back(ApplicationJson(v, op, now));
  }
  std::sort(out.attempts_due.begin(), out.attempts_due.end());
  std::sort(out.applications.begin(), out.applications.end(), [](const Json& a, const Json& b) {
    return a["metadata"]["name"].get<std::string>() < b["metadata"]["name"].get<std::string>();
  });
  if (out.plan.step_deadline) KeepEarliest(out.wake_at, *out.plan.step_deadline);
  views.clear();  // they point into input.apps
  out.observed = std::move(input.apps);
  return out;
}

ManualSyncDecision StartManualSync(const ObservedApp& app, const std::optional<StoredApp>& stored,
                                   const std::vector<std::string>& pinned,
                                   const std::optional<std::string>& revision,
                                   const std::string& caller, Time now_in) {
  const Time now = TruncateToSeconds(now_in);
  ManualSyncDecision out;
  if (stored && stored->operation && stored->operation->phase == OperationPhase::kRunning) {
    out.error = "an operation is already running (" + stored->operation->id + ")";
    return out;
  }
  if (!app.reachable) {
    out.error = "cluster " + app.desired.cluster + " is unreachable";
    return out;
  }
  const Json& spec = stored && stored->spec ? *stored->spec : DesiredSpecOf(app.desired);
  const std::vector<std::string>& at = pinned.empty() ? app.revisions : pinned;
  if (!revision && at.empty()) {
    out.error = "no revision is known for this application yet";
    return out;
  }
  ManualSync m = BuildManualSyncOperation(spec, at, IsMultiSourceSpec(spec), revision, caller);
  if (!m.error.empty()) {
    out.error = std::move(m.error);
    return out;
  }
  std::vector<std::string> revisions = revision ? std::vector<std::string>{*revision} : at;
  SyncStart s;
  s.app = app.desired.name;
  s.trigger = SyncStartTrigger::kManual;
  s.record = StartOperation(OperationId(s.app, s.trigger, revisions, stored, now),
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
                                  const std::optional<std::string>& error, Time now) {
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
