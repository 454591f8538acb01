// The differential check of issue 25: a seeded random sequence of the facts a daemon sees
// (health and sync flaps, syncs running and finishing or failing, new commits, spec and label
// changes, apps created and deleted, drift (a sync flap of a Healthy app) healed or only
// reported while an abort or a halt holds the revision, pause, abort, resume (of a halted
// rollout too), skip, time passing, restarts from the stored status with observation
// incomplete) is fed to a RolloutTracker one event at a time, and after every event its decision
// must equal Plan's over the same apps with Plan's previous decision as the stored status. The
// delta must say exactly what changed (entries, removals, new syncs). Steps get failure budgets
// and soaks (issue 29) at random, so halts and soak clocks are compared too, and Prometheus
// analyses whose measurements (passing or failing) the world takes when a decision asks for one,
// and rollbacks (a failed step's onFailure: Rollback, an operator's) whose syncs back the world
// runs.
// Used by rollout_tracker_differential_test.cc (fixed seeds, in CI) and
// bench/rollout_differential.cc (many seeds).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine/appset/app_project.h"
#include "engine/appset/application.h"
#include "engine/appset/appset.h"
#include "engine/appset/generate.h"
#include "engine/rollingsync/plan_difference.h"
#include "engine/rollingsync/rollout_plan.h"
#include "engine/rollingsync/rollout_safety.h"
#include "engine/rollingsync/rollout_tracker.h"
#include "engine/rollingsync/rollout_windows.h"
#include "engine/time.h"

namespace fleetwave::engine::differential {

struct DifferentialRun {
  std::optional<std::string> divergence;  // the first one, with the events that led to it
  long long decisions = 0;
  long long promotions = 0;       // entries that became Pending: the run exercised the rollout
  long long completions = 0;      // decisions after which every step was complete
  long long halted = 0;           // decisions after which a failed step halted the rollout
  long long soaking = 0;          // decisions after which a step soaked
  long long resumed_halts = 0;    // resumes of a rollout a failed step had halted
  long long aborts = 0;           // operator aborts of a rollout not aborted yet
  long long aborted = 0;          // decisions after which the rollout was aborted
  long long analysing = 0;        // decisions that asked for an analysis measurement
  long long measurements = 0;     // measurements taken and recorded
  long long analysis_failed = 0;  // decisions after which a failed analysis halted
  // Decisions after which a set that heals drift had drift only reported because an abort or a
  // failed step's halt held its revision (DriftHealedNow)...
  long long drift_held = 0;
  // ...and decisions that healed drift right after such a hold ended (a resume, a new commit).
  long long drift_healed_after_hold = 0;
  // Issue 29: decisions after which a sync window held apps of the open step, and decisions
  // that listed a sync right after such a hold ended (the window's edge passed).
  long long window_held = 0;
  long long window_released = 0;
  // Issue 29: rollbacks started (a failed step's or an operator's), decisions while one ran
  // (and of those, ones that listed syncs back) and after one finished.
  long long rollbacks = 0;
  long long rolling_back = 0;
  long long rollback_syncs = 0;
  long long rolled_back = 0;
  long long apps_returned = 0;  // apps a sync back returned (RolledBack)
};

class World {
 public:
  explicit World(uint64_t seed) : rng_(seed) {
    now_ = *ParseRfc3339("2026-03-01T12:00:00Z");
    set_.file = "set.yaml";
    set_.name = "set";
    set_.strategy.type = "RollingSync";
    const int steps = Pick(1, 4);
    for (int s = 0; s < steps; ++s) {
      RolloutStep step;
      step.match_expressions.push_back({"env", "In", {"e" + std::to_string(s)}, {}});
      switch (Pick(0, 7)) {
        case 0:
          step.max_update = IntOrString{true, 0, ""};
          break;
        case 1:
          step.max_update = IntOrString{true, 1, ""};
          break;
        case 2:
          step.max_update = IntOrString{true, 2, ""};
          break;
        case 3:
          step.max_update = IntOrString{false, 0, "50%"};
          break;
        case 4:
          step.max_update = IntOrString{false, 0, "0%"};
          break;
        case 5:
          step.max_update = IntOrString{false, 0, "10%"};
          break;
        default:
          break;  // unlimited
      }
      if (Pick(0, 2) == 0) step.progress_deadline_seconds = Pick(30, 300);
      // Issue 29: failure budgets and soaks (the flaps and failed syncs below make apps fail).
      switch (Pick(0, 4)) {
        case 0:
          step.max_failures = IntOrString{true, 0, ""};
          break;
        case 1:
          step.max_failures = IntOrString{true, 1, ""};
          break;
        case 2:
          step.max_failures = IntOrString{false, 0, "34%"};
          break;
        default:
          break;  // no budget
      }
      // A failed step of a budget rolls back (issue 29) at random.
      if (step.max_failures && Pick(0, 1) == 0) step.on_failure = RolloutStep::OnFailure::kRollback;
      if (Pick(0, 2) == 0) step.min_success_seconds = Pick(5, 120);
      if (Pick(0, 3) == 0) {
        AnalysisSpec a;
        a.query = "q" + std::to_string(s);
        a.success.written = "< 0.5";
        a.interval_seconds = Pick(5, 60);
        a.count = Pick(1, 3);
        a.failure_limit = Pick(0, 2);
        step.analysis = a;
      }
      set_.strategy.steps.push_back(std::move(step));
    }
    const int policy = Pick(0, 2);
    set_.drift_policy = policy == 0 ? "" : policy == 1 ? "heal" : "report";
    const int apps = Pick(3, 24);
    for (int i = 0; i < apps; ++i) AddDesired();
    for (const auto& [name, d] : desired_) {
      if (Pick(0, 4) > 0) CreateLive(name);
    }
    // Issue 29: a sync window on the apps' project, every few minutes for a minute or two, so
    // that holds start and end while the events run (Step moves the clock by up to 20 s).
    if (Pick(0, 2) == 0) AddSyncWindow();
  }

