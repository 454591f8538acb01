// The daemon's reconcile of one ApplicationSet (issue 18): the appset actor calls
// engine::ReconcileAppSet for the whole set on every cluster update, so its cost per app bounds
// the set sizes the daemon keeps up with. One RollingSync set of N apps over 5 steps selected
// by an `env` label (2/8/20/30/40 % of the apps, mixed maxUpdate), mid-rollout (step 3 in
// flight), each app observed as the daemon holds it: a generated Application with its spec
// fingerprint, a rendered Deployment and Service (shared), their live projections carrying
// fleetwave's managed fields as after a server-side apply, live health, and the store's spec
// and operation record. The input is primed by one reconcile whose result is persisted, so the
// timed reconcile is the steady state of a cluster update: nothing to start, nothing to log.
// Reports the median CPU time of one ReconcileAppSet (inputs built outside the timed region),
// the cost per app, and its ratio to the per-app cost at N=100 (1.0 = linear).
// The observations keep the comparison of rendered and live objects the previous reconcile
// made (ObservedApp::compared), as the daemon's do for apps whose objects did not change;
// --cold drops every one before each run, so each reconcile compares every object again (the
// daemon's first reconcile, or every app's live objects changed).
// Then the same set's event through engine::RollingSyncDecider (issue 25), as the appset actor
// decides one between gathers: seeded from the primed state, one app's live health flips
// (Healthy -> Progressing, the next event back), and Decide runs on that app alone. Reports its
// median CPU time (the observation's take and put included) and the ratio of the full
// reconcile to it.
// Linked with the daemon's allocator (jemalloc where the build finds it); the first line says
// which.
// Usage: reconcile_bench [--cold] [--runs=K] [N...]  (default 100 1000 2000 20000)
#include <valgrind/callgrind.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/appset/application.h"
#include "engine/appset/appset.h"
#include "engine/appset/render.h"
#include "engine/live_object.h"
#include "engine/rollingsync/appset_decider.h"
#include "engine/rollingsync/appset_reconcile.h"
#include "engine/rollingsync/rollout_plan.h"
#include "engine/sync/operation_record.h"
#include "engine/sync/sync_operation.h"
#include "engine/time.h"

namespace {

using fleetwave::engine::Json;
namespace engine = fleetwave::engine;

constexpr const char* kSet = "bench";
const engine::Time kNow = *engine::ParseRfc3339("2026-03-01T12:00:00Z");
const engine::Time kStepStarted = *engine::ParseRfc3339("2026-03-01T11:50:00Z");
const engine::Time kSyncedAt = *engine::ParseRfc3339("2026-03-01T11:00:00Z");

std::string Name(int i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "app-%06d", i);
  return buf;
}

// Step of app i (1-based): 2/8/20/30/40 % of the apps, interleaved over the names.
int StepOf(int i) {
  const int p = i % 100;
  return p < 2 ? 1 : p < 10 ? 2 : p < 30 ? 3 : p < 60 ? 4 : 5;
}

engine::ApplicationSet RollingSet() {
  engine::ApplicationSet set;
  set.file = "bench.yaml";
  set.name = kSet;
  set.namespace_ = "argocd";
  set.strategy.type = "RollingSync";
  const std::optional<engine::IntOrString> max_update[] = {
      std::nullopt, engine::IntOrString{false, 0, "25%"}, engine::IntOrString{true, 10, ""},
      engine::IntOrString{false, 0, "10%"}, std::nullopt};
  for (int s = 1; s <= 5; ++s) {
    engine::RolloutStep step;
    step.match_expressions.push_back({"env", "In", {"e" + std::to_string(s)}, {}});
    step.max_update = max_update[s - 1];
    set.strategy.steps.push_back(std::move(step));
  }
  return set;
}

