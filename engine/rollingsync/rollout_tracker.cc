#include "engine/rollingsync/rollout_tracker.h"

#include <algorithm>
#include <utility>

#include "engine/rollingsync/max_failures.h"
#include "engine/rollingsync/max_update.h"
#include "engine/rollingsync/rollout_eligibility.h"
#include "engine/rollingsync/rollout_phases.h"
#include "engine/rollingsync/rollout_safety.h"
#include "engine/rollingsync/rollout_spec_diff.h"

namespace fleetwave::engine {
namespace {

bool Updating(RolloutAppState s) {
  return s == RolloutAppState::kPending || s == RolloutAppState::kProgressing;
}

bool SameConditions(const std::vector<AppSetCondition>& a, const std::vector<AppSetCondition>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const AppSetCondition& x, const AppSetCondition& y) {
                      return x.type == y.type && x.status == y.status && x.reason == y.reason &&
                             x.message == y.message &&
                             x.last_transition_time == y.last_transition_time;
                    });
}

bool SameDesired(const GeneratedApplication& a, const GeneratedApplication& b) {
  return SpecFingerprintsEqual(a.spec_fingerprint, b.spec_fingerprint) ||
         DesiredSpecOf(a) == DesiredSpecOf(b);
}

template <typename T>
std::vector<std::shared_ptr<const T>> Shared(std::vector<T> values) {
  std::vector<std::shared_ptr<const T>> out;
  out.reserve(values.size());
  for (auto& v : values) out.push_back(std::make_shared<const T>(std::move(v)));
  return out;
}

}  // namespace

bool RolloutTracker::Tracks(const ApplicationSet& appset) {
  return appset.strategy.RollingSyncEnabled();
}

RolloutTracker::RolloutTracker(const ApplicationSet& appset, StoredRolloutStatus stored,
                               std::vector<GeneratedApplication> desired,
                               std::vector<Application> live)
    : RolloutTracker(appset, std::move(stored), Shared(std::move(desired)),
                     Shared(std::move(live))) {}

RolloutTracker::RolloutTracker(const ApplicationSet& appset, StoredRolloutStatus stored,
                               std::vector<std::shared_ptr<const GeneratedApplication>> desired,
                               std::vector<std::shared_ptr<const Application>> live)
    : strategy_(appset.strategy),
      ignore_application_differences_(appset.ignore_application_differences),
      heal_drift_(RollingSyncHealsDrift(appset)),
      projects_(appset.projects),
      steps_(appset.strategy.steps.size()),
      state_(std::move(stored.rollout)),
      conditions_(std::move(stored.conditions)),
      other_status_(std::move(stored.other)) {
  for (auto& app : live) {
    auto it = Find(app->name);
    it->second.live = std::move(app);
  }
  // Of two stored entries for one app the first counts, as in Plan. An entry whose app is not
  // live goes at the first decision (reported in removed_entries).
  for (auto& entry : stored.application_status) {
    auto it = Find(entry.application);
    if (!it->second.entry) it->second.entry = std::move(entry);
  }
  StepAssignment assignment = AssignStepsShared(strategy_, desired);
  config_issues_ = std::move(assignment.issues);
  for (size_t i = 0; i < desired.size(); ++i) {
    auto it = Find(desired[i]->name);
    it->second.step = assignment.steps[i];
    it->second.desired = std::move(desired[i]);
  }
  // A stored skip of an app that is not live goes, as Plan drops it.
  for (auto it = state_.skipped.begin(); it != state_.skipped.end();) {
    auto record = records_.find(it->first);
    it =
        record == records_.end() || !record->second.live ? state_.skipped.erase(it) : std::next(it);
  }
  // Nothing is indexed yet: every record is re-decided at the first Decide.
  touched_.reserve(records_.size());
  for (auto it = records_.begin(); it != records_.end(); ++it) {
    it->second.dirty = true;
    it->second.touched = true;
    it->second.listed_before = false;
    touched_.push_back({it, it->second.entry});
  }
}

RolloutTracker::Records::iterator RolloutTracker::Find(const std::string& app) {
  return records_.try_emplace(app).first;
}

