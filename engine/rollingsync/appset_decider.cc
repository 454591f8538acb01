#include "engine/rollingsync/appset_decider.h"

#include <algorithm>
#include <utility>

#include "engine/appset/app_sync_policy.h"
#include "engine/rollingsync/allatonce.h"
#include "engine/rollingsync/appset_reconcile_parts.h"
#include "engine/rollingsync/rollout_phases.h"

namespace fleetwave::engine {

using namespace reconcile;  // NOLINT: the per-app steps this file composes

namespace {

std::string NameOf(const Json& application) {
  const Json* metadata = Child(&application, "metadata");
  const Json* name = Child(metadata, "name");
  return name != nullptr && name->is_string() ? name->get<std::string>() : std::string();
}

// An Application as it would be built again: reconciledAt says when, not what.
Json WithoutReconciledAt(const Json& application) {
  Json out = application;
  if (out.is_object() && out.contains("status") && out["status"].is_object()) {
    out["status"].erase("reconciledAt");
  }
  return out;
}

// The first app whose entry differs between two applicationStatus lists, or "".
std::string FirstEntryDifference(const Json& a, const Json& b) {
  const Json empty = Json::array();
  const Json& x = a.is_array() ? a : empty;
  const Json& y = b.is_array() ? b : empty;
  const size_t n = std::max(x.size(), y.size());
  for (size_t i = 0; i < n; ++i) {
    if (i < x.size() && i < y.size() && x[i] == y[i]) continue;
    const Json& differing = i < x.size() ? x[i] : y[i];
    const Json* name = Child(&differing, "application");
    return "app " + (name != nullptr ? name->dump() : std::string("?")) + ": incremental " +
           (i < x.size() ? x[i].dump() : std::string("none")) + ", from scratch " +
           (i < y.size() ? y[i].dump() : std::string("none"));
  }
  return "";
}

}  // namespace

bool RollingSyncDecider::Handles(const ApplicationSet& set, bool progressive_syncs) {
  return progressive_syncs && set.strategy.RollingSyncEnabled();
}

RollingSyncDecider::RollingSyncDecider(std::shared_ptr<const ApplicationSet> set,
                                       StoredRolloutStatus stored,
                                       std::vector<ObservedApp> observed,
                                       std::map<std::string, StoredApp> stored_apps,
                                       std::optional<Time> reuse_applications_since, Time now)
    : set_(std::move(set)),
      rules_{true, ApplicationsSyncAllows(set_->applications_sync, AppAction::kUpdate)},
      stored_(std::move(stored_apps)),
      reuse_since_(reuse_applications_since) {
  // Shared with the tracker, not copied: a copy of every app's spec and Application was a
  // third of what a decider held (heap profile at N=500, 8b67c0b).
  std::vector<std::shared_ptr<const GeneratedApplication>> desired;
  std::vector<std::shared_ptr<const Application>> live;
  desired.reserve(observed.size());
  live.reserve(observed.size());
  std::size_t position = 0;
  for (auto& o : observed) {
    const std::string name = o.desired.name;
    auto [it, inserted] = apps_.try_emplace(name);
    if (!inserted) continue;  // names are unique (REQUIRES); the first counts
    App& a = it->second;
    a.observed = std::move(o);
    a.position = position++;
    if (!a.observed.observed) ++unobserved_;
    Derive(a, FindEntry(stored.application_status, name));
    desired.push_back(a.planned);
    live.push_back(a.live);
    TrackRunning(name);
    applications_.push_back(a.observed.application);
  }
  tracker_.emplace(*set_, std::move(stored), std::move(desired), std::move(live));
  decided_at_ = TruncateToSeconds(now);
  RebuildStatusJson();
}

void RollingSyncDecider::Derive(App& a, const AppRolloutStatus* entry) {
  const std::string& name = a.observed.desired.name;
  // `planned` depends only on the generation's desired app, constant for this decider (a new
  // generation makes a new decider), and on the set. KeepStoredSpec changes it only where the
  // set may not update specs (it takes the stored spec in), so only then is it derived again:
  // the copy and the fingerprint were an eighth of an event's cost.
  const uint64_t from = a.observed.desired.spec_fingerprint;
  auto stored = stored_.find(name);
  StoredApp* stored_app = stored == stored_.end() ? nullptr : &stored->second;
  if (!a.planned || !a.planned_reusable || from == 0 || from != a.planned_from) {
    GeneratedApplication planned = a.observed.desired;
    if (AutomatedSyncEnabled(DesiredSpecOf(planned))) {
      std::vector<GeneratedApplication> one;
      one.push_back(std::move(planned));
      // The warning is the from-scratch reconcile's, which seeded this decider.
      AutomatedDisabled disabled = DisableAutomatedForRollingSync(*set_, std::move(one), true);
      planned = std::move(disabled.apps.front());
      planned.spec_fingerprint = SpecFingerprint(DesiredSpecOf(planned));
    }
    // Reused only where it does nothing (updates not held back).
    KeepStoredSpec(planned, stored_app, rules_);
    a.planned = std::make_shared<const GeneratedApplication>(std::move(planned));
    a.planned_from = from;
    a.planned_reusable = rules_.may_update;
  }
  a.view = AppView{};
  // A new object each time: the tracker shares the last one.
  a.live = std::make_shared<Application>();
  DeriveView(*set_, a.observed, *a.planned, stored_app, entry, rules_, a.view, *a.live);
}

void RollingSyncDecider::Mark(const std::string& name) {
  if (apps_.count(name) > 0) dirty_.insert(name);
}

void RollingSyncDecider::TrackRunning(const std::string& name) {
  if (auto was = running_.find(name); was != running_.end()) {
    if (was->second) {
      retry_at_.erase({*was->second, name});
      reported_retries_.erase({*was->second, name});
    }
    running_.erase(was);
  }
  due_unreported_.erase(name);
  auto s = stored_.find(name);
  if (s == stored_.end() || !Running(StoredOperation(&s->second))) return;
  const std::optional<Time>& next = s->second.operation->next_attempt_at;
  running_.emplace(name, next);
  if (next) {
    retry_at_.emplace(*next, name);
  } else {
    due_unreported_.insert(name);
  }
}

ObservedApp RollingSyncDecider::TakeObserved(const std::string& app) {
  auto it = apps_.find(app);
  if (it == apps_.end()) return {};
  if (!it->second.observed.observed) --unobserved_;
  return std::move(it->second.observed);
}

void RollingSyncDecider::PutObserved(ObservedApp observed) {
  auto it = apps_.find(observed.desired.name);
  if (it == apps_.end()) return;
  if (!observed.observed) ++unobserved_;
  it->second.observed = std::move(observed);
  dirty_.insert(it->first);
}

void RollingSyncDecider::SetOperation(const std::string& app,
                                      std::optional<OperationRecord> operation) {
  if (apps_.count(app) == 0) return;
  stored_[app].operation = std::move(operation);
  TrackRunning(app);
  Mark(app);
}

void RollingSyncDecider::SetSpec(const std::string& app, Json spec) {
  if (apps_.count(app) == 0) return;
  StoredApp& s = stored_[app];
  s.spec = std::move(spec);
  s.spec_fingerprint = 0;
  Mark(app);
}

std::shared_ptr<const Json> RollingSyncDecider::BuildApplication(App& a, const OperationRecord* op,
                                                                 Time now,
                                                                 const std::string& reconciled_at) {
  return ApplicationOf(a.view, op, a.observed, reuse_since_, now, reconciled_at, [&] {
    return a.view.new_spec_is_desired ? DesiredSpecOf(*a.planned) : a.live->spec;
  });
}

AppSetDelta RollingSyncDecider::Decide(Time now_in) {
  const Time now = TruncateToSeconds(now_in);
  decided_at_ = now;
  AppSetDelta out;
  const ApplicationSet& set = *set_;
  const RolloutState before_rollout = tracker_->rollout();
  const std::vector<AppSetCondition> before_conditions = tracker_->conditions();

  // The changed apps, derived as ReconcileAppSet derives each one.
  for (const std::string& name : dirty_) {
    App& a = apps_.at(name);
    Derive(a, tracker_->EntryOf(name));
    tracker_->SetLive(a.live);  // shared, not copied
    if (a.view.write_spec) {
      out.specs.emplace(name,
                        a.view.new_spec_is_desired ? DesiredSpecOf(*a.planned) : a.live->spec);
    }
  }
  RolloutDelta d = tracker_->Decide(now, unobserved_ == 0);
  out.apps_decided = d.apps_decided;

  for (size_t i = 0; i < d.changed_entries.size(); ++i) {
    const AppRolloutStatus& entry = d.changed_entries[i];
    auto it = apps_.find(entry.application);
    if (it == apps_.end()) continue;
    LogEntryChange(set, *it->second.planned, d.entries_before[i] ? &*d.entries_before[i] : nullptr,
                   entry, out.log);
  }
  LogRolloutStateChanges(set, before_rollout, before_conditions, tracker_->rollout(),
                         tracker_->conditions(), out.log);
  for (const std::string& name : d.healed) {
    auto it = apps_.find(name);
    if (it != apps_.end()) out.log.push_back(HealedLine(set, it->second.view));
  }
  out.healed = d.healed.size();
  out.drifted = tracker_->Drifted();

  // Syncs: the apps new to the sync list, and listed apps whose inputs or entry changed (a held
  // sync whose cluster came back). Every other listed app was checked when it last changed.
  std::set<std::string> candidates(d.syncs_to_start.begin(), d.syncs_to_start.end());
  candidates.insert(dirty_.begin(), dirty_.end());
  for (const auto& e : d.changed_entries) candidates.insert(e.application);
  std::map<std::string, size_t> started;
  for (const std::string& name : candidates) {
    if (!tracker_->InSyncList(name)) continue;
    App& a = apps_.at(name);
    const AppRolloutStatus& entry = *tracker_->EntryOf(name);
    const RolloutStartCheck check = CheckRolloutStart(a.view, entry);
    if (!check.held.empty()) {
      // Told once: in the decision that made the entry Pending.
      if (entry.last_transition_time == now) {
        out.log.push_back(Prefix(set, *a.planned) + " sync held back: " + check.held);
      }
      continue;
    }
    if (!check.start) continue;
    started[name] = out.starts.size();
    out.starts.push_back(
        MakeSyncStart(set, a.view, SyncStartTrigger::kRollout,
                      RolloutSyncOperation(DesiredSpecOf(*a.planned), entry.target_revisions),
                      entry.target_revisions, RolloutStartTime(entry, now), now, out.log));
  }
  // [issue 29] A rollback's syncs back, as ReconcileAppSet starts them.
  for (const RollbackSync& back : d.rollback_syncs) {
    auto it = apps_.find(back.app);
    if (it == apps_.end()) continue;
    App& a = it->second;
    const RolloutStartCheck check = CheckRollbackStart(a.view, back);
    if (!check.held.empty()) {
      if (back.since == now) {
        out.log.push_back(Prefix(set, *a.planned) + " sync back held: " + check.held);
      }
      continue;
    }
    if (!check.start) continue;
    started[back.app] = out.starts.size();
    out.starts.push_back(MakeSyncStart(set, a.view, SyncStartTrigger::kRollback, back.operation,
                                       back.to, std::max(now, back.since), now, out.log));
  }

  // Applications of the changed and started apps.
  const std::string reconciled_at = FormatRfc3339(now);
  std::set<std::string> rebuild(dirty_.begin(), dirty_.end());
  for (const auto& [name, index] : started) rebuild.insert(name);
  for (const std::string& name : rebuild) {
    App& a = apps_.at(name);
    auto s = started.find(name);
    const OperationRecord* op =
        s != started.end() ? &out.starts[s->second].record : StoredOperation(a.view.stored);
    std::shared_ptr<const Json> application = BuildApplication(a, op, now, reconciled_at);
    if (applications_[a.position] != application) {
      applications_[a.position] = application;
      out.applications.push_back(std::move(application));
    }
  }

  // Attempts: those newly due, and the changed apps' that are due (see running_).
  std::set<std::string> due = std::move(due_unreported_);
  due_unreported_.clear();
  while (!retry_at_.empty() && retry_at_.begin()->first <= now) {
    due.insert(retry_at_.begin()->second);
    reported_retries_.insert(*retry_at_.begin());
    retry_at_.erase(retry_at_.begin());
  }
  for (const std::string& name : dirty_) {
    auto r = running_.find(name);
    if (r != running_.end() && (!r->second || *r->second <= now)) due.insert(name);
  }
  for (const std::string& name : due) {
    if (started.count(name) == 0) out.attempts_due.push_back(name);
  }
  if (!retry_at_.empty()) KeepEarliest(out.wake_at, retry_at_.begin()->first);
  // A retry reported due before the clock stepped back is not due again at `now`: wake at its
  // time, as a decision from scratch (which reads every running operation) does.
  if (auto later = reported_retries_.lower_bound({now + std::chrono::seconds(1), std::string()});
      later != reported_retries_.end()) {
    KeepEarliest(out.wake_at, later->first);
  }
  if (d.step_deadline) KeepEarliest(out.wake_at, *d.step_deadline);
  if (d.soak_ends_at) KeepEarliest(out.wake_at, *d.soak_ends_at);  // a timer, never a poll
  if (d.window_edge_at) KeepEarliest(out.wake_at, *d.window_edge_at);
  out.analysis_due = std::move(d.analysis_due);

  // The set's status, patched per changed entry.
  out.changed_entries = std::move(d.changed_entries);
  if (d.conditions_changed) out.conditions = tracker_->conditions();
  if (d.rollout_changed) out.rollout = tracker_->rollout();
  Json& entries = status_["applicationStatus"];
  bool patched = d.removed_entries.empty() && entries.is_array();
  std::vector<std::size_t> positions;
  positions.reserve(out.changed_entries.size());
  for (const auto& e : out.changed_entries) {
    if (!patched) break;
    auto it = apps_.find(e.application);
    patched = it != apps_.end() && it->second.position < entries.size() &&
              entries[it->second.position].value("application", "") == e.application;
    if (patched) {
      entries[it->second.position] = EncodeAppRolloutStatus(e);
      positions.push_back(it->second.position);
    }
  }
  if (!patched) {
    RebuildStatusJson();
  } else {
    std::sort(positions.begin(), positions.end());
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
    out.entry_positions = std::move(positions);
    if (out.conditions) {
      Json conditions = Json::array();
      for (const auto& c : *out.conditions) conditions.push_back(EncodeAppSetCondition(c));
      status_["conditions"] = std::move(conditions);
    }
    if (out.rollout) status_["rollout"] = EncodeRolloutState(*out.rollout);
  }

  // An app judged at its pin (a source error: no revisions of its own) read the entry before
  // this decision; if the decision moved the entry, the app is derived again next time, as
  // ReconcileAppSet would derive it then.
  std::set<std::string> again;
  for (const auto& e : out.changed_entries) {
    auto it = apps_.find(e.application);
    if (it != apps_.end() && it->second.observed.revisions.empty()) again.insert(e.application);
  }
  dirty_ = std::move(again);
  return out;
}

void RollingSyncDecider::RebuildStatusJson() { status_ = PlanStatusJson(tracker_->Snapshot()); }

StoredRolloutStatus RollingSyncDecider::StoredStatus() const {
  PlanResult snapshot = tracker_->Snapshot();
  StoredRolloutStatus out;
  out.application_status = std::move(snapshot.application_status);
  out.conditions = std::move(snapshot.conditions);
  out.has_rollout = snapshot.rollout.has_value();
  if (snapshot.rollout) out.rollout = std::move(*snapshot.rollout);
  out.other = std::move(snapshot.other_status);
  return out;
}

std::vector<ObservedApp> RollingSyncDecider::ReleaseObserved() {
  std::vector<ObservedApp> out;
  out.reserve(apps_.size());
  for (auto& [name, a] : apps_) out.push_back(std::move(a.observed));
  apps_.clear();
  return out;
}

std::string StoredAppsDifference(const std::map<std::string, StoredApp>& decider,
                                 const std::map<std::string, StoredApp>& store) {
  auto operation = [](const StoredApp& a) {
    return a.operation ? OperationRecordToJson(*a.operation) : Json();
  };
  auto d = decider.begin();
  auto s = store.begin();
  while (d != decider.end() || s != store.end()) {
    if (s == store.end() || (d != decider.end() && d->first < s->first)) {
      return "app \"" + d->first + "\": held by the decider, not in the store";
    }
    if (d == decider.end() || s->first < d->first) {
      return "app \"" + s->first + "\": in the store, not held by the decider";
    }
    if (d->second.spec != s->second.spec)
      return "app \"" + d->first + "\": its stored spec differs";
    if (operation(d->second) != operation(s->second)) {
      return "app \"" + d->first + "\": its operation differs: decider " +
             operation(d->second).dump() + ", store " + operation(s->second).dump();
    }
    ++d;
    ++s;
  }
  return "";
}

AppSetDelta RollingSyncDecider::DecideChecked(Time now, DeciderCheck& check) {
  AppSetReconcileInput in;
  in.appset = set_.get();
  in.stored = StoredStatus();
  in.apps.reserve(apps_.size());
  for (auto& [name, a] : apps_) in.apps.push_back(std::move(a.observed));
  in.stored_apps = std::move(stored_);
  in.progressive_syncs = true;
  in.automated_warned = true;
  in.now = now;
  in.reuse_applications_since = reuse_since_;
  AppSetReconcileResult r = ReconcileAppSet(std::move(in));
  // Handed back unchanged but for caches: the views point into these (map nodes move with the
  // map, and each observation goes back into its own App).
  stored_ = std::move(r.stored_apps);
  for (auto& o : r.observed) apps_.at(o.desired.name).observed = std::move(o);

  AppSetDelta d = Decide(now);
  check = {};
  auto differ = [&](std::string what) {
    if (check.agrees) check = {false, std::move(what)};
  };
  if (r.status != status_) {
    const std::string entry =
        FirstEntryDifference(status_.value("applicationStatus", Json::array()),
                             r.status.value("applicationStatus", Json::array()));
    differ(!entry.empty() ? entry
                          : "the set's status: incremental " + status_.dump() + ", from scratch " +
                                r.status.dump());
  }
  auto ids = [](const std::vector<SyncStart>& starts) {
    std::vector<std::string> out;
    for (const auto& s : starts) out.push_back(s.app + " " + s.record.id);
    return out;
  };
  if (ids(d.starts) != ids(r.starts)) {
    differ("the syncs started: incremental " + Json(ids(d.starts)).dump() + ", from scratch " +
           Json(ids(r.starts)).dump());
  }
  std::vector<std::string> specs_d, specs_r;
  for (const auto& [app, spec] : d.specs) specs_d.push_back(app);
  for (const auto& [app, spec] : r.specs) specs_r.push_back(app);
  if (specs_d != specs_r) {
    differ("the specs written: incremental " + Json(specs_d).dump() + ", from scratch " +
           Json(specs_r).dump());
  }
  // The decider reports each due attempt once (AppSetDelta::attempts_due): none that the
  // from-scratch decision does not find due. (One it never reported cannot be seen here; the
  // resync's from-scratch decision runs every due attempt the actor has not in flight.)
  if (!std::includes(r.attempts_due.begin(), r.attempts_due.end(), d.attempts_due.begin(),
                     d.attempts_due.end())) {
    differ("the attempts due: incremental " + Json(d.attempts_due).dump() +
           " is not among the from-scratch " + Json(r.attempts_due).dump());
  }
  for (size_t i = 0; i < r.applications.size() && i < applications_.size(); ++i) {
    if (r.applications[i] == applications_[i]) continue;
    if (applications_[i] == nullptr ||
        WithoutReconciledAt(*r.applications[i]) != WithoutReconciledAt(*applications_[i])) {
      differ("app \"" + NameOf(*r.applications[i]) + "\": its Application differs");
    }
  }
  if (r.applications.size() != applications_.size()) differ("the number of Applications differs");
  return d;
}

}  // namespace fleetwave::engine