  DifferentialRun Run(int events) {
    DifferentialRun run;
    tracker_.emplace(set_, stored_, DesiredVector(), LiveVector());
    if (!Decide(run, "load")) return run;
    for (int e = 0; e < events && !run.divergence; ++e) Step(run);
    return run;
  }

 private:
  int Pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  template <typename Map>
  std::string Any(const Map& map) {
    auto it = map.begin();
    std::advance(it, Pick(0, static_cast<int>(map.size()) - 1));
    return it->first;
  }

  std::string Env() {
    const int s = Pick(0, static_cast<int>(set_.strategy.steps.size()));  // one past: no step
    return "e" + std::to_string(s == static_cast<int>(set_.strategy.steps.size()) ? 9 : s);
  }

  Json SpecFor(const std::string& name, int version) {
    return {{"project", "default"},
            {"source",
             {{"repoURL", "https://git.example/r.git"},
              {"targetRevision", "main"},
              {"path", "apps/" + name},
              {"helm", {{"parameters", Json::array({{{"name", "v"}, {"value", version}}})}}}}},
            {"destination", {{"name", name}, {"namespace", "default"}}}};
  }

  void PutDesired(const std::string& name, const std::string& env, int version) {
    GeneratedApplication g;
    g.name = name;
    g.labels = {{"env", env}};
    g.object = {{"metadata", {{"name", name}, {"labels", g.labels}}},
                {"spec", SpecFor(name, version)}};
    g.spec_fingerprint = SpecFingerprint(g.object["spec"]);
    desired_[name] = std::move(g);
  }

  void AddDesired() {
    char name[16];
    std::snprintf(name, sizeof name, "app-%03d", next_app_++);
    PutDesired(name, Env(), 1);
  }

  // The Application as the appset controller writes it: the desired spec, OutOfSync at the
  // current commit.
  void CreateLive(const std::string& name) {
    Application a;
    a.name = name;
    a.labels = desired_[name].labels;
    a.spec = desired_[name].object["spec"];
    a.spec_fingerprint = SpecFingerprint(a.spec);
    a.sync_status = "OutOfSync";
    a.health_status = Pick(0, 1) ? "Missing" : "Progressing";
    a.revisions = {Commit()};
    a.reconciled_at = now_;
    live_[name] = std::move(a);
    changed_live_.insert(name);
  }