bool RolloutTracker::Listed(const Record& r) const {
  return listing_ && open_step_ >= 0 && r.step == open_step_ && r.desired && r.live && r.entry &&
         !r.skipped && r.entry->status == RolloutAppState::kPending && r.window_hold.empty();
}

std::string RolloutTracker::WindowHoldOf(const Record& r) const {
  if (!r.desired || r.step < 0) return "";
  return window_clock_.HoldOf(*r.desired);
}

void RolloutTracker::AdvanceWindowClock(Time now) {
  const bool first = !window_clock_set_;
  if (!first && !(window_clock_.next_edge() && now >= *window_clock_.next_edge())) return;
  window_clock_ = WindowClock(projects_.get(), now);
  window_clock_set_ = true;
  if (first) return;  // every record is re-decided at the first decision
  for (auto it = records_.begin(); it != records_.end(); ++it) {
    const Record& r = it->second;
    if (!r.dirty && r.live && WindowHoldOf(r) != r.window_hold) MarkDirty(it);
  }
}

void RolloutTracker::Touch(Records::iterator it) {
  Record& r = it->second;
  if (r.touched) return;
  r.touched = true;
  r.listed_before = Listed(r);
  touched_.push_back({it, r.entry});
}

void RolloutTracker::MarkDirty(Records::iterator it) {
  Record& r = it->second;
  if (r.dirty) return;
  Touch(it);
  Index(it->first, r, -1);
  r.dirty = true;
}

void RolloutTracker::Index(const std::string& name, const Record& r, int sign) {
  if (!r.desired || r.step < 0 || r.step >= static_cast<int>(steps_.size())) return;
  StepIndex& s = steps_[r.step];
  s.members += sign;
  const bool exists = r.live && r.entry;
  const bool completes =
      exists && (r.skipped || (r.entry->status == RolloutAppState::kHealthy &&
                               LiveHealthAllowsCompletion(r.live->health_status)));
  if (!completes) s.incomplete += sign;
  if (!exists) return;
  s.live += sign;
  if (!completes && !r.skipped && !FailureOf(*r.entry, *r.live).empty()) {
    if (sign > 0) {
      s.failed.insert(name);
    } else {
      s.failed.erase(name);
    }
  }
  if (Updating(r.entry->status)) s.updating += sign;
  if (r.skipped) return;
  if (!r.window_hold.empty()) {
    // Held by a sync window (issue 29): neither promoted nor listed, but shown.
    if (r.entry->status == RolloutAppState::kWaiting ||
        r.entry->status == RolloutAppState::kPending) {
      if (sign > 0) {
        s.window_held.insert(name);
      } else {
        s.window_held.erase(name);
      }
    }
    return;
  }
  std::set<std::string_view>* queue = r.entry->status == RolloutAppState::kWaiting   ? &s.waiting
                                      : r.entry->status == RolloutAppState::kPending ? &s.pending
                                                                                     : nullptr;
  if (queue == nullptr) return;
  if (sign > 0) {
    queue->insert(name);
  } else {
    queue->erase(name);
  }
}

RolloutTracker::Hold RolloutTracker::FirstHold(const std::vector<StepGate>& gates) const {
  for (size_t s = 0; s < steps_.size(); ++s) {
    const StepIndex& i = steps_[s];
    const long long failed = static_cast<long long>(i.failed.size());
    const StepHold why = HoldOfStep(gates[s], i.live, failed, i.incomplete - failed);
    if (why != StepHold::kNone) return {static_cast<int>(s), why};
  }
  return {};
}

void RolloutTracker::SetLive(Application app) {
  SetLive(std::make_shared<const Application>(std::move(app)));
}

void RolloutTracker::SetLive(std::shared_ptr<const Application> app) {
  auto it = Find(app->name);
  MarkDirty(it);
  it->second.live = std::move(app);
}

void RolloutTracker::RemoveLive(const std::string& app) {
  auto it = records_.find(app);
  if (it == records_.end() || !it->second.live) return;
  MarkDirty(it);
  it->second.live.reset();
}