// The Application the cluster generator's template yields for app i.
engine::GeneratedApplication Generated(int i) {
  engine::GeneratedApplication g;
  g.name = Name(i);
  g.cluster = "cluster-" + std::to_string(i);
  g.labels = {{"env", "e" + std::to_string(StepOf(i))}, {"team", "web"}};
  const Json spec = {
      {"project", "default"},
      {"source",
       {{"repoURL", "https://git.example/fleet.git"},
        {"path", "apps/guestbook"},
        {"targetRevision", "main"}}},
      {"destination",
       {{"server", "https://" + g.cluster + ".example:6443"}, {"namespace", "guestbook"}}},
      {"syncPolicy",
       {{"syncOptions", {"CreateNamespace=true", "ServerSideApply=true"}},
        {"retry", {{"limit", 3}, {"backoff", {{"duration", "5s"}, {"factor", 2}}}}}}}};
  g.object = {{"apiVersion", "argoproj.io/v1alpha1"},
              {"kind", "Application"},
              {"metadata",
               {{"name", g.name},
                {"namespace", "argocd"},
                {"labels", g.labels},
                {"finalizers", {"resources-finalizer.argocd.argoproj.io"}}}},
              {"spec", spec}};
  g.spec_fingerprint = engine::SpecFingerprint(spec);
  return g;
}

// The app's objects at a commit whose content is `image`: a Deployment and its Service.
std::vector<engine::RenderedObject> RenderAt(const std::string& app, const std::string& image) {
  engine::RenderInput in;
  in.app = {kSet, app};
  in.destination_namespace = "guestbook";
  const Json deployment = {
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata", {{"name", "web"}, {"labels", {{"app", "web"}}}}},
      {"spec",
       {{"replicas", 2},
        {"selector", {{"matchLabels", {{"app", "web"}}}}},
        {"template",
         {{"metadata", {{"labels", {{"app", "web"}}}}},
          {"spec",
           {{"containers",
             {{{"name", "ui"},
               {"image", image},
               {"ports", {{{"containerPort", 80}}}},
               {"resources", {{"requests", {{"cpu", "100m"}, {"memory", "64Mi"}}}}}}}}}}}}}}};
  const Json service = {{"apiVersion", "v1"},
                        {"kind", "Service"},
                        {"metadata", {{"name", "web"}}},
                        {"spec",
                         {{"selector", {{"app", "web"}}},
                          {"ports", {{{"port", 80}, {"targetPort", 80}, {"protocol", "TCP"}}}}}}};
  in.manifests.push_back({"apps/guestbook/web.yaml:1:1", deployment});
  in.manifests.push_back({"apps/guestbook/web.yaml:30:1", service});
  return engine::Render(in).objects;
}

// The fieldsV1 a server-side apply of `value` records: every field, list items of objects by
// their key (name, or port/protocol), lists of scalars atomic.
Json FieldsOf(const Json& value) {
  Json out = Json::object();
  if (!value.is_object()) return out;
  for (auto it = value.begin(); it != value.end(); ++it) {
    const Json& v = it.value();
    Json f = Json::object();
    if (v.is_object()) {
      f = FieldsOf(v);
    } else if (v.is_array() && !v.empty() && v.front().is_object()) {
      for (const auto& item : v) {
        Json key = item.contains("name") ? Json{{"name", item["name"]}}
                   : item.contains("port")
                       ? Json{{"port", item["port"]}, {"protocol", item.value("protocol", "TCP")}}
                       : Json{{"containerPort", item.value("containerPort", 0)}};
        Json fi = FieldsOf(item);
        fi["."] = Json::object();
        f["k:" + key.dump()] = std::move(fi);
      }
    }
    out["f:" + it.key()] = std::move(f);
  }
  return out;
}