  static bool HasWindowHold(const PlanResult& r) {
    for (const auto& c : r.conditions) {
      if (c.type == kSyncWindowHoldCondition) return true;
    }
    return false;
  }

  void AddSyncWindow() {
    SyncWindow w;
    w.deny = Pick(0, 2) > 0;
    w.schedule_text = Pick(0, 1) ? "*/3 * * * *" : "*/5 * * * *";
    std::string why;
    w.schedule = *ParseCron(w.schedule_text, &why);
    w.duration_seconds = Pick(30, 150);
    w.duration_text = std::to_string(w.duration_seconds) + "s";
    if (Pick(0, 1)) {
      w.applications = {"app-00*"};
    } else {
      w.namespaces = {"default"};
    }
    auto projects = std::make_shared<AppProjects>();
    AppProject p;
    p.name = "default";
    p.sync_windows.push_back(std::move(w));
    projects->projects.push_back(std::move(p));
    set_.projects = std::move(projects);
  }

  std::string Commit() const { return "r" + std::to_string(commit_); }

  std::vector<GeneratedApplication> DesiredVector() const {
    std::vector<GeneratedApplication> out;
    for (const auto& [name, d] : desired_) out.push_back(d);
    return out;
  }
  std::vector<Application> LiveVector() const {
    std::vector<Application> out;
    for (const auto& [name, a] : live_) out.push_back(a);
    return out;
  }

  void LiveChanged(const std::string& name) { changed_live_.insert(name); }

  // The apps the last decision lists to sync, and those with an operation running.
  std::string Listed() {
    const auto& list = last_.apps_to_sync;
    return list[Pick(0, static_cast<int>(list.size()) - 1)];
  }