void RolloutTracker::SetDesired(std::vector<GeneratedApplication> desired) {
  StepAssignment assignment = AssignSteps(strategy_, desired);
  config_issues_ = std::move(assignment.issues);
  std::vector<std::string_view> names;
  names.reserve(desired.size());
  for (const auto& d : desired) names.push_back(d.name);
  std::sort(names.begin(), names.end());
  for (auto it = records_.begin(); it != records_.end(); ++it) {
    if (!it->second.desired || std::binary_search(names.begin(), names.end(), it->first)) continue;
    MarkDirty(it);
    it->second.desired.reset();
    it->second.step = -1;
  }
  for (size_t i = 0; i < desired.size(); ++i) {
    auto it = Find(desired[i].name);
    Record& r = it->second;
    const int step = assignment.steps[i];
    if (r.desired && r.step == step && SameDesired(*r.desired, desired[i])) continue;
    MarkDirty(it);
    r.step = step;
    r.desired = std::make_shared<const GeneratedApplication>(std::move(desired[i]));
  }
}

void RolloutTracker::Pause(Time now) { PauseRollout(state_, now); }
void RolloutTracker::Resume(Time now) { ResumeRollout(state_, now); }
void RolloutTracker::Abort(Time now, const std::string& caller) {
  AbortRollout(state_, now, caller);
}

void RolloutTracker::RequestRollback(Time now, const std::string& caller, const std::string& to) {
  ::fleetwave::engine::RequestRollback(state_, now, caller, to);
}

bool RolloutTracker::RecordMeasurement(const AnalysisRequest& request,
                                       const AnalysisMeasurement& measurement) {
  return RecordAnalysisMeasurement(state_, request, measurement);
}

void RolloutTracker::Skip(const std::string& app, const std::string& reason) {
  auto it = records_.find(app);
  if (it == records_.end() || !it->second.live) return;  // Plan drops a skip of no live app
  SkipApplication(state_, app, reason);
  MarkDirty(it);
}

void RolloutTracker::Redecide(Records::iterator it, Time now, RolloutDelta& delta) {
  const std::string& name = it->first;
  Record& r = it->second;
  if (!r.live) {
    r.entry.reset();
    r.skipped = false;
    state_.skipped.erase(name);
  } else {
    // As JoinApps: only a synced entry reacts to a spec difference; a new pin drops a skip.
    const bool spec_matters = r.entry && (r.entry->status == RolloutAppState::kProgressing ||
                                          r.entry->status == RolloutAppState::kHealthy);
    const bool spec_differs = spec_matters && r.desired &&
                              AppSpecDiffers(*r.desired, *r.live, ignore_application_differences_);
    const bool new_pin = r.entry && r.entry->target_revisions != r.live->revisions;
    AppStatusUpdate update = UpdateAppRolloutStatus(
        std::move(r.entry), *r.live, spec_differs,
        std::to_string(r.desired && r.step >= 0 ? r.step + 1 : -1), now,
        heals_drift_now_ && r.desired != nullptr,
        RevisionMemory{state_.generation + 1, RolledBack(state_, it->first)});
    delta.new_generation = delta.new_generation || update.changed;
    if (update.healed) delta.healed.push_back(name);
    if (update.drifted && !update.healed) delta.drifted.push_back(name);
    r.drift_reported = update.drifted && !update.healed;
    r.entry = std::move(update.entry);
    r.skipped = false;
    MarkFailedApp(*r.entry, *r.live, !new_pin && state_.skipped.count(name) > 0,
                  r.desired && r.step >= 0 && r.step < static_cast<int>(strategy_.steps.size())
                      ? &strategy_.steps[r.step]
                      : nullptr);
    if (auto s = state_.skipped.find(name); s != state_.skipped.end()) {
      if (new_pin) {
        state_.skipped.erase(s);
      } else {
        r.skipped = true;
        r.entry->message = "Application skipped: " + s->second;
      }
    }
  }
  if (r.drift_reported && r.live) {
    drifted_.insert(name);
  } else {
    r.drift_reported = false;
    drifted_.erase(name);
  }
  r.window_hold = r.live ? WindowHoldOf(r) : std::string();
  r.dirty = false;
  Index(name, r, +1);
}