// What the cluster actor holds for `applied` once the API server stored it: the object plus
// server fields, fleetwave's Apply entry and another manager's, projected.
engine::LiveObject LiveOf(const engine::RenderedObject& applied, int i) {
  Json live = applied.object;
  Json& metadata = live["metadata"];
  metadata["resourceVersion"] = std::to_string(1000 + i);
  metadata["generation"] = 3;
  metadata["uid"] = "uid-" + std::to_string(i) + "-" + applied.ref.kind;
  metadata["creationTimestamp"] = "2026-02-01T10:00:00Z";
  metadata["managedFields"] =
      Json::array({{{"manager", "fleetwave"},
                    {"operation", "Apply"},
                    {"apiVersion", applied.object["apiVersion"]},
                    {"fieldsType", "FieldsV1"},
                    {"fieldsV1", FieldsOf(applied.object)}},
                   {{"manager", "kube-controller-manager"},
                    {"operation", "Update"},
                    {"subresource", "status"},
                    {"fieldsV1", {{"f:status", {{"f:replicas", Json::object()}}}}}}});
  if (applied.ref.kind == "Deployment") {
    live["spec"]["strategy"] = {{"type", "RollingUpdate"}};
    live["status"] = {{"observedGeneration", 3}, {"replicas", 2}, {"readyReplicas", 2}};
  } else {
    live["spec"]["clusterIP"] = "10.0.0." + std::to_string(i % 250);
    live["spec"]["type"] = "ClusterIP";
  }
  return engine::ProjectLiveObject(live);
}

engine::OperationRecord Operation(const engine::GeneratedApplication& g, const std::string& rev,
                                  const std::vector<engine::RenderedObject>& objects,
                                  bool running) {
  engine::OperationRecord op;
  op.id = "rollout-" + g.name + "-" + rev;
  op.revisions = {rev};
  op.operation = engine::BuildAutomatedSyncOperation(g.object["spec"], op.revisions, false);
  op.phase = running ? engine::OperationPhase::kRunning : engine::OperationPhase::kSucceeded;
  op.started_at = running ? kStepStarted : kSyncedAt;
  if (!running) {
    op.finished_at = kSyncedAt + std::chrono::seconds(20);
    for (const auto& o : objects) {
      op.results.push_back({o.ref, engine::ObjectResultCode::kSynced, "configured"});
    }
  }
  return op;
}

// The set mid-rollout: steps 1-2 done at r2, step 3 in flight (a third Healthy at r2, a third
// Progressing with its sync running, a third Pending or Waiting at r1), steps 4-5 Waiting at
// r1. Every app was synced once at r1, so the store holds its spec and an operation.
engine::AppSetReconcileInput BuildInput(const engine::ApplicationSet& set, int n) {
  engine::AppSetReconcileInput in;
  in.appset = &set;
  in.now = kNow;
  in.stored.has_rollout = true;
  in.stored.rollout.generation = 1;
  in.stored.rollout.step = 3;
  in.stored.rollout.step_started_at = kStepStarted;
  in.apps.reserve(n);
  for (int i = 0; i < n; ++i) {
    const int step = StepOf(i);
    const int third = i % 3;
    const bool at_r2 = step < 3 || (step == 3 && third == 0);
    const bool running = step == 3 && third == 1;
    engine::ObservedApp o;
    o.desired = Generated(i);
    o.revisions = {"r2"};
    o.rendered = std::make_shared<const std::vector<engine::RenderedObject>>(
        RenderAt(o.desired.name, "ui:2"));
    const auto live_objects = at_r2 ? *o.rendered : RenderAt(o.desired.name, "ui:1");
    for (const auto& l : live_objects) {
      o.live.push_back(LiveOf(l, i));
      o.live_health[l.ref] = {
          running ? engine::HealthCode::kProgressing : engine::HealthCode::kHealthy, ""};
    }
    engine::StoredApp& stored = in.stored_apps[o.desired.name];
    stored.spec = o.desired.object["spec"];
    stored.operation = Operation(o.desired, at_r2 || running ? "r2" : "r1", live_objects, running);

    engine::AppRolloutStatus e;
    e.application = o.desired.name;
    e.step = std::to_string(step);
    e.target_revisions = {"r2"};
    e.last_transition_time = step < 3 ? kSyncedAt : kStepStarted;
    if (at_r2) {
      e.status = engine::RolloutAppState::kHealthy;
      e.message =
          "Application resource became Healthy, updating status from Progressing to "
          "Healthy";
    } else if (running) {
      e.status = engine::RolloutAppState::kProgressing;
      e.message =
          "Application resource completed a sync successfully, updating status from "
          "Pending to Progressing";
    } else {
      e.status = engine::RolloutAppState::kWaiting;
      e.message = "No Application status found, defaulting status to Waiting";
    }
    in.stored.application_status.push_back(std::move(e));
    in.apps.push_back(std::move(o));
  }
  return in;
}