  void Step(DifferentialRun& run) {
    now_ += std::chrono::seconds(Pick(0, 3) == 0 ? 0 : Pick(1, 20));
    std::string what;
    // The daemon takes the measurement a decision asked for, once it is due (issue 29): often,
    // so that analyses pass and fail as steps complete.
    if (last_.analysis_due && last_.analysis_due->due <= now_ && Pick(0, 3) > 0) {
      Measure(run);
      if (!run.divergence) Decide(run, last_measurement_);
      return;
    }
    switch (Pick(0, 18)) {
      case 0:
      case 1: {  // health or sync of one app flaps
        if (live_.empty()) break;
        const std::string name = Any(live_);
        static const char* kHealth[] = {"Healthy", "Progressing", "Degraded", "Missing", "Unknown"};
        static const char* kSync[] = {"Synced", "OutOfSync", "Unknown"};
        live_[name].health_status = kHealth[Pick(0, 4)];
        if (Pick(0, 1)) live_[name].sync_status = kSync[Pick(0, 2)];
        live_[name].reconciled_at = now_;
        LiveChanged(name);
        what = "flap " + name + " " + live_[name].sync_status + "/" + live_[name].health_status;
        break;
      }
      case 2:
      case 3:
      case 4: {  // a listed sync (or a rollback's sync back) starts running
        const auto& back = last_.rollback_syncs;
        if (last_.apps_to_sync.empty() && back.empty()) break;
        const RollbackSync* sync_back =
            !back.empty() && (last_.apps_to_sync.empty() || Pick(0, 1) == 0)
                ? &back[Pick(0, static_cast<int>(back.size()) - 1)]
                : nullptr;
        const std::string name = sync_back ? sync_back->app : Listed();
        if (!live_.count(name)) break;
        Application& a = live_[name];
        a.operation_state =
            OperationState{"Running", now_, sync_back ? sync_back->operation : Json::object()};
        a.reconciled_at = now_;
        LiveChanged(name);
        what = "sync running " + name;
        break;
      }
      case 5:
      case 6:
      case 7: {  // a running sync ends
        std::vector<std::string> running;
        for (const auto& [name, a] : live_) {
          if (a.operation_state && a.operation_state->phase == "Running") running.push_back(name);
        }
        if (running.empty()) break;
        const std::string name = running[Pick(0, static_cast<int>(running.size()) - 1)];
        Application& a = live_[name];
        const bool ok = Pick(0, 4) > 0;
        a.operation_state->phase = ok ? "Succeeded" : "Failed";
        if (ok) {
          a.sync_status = "Synced";
          a.health_status = Pick(0, 2) > 0 ? "Healthy" : "Progressing";
        }
        a.reconciled_at = now_;
        LiveChanged(name);
        what = std::string("sync ") + (ok ? "succeeded " : "failed ") + name;
        break;
      }
      case 8:
      case 9: {  // a Progressing app turns Healthy
        for (auto& [name, a] : live_) {
          if (a.health_status == "Progressing" && a.sync_status == "Synced") {
            a.health_status = "Healthy";
            a.reconciled_at = now_;
            LiveChanged(name);
            what = "healthy " + name;
            break;
          }
        }
        break;
      }
      case 10: {  // a new commit: the apps see it and go OutOfSync
        ++commit_;
        for (auto& [name, a] : live_) {
          if (Pick(0, 5) == 0) continue;  // not every app has compared yet
          a.revisions = {Commit()};
          a.sync_status = "OutOfSync";
          a.reconciled_at = now_;
          LiveChanged(name);
        }
        what = "commit " + Commit();
        break;
      }
      case 11: {  // the desired spec or step of an app changes, or apps come and go
        if (desired_.empty()) break;
        const std::string name = Any(desired_);
        const int kind = Pick(0, 3);
        if (kind == 0) {
          PutDesired(name, desired_[name].labels["env"], ++version_);
          what = "spec of " + name;
        } else if (kind == 1) {
          PutDesired(name, Env(), version_);
          what = "label of " + name + " now " + desired_[name].labels["env"];
        } else if (kind == 2) {
          AddDesired();
          what = "new desired app";
        } else {
          desired_.erase(name);
          what = "no longer generated " + name;
        }
        desired_changed_ = true;
        if (!Decide(run, what)) return;
        // The daemon writes the new spec with the decision: the Application catches up.
        for (auto& [app, a] : live_) {
          auto d = desired_.find(app);
          if (d == desired_.end() || a.spec == d->second.object["spec"]) continue;
          a.spec = d->second.object["spec"];
          a.spec_fingerprint = SpecFingerprint(a.spec);
          a.sync_status = "OutOfSync";
          LiveChanged(app);
        }
        what = "specs written";
        break;
      }
      case 12: {  // an Application is created or deleted
        std::vector<std::string> missing;
        for (const auto& [name, d] : desired_) {
          if (!live_.count(name)) missing.push_back(name);
        }
        if (!missing.empty() && Pick(0, 2) > 0) {
          const std::string name = missing[Pick(0, static_cast<int>(missing.size()) - 1)];
          CreateLive(name);
          what = "created " + name;
        } else if (!live_.empty()) {
          const std::string name = Any(live_);
          live_.erase(name);
          removed_live_.insert(name);
          changed_live_.erase(name);
          what = "deleted " + name;
        }
        break;
      }
      case 13:
        if (Pick(0, 3) == 0) {  // issue 29: an operator's abort
          if (!stored_.rollout.aborted) ++run.aborts;
          AbortRollout(stored_.rollout, now_, "operator");
          tracker_->Abort(now_, "operator");
          what = "abort";
        } else if (Pick(0, 4) == 0) {  // issue 29: an operator's rollback
          const std::string to = Pick(0, 2) == 0 ? "v1" : "";
          RequestRollback(stored_.rollout, now_, "operator", to);
          tracker_->RequestRollback(now_, "operator", to);
          what = "rollback" + (to.empty() ? std::string() : " to " + to);
        } else if (Pick(0, 1)) {
          PauseRollout(stored_.rollout, now_);
          tracker_->Pause(now_);
          what = "pause";
        } else {
          if (RolloutHalted(stored_.rollout)) ++run.resumed_halts;
          ResumeRollout(stored_.rollout, now_);
          tracker_->Resume(now_);
          what = "resume";
        }
        break;
      case 14: {
        if (live_.empty()) break;
        const std::string name = Any(live_);
        SkipApplication(stored_.rollout, name, "flaky");
        tracker_->Skip(name, "flaky");
        what = "skip " + name;
        break;
      }
      case 15:
        now_ += std::chrono::seconds(Pick(30, 400));
        what = "time passes";
        break;
      case 16: {  // a restart: load from the stored status; the clusters are not observed yet
        Flush();
        tracker_.emplace(set_, stored_, DesiredVector(), LiveVector());
        unobserved_decisions_ = Pick(0, 2);
        just_loaded_ = true;
        what = "restart";
        break;
      }
      case 17: {  // drift: another tool changes a Healthy app's live objects at its pin
        std::vector<std::string> healthy;
        for (const auto& e : last_.application_status) {
          auto it = live_.find(e.application);
          if (e.status == RolloutAppState::kHealthy && it != live_.end() &&
              it->second.sync_status == "Synced" && it->second.revisions == e.target_revisions) {
            healthy.push_back(e.application);
          }
        }
        if (healthy.empty()) break;
        const std::string name = healthy[Pick(0, static_cast<int>(healthy.size()) - 1)];
        live_[name].sync_status = "OutOfSync";
        live_[name].reconciled_at = now_;
        LiveChanged(name);
        what = "drift " + name;
        break;
      }
      default:
        what = "nothing";
        break;
    }
    if (what.empty()) what = "no-op";
    Decide(run, what);
  }

