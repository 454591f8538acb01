// One cluster event on a large RollingSync set (issue 25): the CPU time RolloutTracker needs to
// decide on it, against Plan deciding the same event from scratch (the oracle, and what the daemon
// did per event before the tracker). One set of N apps over 5 `env` steps (2/8/20/30/40 % of the
// apps; maxUpdate unset / 25 % / 10 % / 10 / unset), mid-rollout at commit r2: steps 1-2 Healthy,
// step 3 a third Healthy, its maxUpdate budget Progressing, the rest Waiting; steps 4-5 Waiting.
// The events are a rollout's own: a Progressing app turns Healthy (its entry becomes Healthy and
// the freed budget promotes the next Waiting app), a promoted app's sync starts running, ends,
// and the app turns Healthy; one app changes per event, as one watch event does.
// Prints, per N: Plan's median per event, the tracker's median / p99 / max per event (thread CPU
// time, SetLive + Decide), the apps each decision touched, and the ratio. At the end both
// decisions are compared (FirstPlanDifference), so the figures are of equal work.
// Usage: rollout_tracker_bench [--events=K] [N...]   (default 2000 20000, K = 5000)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <string>
#include <vector>

#include "engine/appset/application.h"
#include "engine/appset/appset.h"
#include "engine/rollingsync/plan_difference.h"
#include "engine/rollingsync/rollout_plan.h"
#include "engine/rollingsync/rollout_tracker.h"
#include "engine/time.h"

namespace {

namespace engine = fleetwave::engine;
using engine::Json;
using State = engine::RolloutAppState;

const engine::Time kNow = *engine::ParseRfc3339("2026-03-01T12:00:00Z");

double ThreadCpuMicros() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

std::string Name(int i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "app-%06d", i);
  return buf;
}

int StepOf(int i) {
  const int p = i % 100;
  return p < 2 ? 1 : p < 10 ? 2 : p < 30 ? 3 : p < 60 ? 4 : 5;
}

engine::ApplicationSet Set() {
  engine::ApplicationSet set;
  set.file = "bench.yaml";
  set.name = "bench";
  set.strategy.type = "RollingSync";
  const std::optional<engine::IntOrString> max_update[] = {
      std::nullopt, engine::IntOrString{false, 0, "25%"}, engine::IntOrString{false, 0, "10%"},
      engine::IntOrString{true, 10, ""}, std::nullopt};
  for (int s = 1; s <= 5; ++s) {
    engine::RolloutStep step;
    step.match_expressions.push_back({"env", "In", {"e" + std::to_string(s)}, {}});
    step.max_update = max_update[s - 1];
    set.strategy.steps.push_back(std::move(step));
  }
  return set;
}

struct Fleet {
  engine::ApplicationSet set = Set();
  std::vector<engine::GeneratedApplication> desired;
  std::vector<engine::Application> live;
  engine::StoredRolloutStatus stored;
  std::vector<int> progressing;  // indices into live, in promotion order
};

Fleet Build(int n) {
  Fleet f;
  const long long step3 = (n * 20) / 100;
  const long long budget = std::max(1LL, step3 / 10);
  long long in_step3 = 0;
  for (int i = 0; i < n; ++i) {
    const std::string name = Name(i);
    const int step = StepOf(i);
    engine::GeneratedApplication g;
    g.name = name;
    g.labels = {{"env", "e" + std::to_string(step)}};
    g.object = {{"metadata", {{"name", name}, {"labels", g.labels}}},
                {"spec",
                 {{"project", "default"},
                  {"source",
                   {{"repoURL", "https://git.example/fleet.git"},
                    {"targetRevision", "main"},
                    {"path", "apps/guestbook"}}},
                  {"destination", {{"name", "cluster-" + std::to_string(i)}, {"namespace", "gb"}}},
                  {"syncPolicy", {{"automated", {{"enabled", false}}}}}}}};
    g.spec_fingerprint = engine::SpecFingerprint(g.object["spec"]);
    engine::Application a;
    a.name = name;
    a.labels = g.labels;
    a.spec = g.object["spec"];
    a.spec_fingerprint = g.spec_fingerprint;
    a.revisions = {"r2"};
    a.reconciled_at = kNow - std::chrono::seconds(30);
    engine::AppRolloutStatus e;
    e.application = name;
    e.step = std::to_string(step);
    e.target_revisions = {"r2"};
    e.last_transition_time = kNow - std::chrono::seconds(600);
    e.message = "earlier";
    State state = State::kWaiting;
    if (step < 3) state = State::kHealthy;
    if (step == 3) {
      const long long k = in_step3++;
      state = k < step3 / 3            ? State::kHealthy
              : k < step3 / 3 + budget ? State::kProgressing
                                       : State::kWaiting;
    }
    e.status = state;
    if (state == State::kHealthy || state == State::kProgressing) {
      a.sync_status = "Synced";
      a.health_status = state == State::kHealthy ? "Healthy" : "Progressing";
      a.operation_state =
          engine::OperationState{"Succeeded", kNow - std::chrono::seconds(500), Json::object()};
    } else {
      a.sync_status = "OutOfSync";
      a.health_status = "Healthy";
    }
    if (state == State::kProgressing) f.progressing.push_back(i);
    f.stored.application_status.push_back(std::move(e));
    f.desired.push_back(std::move(g));
    f.live.push_back(std::move(a));
  }
  f.stored.rollout.generation = 2;
  f.stored.rollout.step = 3;
  f.stored.rollout.step_started_at = kNow - std::chrono::seconds(600);
  f.stored.has_rollout = true;
  return f;
}