void RolloutTracker::Promote(Time now, const std::vector<StepGate>& gates, bool halted) {
  // A pause, a failed step's halt or an abort (HaltedBefore) blocks promotions.
  if (state_.paused || halted) return;
  const int step_count = static_cast<int>(steps_.size());
  for (int round = 0; round <= step_count; ++round) {
    const Hold hold = FirstHold(gates);
    const int f = hold.step;
    if (f < 0 || hold.why == StepHold::kFailed || hold.why == StepHold::kAnalysisFailed) return;
    StepIndex& s = steps_[f];
    const auto budget = MaxUpdateLimit(strategy_.steps[f].max_update, s.live);
    long long updating = s.updating;
    bool completed_any = false;
    while (!s.waiting.empty() && (!budget || updating < *budget)) {
      auto it = records_.find(*s.waiting.begin());
      Record& r = it->second;
      Touch(it);
      Index(it->first, r, -1);
      PromoteEntry(*r.entry, *r.live, now);
      MarkFailedApp(*r.entry, *r.live, false, &strategy_.steps[f]);
      ++updating;
      completed_any = completed_any || r.entry->status == RolloutAppState::kHealthy;
      Index(it->first, r, +1);
    }
    // A step completed by promotion opens the next one in the same decision, as in Plan.
    if (!completed_any || FirstHold(gates).step == f) return;
  }
}

RolloutDelta RolloutTracker::Decide(Time now_in, bool observation_complete) {
  const Time now = TruncateToSeconds(now_in);
  const int open_before = open_step_;
  const bool listing_before = listing_;
  RolloutDelta delta;
  auto by_name = [](const Touched& a, const Touched& b) {
    return a.record->first < b.record->first;
  };
  // Drift is healed only while the revision is not held (DriftHealedNow). When a resume, or the
  // new revision of the last decision, ended a hold, the drift reported while held is healed in
  // this decision, as Plan, deciding every app, does.
  const bool heals_drift = DriftHealedNow(heal_drift_, state_);
  if (heals_drift && !heals_drift_now_) {
    for (std::string_view name : drifted_) MarkDirty(records_.find(name));
  }
  heals_drift_now_ = heals_drift;
  AdvanceWindowClock(now);
  std::sort(touched_.begin(), touched_.end(), by_name);
  for (const Touched& t : touched_) {
    if (t.record->second.dirty) Redecide(t.record, now, delta);
  }
  const std::vector<StepGate> gates = StepGates(strategy_, state_, delta.new_generation, now);
  Promote(now, gates, HaltedBefore(state_, delta.new_generation));
  delta.apps_decided = touched_.size();

  const Hold hold = FirstHold(gates);
  const int open = hold.step;
  Eligibility eligibility = EligibilityOfHold(open, hold.why, open >= 0 ? gates[open] : StepGate{});
  if (hold.why == StepHold::kFailed) {
    for (std::string_view name : steps_[open].failed) eligibility.failed_apps.emplace_back(name);
  }
  // [issue 29] A rollback reads every app only when it starts; while it runs, its own apps.
  RollbackInputs rollback;
  rollback.candidates = [this] {
    std::vector<RollbackCandidate> out;
    out.reserve(records_.size());
    for (const auto& [name, record] : records_) {
      if (record.entry) out.push_back({&*record.entry, record.live.get()});
    }
    return out;
  };
  rollback.live_of = [this](const std::string& app) -> const Application* {
    auto it = records_.find(app);
    return it == records_.end() ? nullptr : it->second.live.get();
  };
  RolloutOutcome outcome =
      FinishRollout(strategy_, state_, conditions_, config_issues_, delta.new_generation,
                    eligibility, now, observation_complete, &rollback);
  rollback_syncs_ = std::move(outcome.rollback_syncs);
  delta.rollback_syncs = rollback_syncs_;
  delta.rollout_changed = !(outcome.rollout == state_);
  WindowHeldApps held;
  held.step = open + 1;
  if (open >= 0 && !steps_[open].window_held.empty()) {
    const auto& in_step = steps_[open].window_held;
    held.count = static_cast<long long>(in_step.size());
    held.first = std::string(*in_step.begin());
    held.reason = records_.find(*in_step.begin())->second.window_hold;
  }
  outcome.conditions = WithSyncWindowCondition(std::move(outcome.conditions), held, now);
  delta.conditions_changed = !SameConditions(outcome.conditions, conditions_);
  state_ = std::move(outcome.rollout);
  conditions_ = std::move(outcome.conditions);
  step_deadline_ = outcome.step_deadline;
  delta.step_deadline = step_deadline_;
  soak_ends_at_ = outcome.soak_ends_at;
  delta.soak_ends_at = soak_ends_at_;
  delta.window_edge_at = window_clock_.next_edge();
  analysis_due_ = outcome.analysis_due;
  delta.analysis_due = analysis_due_;
  healed_ = delta.healed;
  open_step_ = open;
  // Plan's SelectSyncs: nothing is listed while paused, halted by a failed step or aborted.
  listing_ = !state_.paused && !RolloutHeld(state_);

  // Promotions appended to touched_: name order again for the delta.
  std::sort(touched_.begin(), touched_.end(), by_name);
  const bool same_list = open_before == open_step_ && listing_before == listing_;
  for (const Touched& t : touched_) {
    const Record& r = t.record->second;
    if (r.entry && (!t.before || *r.entry != *t.before)) {
      delta.changed_entries.push_back(*r.entry);
      delta.entries_before.push_back(t.before);
    }
    if (!r.entry && t.before) delta.removed_entries.push_back(t.record->first);
    if (same_list && Listed(r) && !r.listed_before) delta.syncs_to_start.push_back(t.record->first);
  }
  if (!same_list && listing_ && open_step_ >= 0) {
    // A new open step or the end of a pause: every listed app is new to the list but those
    // this decision touched that were listed before (an app moved into the open step).
    for (std::string_view name : steps_[open_step_].pending) {
      const Record& r = records_.find(name)->second;
      if (!(r.touched && r.listed_before)) delta.syncs_to_start.emplace_back(name);
    }
  }
  for (const Touched& t : touched_) {
    Record& r = t.record->second;
    r.touched = false;
    if (!r.desired && !r.live) records_.erase(t.record);
  }
  touched_.clear();
  return delta;
}