  void Measure(DifferentialRun& run) {
    AnalysisMeasurement m;
    m.at = now_;
    if (Pick(0, 9) == 0) {
      m.error = "Prometheus did not answer";  // never a pass
    } else {
      const bool passes = Pick(0, 5) > 0;
      m.value = passes ? 0.1 : 0.9;
      m.passed = passes;
    }
    const bool stored = RecordAnalysisMeasurement(stored_.rollout, *last_.analysis_due, m);
    const bool tracked = tracker_->RecordMeasurement(*last_.analysis_due, m);
    if (stored != tracked) {
      run.divergence = "a measurement was recorded by one decider only";
      return;
    }
    if (stored) ++run.measurements;
    last_measurement_ = std::string("measured ") + (m.passed ? "pass" : "fail");
  }

  // Hands the changed facts to the tracker (not after a restart: the load took them).
  void Flush() {
    if (desired_changed_) tracker_->SetDesired(DesiredVector());
    for (const auto& name : removed_live_) tracker_->RemoveLive(name);
    for (const auto& name : changed_live_) {
      if (auto it = live_.find(name); it != live_.end()) tracker_->SetLive(it->second);
    }
    desired_changed_ = false;
    removed_live_.clear();
    changed_live_.clear();
  }

  bool Decide(DifferentialRun& run, const std::string& what) {
    history_.push_back(FormatRfc3339(now_) + " " + what);
    if (history_.size() > 8) history_.erase(history_.begin());
    Flush();
    const bool observed = unobserved_decisions_ == 0;
    if (unobserved_decisions_ > 0) --unobserved_decisions_;
    const PlanResult oracle = Plan(set_, stored_, DesiredVector(), LiveVector(), now_, observed);
    const RolloutDelta delta = tracker_->Decide(now_, observed);
    const PlanResult actual = tracker_->Snapshot();
    ++run.decisions;
    std::optional<std::string> difference = FirstPlanDifference(oracle, actual);
    if (!difference) difference = CheckDelta(delta, oracle);
    if (difference) {
      std::string events;
      for (const auto& h : history_) events += "\n  " + h;
      run.divergence = *difference + "\nafter:" + events;
      return false;
    }
    for (const auto& e : delta.changed_entries) {
      if (e.status == RolloutAppState::kPending) ++run.promotions;
    }
    if (oracle.rollout && oracle.rollout->step == 0) ++run.completions;
    if (oracle.rollout && oracle.rollout->failed_step != 0) ++run.halted;
    if (oracle.soak_ends_at) ++run.soaking;
    if (oracle.analysis_due) ++run.analysing;
    if (oracle.rollout && oracle.rollout->failed_step != 0 && oracle.rollout->failed_apps.empty())
      ++run.analysis_failed;
    if (oracle.rollout && oracle.rollout->aborted) ++run.aborted;
    if (oracle.rollout && oracle.rollout->rollback) {
      const auto& rb = *oracle.rollout->rollback;
      if (!RollbackStarted(last_.rollout ? last_.rollout->rollback : std::nullopt, rb).empty()) {
        ++run.rollbacks;
      }
      if (rb.finished_at) {
        ++run.rolled_back;
      } else {
        ++run.rolling_back;
      }
      if (!oracle.rollback_syncs.empty()) ++run.rollback_syncs;
      for (const auto& a : rb.apps) {
        if (a.phase == RollbackAppPhase::kRolledBack && a.since == now_) ++run.apps_returned;
      }
    }
    const bool held = HasWindowHold(oracle);
    if (held) ++run.window_held;
    if (!held && HasWindowHold(last_) && !delta.syncs_to_start.empty()) ++run.window_released;
    if (RollingSyncHealsDrift(set_) && oracle.rollout && RolloutHeld(*oracle.rollout) &&
        !oracle.drifted.empty()) {
      ++run.drift_held;
    }
    if (last_.rollout && RolloutHeld(*last_.rollout) && !oracle.healed.empty()) {
      ++run.drift_healed_after_hold;
    }
    just_loaded_ = false;
    last_ = oracle;
    stored_.application_status = oracle.application_status;
    stored_.conditions = oracle.conditions;
    stored_.rollout = *oracle.rollout;
    stored_.has_rollout = true;
    return true;
  }