struct Figures {
  double median = 0, p99 = 0, max = 0;
};

Figures Summarise(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  Figures f;
  if (samples.empty()) return f;
  f.median = samples[samples.size() / 2];
  f.p99 = samples[std::min(samples.size() - 1, samples.size() * 99 / 100)];
  f.max = samples.back();
  return f;
}

// The stored status Plan would read back after a decision.
void Persist(engine::StoredRolloutStatus& stored, const engine::PlanResult& r) {
  stored.application_status = r.application_status;
  stored.conditions = r.conditions;
  stored.rollout = *r.rollout;
  stored.has_rollout = true;
}

int Run(int n, int events) {
  Fleet f = Build(n);
  engine::RolloutTracker tracker(f.set, f.stored, f.desired, f.live);
  tracker.Decide(kNow);  // the load: every app decided once
  engine::PlanResult last = engine::Plan(f.set, f.stored, f.desired, f.live, kNow);
  Persist(f.stored, last);

  // The rollout's own events, in the order they come: each Progressing app turns Healthy,
  // which frees budget for a promotion; each promoted app's sync then runs (Running), finishes
  // (Synced, Progressing) and turns Healthy, each step its own event.
  struct Due {
    int app;
    int phase;  // 0: its sync starts running, 1: the sync succeeded, 2: it turned Healthy
  };
  std::deque<Due> due;
  for (int i : f.progressing) due.push_back({i, 2});
  const int oracle_every = std::max(1, events / 20);  // Plan is O(N): time a sample of events
  std::vector<double> tracker_us, oracle_us;
  size_t touched = 0, syncs = 0;
  int e = 0;
  for (; e < events && !due.empty(); ++e) {
    const engine::Time now = kNow + std::chrono::seconds(1 + e);
    const Due d = due.front();
    due.pop_front();
    engine::Application& app = f.live[d.app];
    if (d.phase == 0) {
      app.operation_state = engine::OperationState{"Running", now, Json::object()};
    } else if (d.phase == 1) {
      app.operation_state->phase = "Succeeded";
      app.sync_status = "Synced";
      app.health_status = "Progressing";
    } else {
      app.health_status = "Healthy";
    }
    if (d.phase < 2) due.push_back({d.app, d.phase + 1});
    app.reconciled_at = now;
    engine::Application event = app;  // the informer's new object, built before the clock
    const double t0 = ThreadCpuMicros();
    tracker.SetLive(std::move(event));
    const engine::RolloutDelta delta = tracker.Decide(now);
    tracker_us.push_back(ThreadCpuMicros() - t0);
    touched += delta.apps_decided;
    syncs += delta.syncs_to_start.size();
    for (const auto& name : delta.syncs_to_start) due.push_back({std::atoi(name.c_str() + 4), 0});
    if (e % oracle_every == 0) {
      const double o0 = ThreadCpuMicros();
      last = engine::Plan(f.set, f.stored, f.desired, f.live, now);
      oracle_us.push_back(ThreadCpuMicros() - o0);
      Persist(f.stored, last);
    }
  }
  events = e;
  // The oracle skipped events in between, each of which changed one app at its own second;
  // replaying the last one from scratch is what the comparison needs.
  const auto difference = engine::FirstPlanDifference(
      engine::Plan(
          f.set,
          engine::StoredRolloutStatus{tracker.Snapshot().application_status, tracker.conditions(),
                                      tracker.rollout(), true, Json::object()},
          f.desired, f.live, kNow + std::chrono::seconds(events)),
      tracker.Snapshot());
  const Figures t = Summarise(tracker_us);
  const Figures o = Summarise(oracle_us);
  std::printf(
      "N=%6d events=%4d | Plan per event: median %9.1f us (%zu samples) | tracker per event: "
      "median %6.1f us, p99 %6.1f us, max %7.1f us | apps decided per event %.2f, syncs "
      "started %zu | Plan/tracker %.0fx | tracker agrees with Plan: %s\n",
      n, events, o.median, oracle_us.size(), t.median, t.p99, t.max,
      static_cast<double>(touched) / events, syncs, o.median / t.median,
      difference ? difference->c_str() : "yes");
  return difference ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  int events = 5000;
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--events=", 0) == 0) {
      events = std::atoi(arg.c_str() + 9);
    } else {
      sizes.push_back(std::atoi(arg.c_str()));
    }
  }
  if (sizes.empty()) sizes = {2000, 20000};
  int rc = 0;
  for (int n : sizes) rc |= Run(n, events);
  return rc;
}