PlanResult RolloutTracker::Snapshot() const {
  PlanResult r;
  r.other_status = other_status_;
  r.application_status.reserve(records_.size());
  for (const auto& [name, record] : records_) {
    if (record.entry) r.application_status.push_back(*record.entry);
    const int step = record.desired && record.step >= 0 ? record.step + 1 : -1;
    r.steps.emplace_hint(r.steps.end(), name, step);
  }
  r.conditions = conditions_;
  r.rollout = state_;
  if (listing_ && open_step_ >= 0) {
    for (std::string_view name : steps_[open_step_].pending) {
      const Record& record = records_.find(name)->second;
      r.apps_to_sync.emplace_back(name);
      r.operations.emplace_hint(
          r.operations.end(), std::string(name),
          RolloutSyncOperation(DesiredSpecOf(*record.desired), record.entry->target_revisions));
    }
  }
  r.step_deadline = step_deadline_;
  r.soak_ends_at = soak_ends_at_;
  r.window_edge_at = window_clock_.next_edge();
  r.analysis_due = analysis_due_;
  r.drifted = Drifted();
  r.healed = healed_;
  r.rollback_syncs = rollback_syncs_;
  return r;
}

const AppRolloutStatus* RolloutTracker::EntryOf(const std::string& app) const {
  auto it = records_.find(app);
  return it == records_.end() || !it->second.entry ? nullptr : &*it->second.entry;
}

bool RolloutTracker::InSyncList(const std::string& app) const {
  auto it = records_.find(app);
  return it != records_.end() && !it->second.dirty && Listed(it->second);
}

std::vector<std::string> RolloutTracker::Drifted() const {
  return WithoutRolledBack({drifted_.begin(), drifted_.end()}, state_);
}

std::vector<RolloutStepCounts> RolloutTracker::StepCounts() const {
  std::vector<RolloutStepCounts> out;
  out.reserve(steps_.size());
  for (const StepIndex& s : steps_) {
    out.push_back({s.members, s.live, s.updating, s.incomplete,
                   static_cast<long long>(s.waiting.size()),
                   static_cast<long long>(s.pending.size())});
  }
  return out;
}

}  // namespace fleetwave::engine
