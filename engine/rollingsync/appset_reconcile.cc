#include "engine/rollingsync/appset_reconcile.h"

#include <algorithm>
#include <set>
#include <utility>

#include "engine/appset/app_project.h"
#include "engine/appset/app_sync_policy.h"
#include "engine/health/app_health.h"
#include "engine/repository_condition.h"
#include "engine/rollingsync/allatonce.h"
#include "engine/rollingsync/analysis_settings.h"
#include "engine/rollingsync/appset_reconcile_parts.h"
#include "engine/rollingsync/rollout_spec_diff.h"
#include "engine/rollingsync/rollout_windows.h"
#include "engine/sync/apply_plan.h"
#include "engine/sync/retry_policy.h"
#include "engine/sync/sync_operation.h"
#include "engine/sync/tracking.h"

namespace fleetwave::engine {

using namespace reconcile;  // NOLINT: the steps this file composes

const char* SyncStartTriggerName(SyncStartTrigger trigger) {
  switch (trigger) {
    case SyncStartTrigger::kRollout:
      return "rollout";
    case SyncStartTrigger::kAutomated:
      return "automated";
    case SyncStartTrigger::kManual:
      return "manual";
    case SyncStartTrigger::kRollback:
      return "rollback";
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
  // An analysis step with no Prometheus to ask closes it too: its analysis could never pass,
  // and nothing should roll out towards that.
  ReconcileGate gate = GateProgressiveSyncs(input.progressive_syncs, strategy);
  if (gate.reconcile) {
    if (auto missing = MissingPrometheusCondition(strategy, input.analysis_prometheus)) {
      gate = {false, std::move(missing)};
    }
  }
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
  const SpecWriteRules rules{writes, may_update};
  for (size_t i = 0; i < n; ++i) {
    KeepStoredSpec(desired[i], stored[i], rules);
    DeriveView(set, input.apps[i], desired[i], stored[i],
               FindEntry(input.stored.application_status, desired[i].name), rules, views[i],
               live_apps[i]);
  }

  // The operation each app has after this reconcile: a start (out.starts[started[i]])
  // replaces the stored one.
  constexpr size_t kNotStarted = static_cast<size_t>(-1);
  std::vector<size_t> started(n, kNotStarted);
  auto start = [&](const AppView& v, SyncStartTrigger trigger, Json operation,
                   std::vector<std::string> revisions, Time started_at) {
    started[static_cast<size_t>(&v - views.data())] = out.starts.size();
    out.starts.push_back(MakeSyncStart(set, v, trigger, std::move(operation), std::move(revisions),
                                       started_at, now, out.log));
  };

  if (gate.reconcile) {
    // progressiveSyncs is on again (or the set is no longer RollingSync, or its analysis has a
    // Prometheus now): its gate's condition goes, as the planner clears its own errors.
    auto& conditions = input.stored.conditions;
    conditions.erase(std::remove_if(conditions.begin(), conditions.end(),
                                    [](const AppSetCondition& c) {
                                      return c.type == "ErrorOccurred" &&
                                             (c.reason == "ProgressiveSyncsDisabled" ||
                                              c.reason == kAnalysisPrometheusMissing);
                                    }),
                     conditions.end());
  }
  if (!gate.reconcile) {
    // progressiveSyncs: false: the set is not reconciled at all; only the condition is set.
    // Not planned: the daemon decides it from scratch again, never incrementally past the gate.
    out.plan.planned = false;
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
    out.plan.conditions = ApplyRepositoryErrors(
        out.plan.conditions, RepositoryErrorsOf(input.apps, input.generator_repository_errors),
        now);
    out.status = PlanStatusJson(out.plan);
    for (const auto& v : views) {
      const AppRolloutStatus* now_entry = FindEntry(out.plan.application_status, v.id.app);
      if (now_entry == nullptr) continue;
      LogEntryChange(set, *v.desired, FindEntry(before.application_status, v.id.app), *now_entry,
                     out.log);
    }
    LogRolloutStateChanges(set, before.rollout, before.conditions, out.plan.rollout,
                           out.plan.conditions, out.log);
    // What drifted, named by the comparison's first difference (object and JSON pointer).
    for (const std::string& name : out.plan.healed) {
      for (const AppView& v : views) {
        if (v.id.app == name) out.log.push_back(HealedLine(set, v));
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
      const RolloutStartCheck check = CheckRolloutStart(v, *entry);
      if (!check.held.empty()) {
        // Told once: in the reconcile that made the entry Pending.
        if (entry->last_transition_time == now) {
          out.log.push_back(Prefix(set, *v.desired) + " sync held back: " + check.held);
        }
        continue;
      }
      if (!check.start) continue;
      start(v, SyncStartTrigger::kRollout, op_it->second, entry->target_revisions,
            RolloutStartTime(*entry, now));
    }
    // [issue 29] A rollback's syncs back, each once: not while one runs, and not again once
    // one at its revisions started since the rollback asked for it.
    for (const RollbackSync& back : out.plan.rollback_syncs) {
      auto vit =
          std::lower_bound(by_name.begin(), by_name.end(), back.app,
                           [](const AppView* a, const std::string& b) { return a->id.app < b; });
      if (vit == by_name.end() || (*vit)->id.app != back.app) continue;
      const AppView& v = **vit;
      const RolloutStartCheck check = CheckRollbackStart(v, back);
      if (!check.held.empty()) {
        if (back.since == now) {
          out.log.push_back(Prefix(set, *v.desired) + " sync back held: " + check.held);
        }
        continue;
      }
      if (!check.start) continue;
      start(v, SyncStartTrigger::kRollback, back.operation, back.to, std::max(now, back.since));
    }
  } else {
    // A set the planner refuses keeps its stored status.
    if (refused_strategy) out.status = StoredStatusJson(input.stored, std::nullopt, now);
    out.plan = Plan(set, std::move(input.stored), desired, live_apps, now);
    if (out.plan.planned) {
      out.plan.conditions = ApplyRepositoryErrors(
          out.plan.conditions, RepositoryErrorsOf(input.apps, input.generator_repository_errors),
          now);
      out.status = PlanStatusJson(out.plan);
    }
    if (!out.plan.planned) {
      for (const auto& issue : out.plan.issues) {
        out.log.push_back("appset=" + set.name + " " + issue.path + ": " + issue.message);
      }
    }
    // [issue 29] Sync windows hold automated syncs too (Argo CD's rule); the next edge wakes.
    const WindowClock windows(set.projects.get(), now);
    if (windows.next_edge()) KeepEarliest(out.wake_at, *windows.next_edge());
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
      if (!windows.HoldOf(desired[i]).empty()) continue;  // a sync window holds it
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
    out.applications.push_back(ApplicationOf(
        v, op, input.apps[i], input.reuse_applications_since, now, reconciled_at, [&] {
          return v.new_spec_is_desired ? DesiredSpecOf(*v.desired) : std::move(v.live->spec);
        }));
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
  if (out.plan.soak_ends_at) KeepEarliest(out.wake_at, *out.plan.soak_ends_at);
  if (out.plan.window_edge_at) KeepEarliest(out.wake_at, *out.plan.window_edge_at);
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
  if (IsRollbackOperation(record.operation)) return SyncStartTrigger::kRollback;
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
                                   const std::string& caller, Time now_in,
                                   const AppProjects* projects) {
  const Time now = TruncateToSeconds(now_in);
  ManualSyncDecision out;
  if (projects != nullptr) {
    const Json& desired_spec = DesiredSpecOf(app.desired);
    ProjectCheckInput in;
    in.app = app.desired.name;
    in.spec = &desired_spec;
    in.cluster = app.desired.cluster;
    if (std::string refusal = ProjectRefusal(projects, in); !refusal.empty()) {
      out.error = InvalidInputError("", refusal);
      return out;
    }
    if (const auto* windows = WindowsOf(projects, desired_spec)) {
      const SyncVerdict v = CanSync(*windows, WindowTargetOf(app.desired), now, true);
      if (!v.allowed) {
        out.error = ConflictError("", HoldReason(v, ProjectOf(desired_spec)));
        return out;
      }
    }
  }
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
                            const LiveObjects& live, const std::vector<IgnoreDifference>& ignore,
                            bool prune) {
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