// What the appset actor persists from a result, so the next reconcile reads it back.
void Persist(engine::AppSetReconcileInput& in, engine::AppSetReconcileResult r) {
  engine::Issues issues;
  in.stored = engine::DecodeStoredRolloutStatus(r.status, issues);
  for (auto& [app, spec] : r.specs) in.stored_apps[app].spec = std::move(spec);
  for (auto& s : r.starts) in.stored_apps[s.app].operation = std::move(s.record);
  in.apps = std::move(r.observed);
  in.automated_warned = in.automated_warned || r.automated_warning.has_value();
}

double ThreadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// Median of `runs` calls, in milliseconds of this thread's CPU time (the bench machine is
// shared: wall time there mostly measures the neighbours). `setup` runs before each call,
// untimed. Under callgrind (`--collect-atstart=no`), `collect` counts the calls' instructions
// alone: a count the neighbours' load does not move, to compare two builds by.
double MedianMs(int runs, const std::function<void()>& f, const std::function<void()>& setup,
                bool collect = false) {
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    setup();
    if (collect) CALLGRIND_TOGGLE_COLLECT;
    const double t0 = ThreadCpuMs();
    f();
    ms.push_back(ThreadCpuMs() - t0);
    if (collect) CALLGRIND_TOGGLE_COLLECT;
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  int runs_override = 0;
  bool cold = false;
  bool events_only = false;  // --events: the decider's events alone (to profile them)
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--cold") {
      cold = true;
    } else if (arg == "--events") {
      events_only = true;
    } else if (arg.rfind("--runs=", 0) == 0) {
      runs_override = std::atoi(arg.c_str() + 7);
    } else {
      sizes.push_back(std::atoi(argv[i]));
    }
  }
  if (sizes.empty()) sizes = {100, 1000, 2000, 20000};
  // The daemon links jemalloc where the build finds it, and so does this benchmark: an event
  // allocates and frees about a hundred JSON nodes, so the allocator is part of its cost.
  std::printf("allocator: %s\n", FLEETWAVE_ALLOCATOR_NAME);
  const engine::ApplicationSet set = RollingSet();
  double base_us_per_app = 0;
  for (int n : sizes) {
    engine::AppSetReconcileInput primed = BuildInput(set, n);
    // Two reconciles persisted: the first starts the Pending syncs, the second is the steady
    // state every later cluster update reconciles.
    for (int k = 0; k < 2; ++k) {
      engine::AppSetReconcileInput copy = primed;
      Persist(primed, engine::ReconcileAppSet(std::move(copy)));
    }
    const int runs = runs_override > 0 ? runs_override : n >= 20000 ? 7 : n >= 2000 ? 15 : 31;
    // The result is freed outside the timed region too: the actor keeps its observations.
    engine::AppSetReconcileInput handed_over;
    engine::AppSetReconcileResult r;
    const double ms = MedianMs(
        events_only ? 1 : runs, [&] { r = engine::ReconcileAppSet(std::move(handed_over)); },
        [&] {
          r = {};
          handed_over = primed;
          if (cold) {
            for (auto& a : handed_over.apps) a.compared.reset();
          }
        });
    const double us_per_app = ms * 1000.0 / n;
    if (base_us_per_app == 0) base_us_per_app = us_per_app;
    std::printf(
        "%6d apps %s ReconcileAppSet median %9.3f ms  %6.2f us/app  per-app ratio to N=%d %5.2f  "
        "(rollout step %d, starts %zu, log lines %zu, specs %zu)\n",
        n, cold ? "cold" : "warm", ms, us_per_app, sizes.front(), us_per_app / base_us_per_app,
        r.plan.rollout ? r.plan.rollout->step : -1, r.starts.size(), r.log.size(), r.specs.size());
    std::fflush(stdout);

    // One event through the decider: a step-1/2 app's health flaps (apps i with i % 100 < 10).
    auto shared_set = std::make_shared<const engine::ApplicationSet>(set);
    engine::RollingSyncDecider decider(shared_set, primed.stored, primed.apps, primed.stored_apps,
                                       std::nullopt, kNow);
    decider.Decide(kNow);  // the first decides every app (see the constructor)
    std::vector<std::string> flappers;
    for (int i = 0; i < n; ++i) {
      if (StepOf(i) <= 2) flappers.push_back(Name(i));
    }
    int event = 0;
    std::size_t decided = 0, changed = 0;
    const int event_runs = events_only ? 20001 : std::max(201, runs);
    const double event_ms = MedianMs(
        event_runs,
        [&] {
          const std::string& app = flappers[(event / 2) % flappers.size()];
          engine::ObservedApp o = decider.TakeObserved(app);
          const auto code =
              event % 2 == 0 ? engine::HealthCode::kProgressing : engine::HealthCode::kHealthy;
          for (auto& [ref, health] : o.live_health) health.status = code;
          decider.PutObserved(std::move(o));
          engine::AppSetDelta d = decider.Decide(kNow);
          decided += d.apps_decided;
          changed += d.changed_entries.size();
          ++event;
        },
        [] {});
    std::printf(
        "%6d apps one event (a health flip) through RollingSyncDecider median %9.4f ms = %8.2f "
        "us  full reconcile / event %8.0fx  (%d events, apps decided %.2f, entries changed "
        "%.2f per event)\n",
        n, event_ms, event_ms * 1000.0, event_ms > 0 ? ms / event_ms : 0, event_runs,
        static_cast<double>(decided) / event_runs, static_cast<double>(changed) / event_runs);
    std::fflush(stdout);

    // The rollout's own event: a step-3 app's sync ends and it turns Healthy (its entry moves
    // Progressing -> Healthy, which may let a Waiting app of the step start). Each app once.
    std::vector<std::string> finishing;
    for (int i = 0; i < n; ++i) {
      if (StepOf(i) == 3 && i % 3 == 1) finishing.push_back(Name(i));
    }
    // --events: every finishing app, so a profile of the run has enough of these samples.
    const int finish_runs = static_cast<int>(
        events_only ? finishing.size() : std::min<std::size_t>(finishing.size(), 201));
    std::size_t finished = 0, starts = 0;
    engine::LiveObjects next_live;  // shared copies, as the cluster actor hands them over
    decided = changed = 0;
    const double finish_ms = MedianMs(
        finish_runs,
        [&] {
          const std::string& app = finishing[finished++];
          engine::OperationRecord op = *decider.stored_apps().at(app).operation;
          op.phase = engine::OperationPhase::kSucceeded;
          op.finished_at = kNow;
          decider.SetOperation(app, std::move(op));  // the finished attempt's record
          engine::ObservedApp o = decider.TakeObserved(app);
          // The cluster shows the applied objects (projected untimed, as the cluster actor
          // projects them before it reports).
          o.live = std::move(next_live);
          o.compared.reset();
          for (auto& [ref, health] : o.live_health) health.status = engine::HealthCode::kHealthy;
          decider.PutObserved(std::move(o));
          engine::AppSetDelta d = decider.Decide(kNow);
          decided += d.apps_decided;
          changed += d.changed_entries.size();
          starts += d.starts.size();
        },
        [&] {
          next_live.clear();
          const std::string& app = finishing[finished];
          for (const auto& r : RenderAt(app, "ui:2")) {
            next_live.push_back(LiveOf(r, std::atoi(app.c_str() + 4)));
          }
        },
        /*collect=*/true);
    std::printf(
        "%6d apps one event (a sync ends Healthy) through RollingSyncDecider median %9.4f ms = "
        "%8.2f us  (%d events, apps decided %.2f, entries changed %.2f, starts %.2f per event)\n",
        n, finish_ms, finish_ms * 1000.0, finish_runs, static_cast<double>(decided) / finish_runs,
        static_cast<double>(changed) / finish_runs, static_cast<double>(starts) / finish_runs);
    std::fflush(stdout);
  }
  return 0;
}