  // The delta is exactly the difference between the last decision and this one.
  std::optional<std::string> CheckDelta(const RolloutDelta& delta, const PlanResult& now) const {
    std::map<std::string, AppRolloutStatus> before, after;
    for (const auto& e : last_.application_status) before[e.application] = e;
    for (const auto& e : now.application_status) after[e.application] = e;
    std::vector<std::string> changed, removed, changed_delta, removed_delta;
    for (const auto& [app, e] : after) {
      auto it = before.find(app);
      if (it == before.end() || !(it->second == e)) changed.push_back(app);
    }
    for (const auto& [app, e] : before) {
      if (!after.count(app)) removed.push_back(app);
    }
    for (const auto& e : delta.changed_entries) changed_delta.push_back(e.application);
    removed_delta = delta.removed_entries;
    if (changed != changed_delta) {
      return "delta.changed_entries: expected " + Json(changed).dump() + ", got " +
             Json(changed_delta).dump();
    }
    if (removed != removed_delta) {
      return "delta.removed_entries: expected " + Json(removed).dump() + ", got " +
             Json(removed_delta).dump();
    }
    // After a load every listed app is new to the tracker: the caller checks each one's
    // operation record (a restart resumes, never repeats, a sync).
    std::vector<std::string> joined;
    std::set<std::string> was;
    if (!just_loaded_) was.insert(last_.apps_to_sync.begin(), last_.apps_to_sync.end());
    for (const auto& app : now.apps_to_sync) {
      if (!was.count(app)) joined.push_back(app);
    }
    if (joined != delta.syncs_to_start) {
      return "delta.syncs_to_start: expected " + Json(joined).dump() + ", got " +
             Json(delta.syncs_to_start).dump();
    }
    return std::nullopt;
  }

  std::mt19937_64 rng_;
  Time now_;
  ApplicationSet set_;
  std::map<std::string, GeneratedApplication> desired_;
  std::map<std::string, Application> live_;
  StoredRolloutStatus stored_;
  PlanResult last_;
  std::optional<RolloutTracker> tracker_;
  std::set<std::string> changed_live_, removed_live_;
  bool desired_changed_ = false;
  bool just_loaded_ = true;
  int next_app_ = 0, commit_ = 1, version_ = 1, unobserved_decisions_ = 0;
  std::vector<std::string> history_;
  std::string last_measurement_;
};

inline DifferentialRun RunDifferential(uint64_t seed, int events) {
  World world(seed);
  return world.Run(events);
}

}  // namespace fleetwave::engine::differential
