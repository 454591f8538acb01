// A fake fleet for the daemon's reconcile tables: apps rendered from one Deployment whose image
// stands for the content of a commit, live objects as the cluster actor projects them after an
// apply, and a store that keeps what ReconcileAppSet returns (what the appset actor persists).
// Literal times only.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/appset/appset.h"
#include "engine/appset/render.h"
#include "engine/rollingsync/appset_reconcile.h"
#include "engine/rollingsync/rollout_plan.h"
#include "engine/time.h"

namespace fleetwave::engine::daemon_testing {

inline Time T(const char* rfc3339) { return *ParseRfc3339(rfc3339); }
inline const Time kT0 = T("2026-03-01T12:00:00Z");
inline Time At(int seconds) { return kT0 + std::chrono::seconds(seconds); }

inline constexpr const char* kSet = "guestbook";

inline IntOrString Int(long long v) { return {true, v, ""}; }
inline IntOrString Str(const std::string& s) { return {false, 0, s}; }

inline RolloutStep EnvStep(const std::string& env,
                           std::optional<IntOrString> max_update = std::nullopt) {
  RolloutStep s;
  s.match_expressions.push_back({"env", "In", {env}, {}});
  s.max_update = max_update;
  return s;
}

inline ApplicationSet RollingSet(std::vector<RolloutStep> steps) {
  ApplicationSet set;
  set.file = "guestbook.yaml";
  set.name = kSet;
  set.strategy.type = "RollingSync";
  set.strategy.steps = std::move(steps);
  return set;
}

inline ApplicationSet AllAtOnceSet() {
  ApplicationSet set;
  set.file = "guestbook.yaml";
  set.name = kSet;
  return set;
}

inline Json Spec(const Json& sync_policy = nullptr) {
  Json spec = {
      {"project", "default"},
      {"source", {{"repoURL", "file:///repo"}, {"path", "guestbook"}, {"targetRevision", "main"}}},
      {"destination", {{"server", "https://sim-1"}, {"namespace", "guestbook"}}}};
  if (!sync_policy.is_null()) spec["syncPolicy"] = sync_policy;
  return spec;
}

inline GeneratedApplication Generated(const std::string& name, const std::string& env,
                                      const std::string& cluster, const Json& spec) {
  GeneratedApplication g;
  g.name = name;
  g.labels = {{"env", env}};
  g.cluster = cluster;
  g.object = {{"apiVersion", "argoproj.io/v1alpha1"},
              {"kind", "Application"},
              {"metadata", {{"name", name}, {"labels", g.labels}}},
              {"spec", spec}};
  g.spec_fingerprint = SpecFingerprint(spec);
  return g;
}

// The app's objects at a commit whose content is `image`: one Deployment.
inline std::vector<RenderedObject> RenderAt(const std::string& app, const std::string& image) {
  RenderInput in;
  in.app = {kSet, app};
  in.destination_namespace = "guestbook";
  Json d = {{"apiVersion", "apps/v1"},
            {"kind", "Deployment"},
            {"metadata", {{"name", "web"}}},
            {"spec",
             {{"replicas", 1},
              {"template", {{"spec", {{"containers", {{{"name", "ui"}, {"image", image}}}}}}}}}}};
  in.manifests.push_back({"guestbook/web.yaml:1:1", d});
  return Render(in).objects;
}

// The projection the cluster actor holds after `objects` were applied and observed.
inline std::vector<LiveObject> LiveOf(const std::vector<RenderedObject>& objects,
                                      const std::string& resource_version = "5",
                                      int64_t generation = 1) {
  std::vector<LiveObject> out;
  for (const auto& o : objects) {
    LiveObject l;
    l.ref = o.ref;
    l.resource_version = resource_version;
    l.generation = generation;
    l.observed_generation = generation;
    l.annotations[kTrackingIdAnnotation] = o.tracking_id;
    l.annotations[kAppliedHashAnnotation] = o.applied_hash;
    out.push_back(std::move(l));
  }
  return out;
}

inline std::map<ObjectRef, HealthStatus> HealthOf(const std::vector<RenderedObject>& objects,
                                                  HealthCode code = HealthCode::kHealthy) {
  std::map<ObjectRef, HealthStatus> out;
  for (const auto& o : objects) out[o.ref] = {code, ""};
  return out;
}

// One app of the fleet: what git holds for it (`image` at `revision`) and what its cluster runs
// (`live_image`, "" = nothing).
struct FakeApp {
  std::string name;
  std::string env;
  std::string cluster;
  std::string image = "ui:1";
  std::string revision = "r1";
  std::string live_image;
  HealthCode live_health = HealthCode::kHealthy;
  bool reachable = true;
  bool observed = true;  // ObservedApp::observed: false before the cluster's first listing
  std::optional<std::string> source_error;
  // The repository problems behind source_error (a failed fetch, a vanished revision).
  std::vector<Error> repository_errors;
  Json spec = Spec();
};

inline FakeApp App(std::string name, std::string env, std::string cluster,
                   std::string image = "ui:1", std::string revision = "r1",
                   std::string live_image = "") {
  FakeApp a;
  a.name = std::move(name);
  a.env = std::move(env);
  a.cluster = std::move(cluster);
  a.image = std::move(image);
  a.revision = std::move(revision);
  a.live_image = std::move(live_image);
  return a;
}

inline ObservedApp Observe(const FakeApp& a) {
  ObservedApp o;
  o.desired = Generated(a.name, a.env, a.cluster, a.spec);
  o.reachable = a.reachable;
  o.observed = a.observed;
  if (a.source_error) {
    // The text as the condition shows it (Error::ToString with no object).
    o.source_error = InvalidInputError("", *a.source_error);
    o.repository_errors = a.repository_errors;
  } else {
    o.revisions = {a.revision};
    o.rendered = std::make_shared<const std::vector<RenderedObject>>(RenderAt(a.name, a.image));
  }
  if (!a.live_image.empty()) {
    const auto live = RenderAt(a.name, a.live_image);
    o.live = LiveOf(live);
    o.live_health = HealthOf(live, a.live_health);
  }
  return o;
}

// The store as the appset actor keeps it: what each reconcile returned, persisted.
struct FakeStore {
  explicit FakeStore(ApplicationSet s) : set(std::move(s)) {}

  ApplicationSet set;
  StoredRolloutStatus status;
  std::map<std::string, StoredApp> apps;
  bool warned = false;
  bool progressive_syncs = true;
  std::string analysis_prometheus;      // fleetwave.yaml's analysis.prometheus
  std::vector<Error> generator_errors;  // what the set's git generators could not read

  AppSetReconcileResult Reconcile(const std::vector<FakeApp>& fleet, Time now) {
    AppSetReconcileInput in;
    in.appset = &set;
    in.stored = status;
    for (const auto& a : fleet) in.apps.push_back(Observe(a));
    in.stored_apps = apps;
    in.generator_repository_errors = generator_errors;
    in.progressive_syncs = progressive_syncs;
    in.analysis_prometheus = analysis_prometheus;
    in.automated_warned = warned;
    in.now = now;
    AppSetReconcileResult r = ReconcileAppSet(std::move(in));
    Persist(r);
    return r;
  }

  void Persist(const AppSetReconcileResult& r) {
    Issues issues;
    status = DecodeStoredRolloutStatus(r.status, issues);
    for (const auto& [app, spec] : r.specs) apps[app].spec = spec;
    for (const auto& s : r.starts) apps[s.app].operation = s.record;
    warned = warned || r.automated_warning.has_value();
  }

  // The actor ran the app's sync: every object applied and Synced.
  void Succeed(const std::string& app, Time now) {
    OperationRecord& op = *apps[app].operation;
    op = FinishSyncAttempt(op, apps[app].spec.value_or(Json::object()), {}, std::nullopt, now);
  }
  // The attempt could not run: the operation retries (Running, next_attempt_at set) while its
  // retry limit allows, then ends in Error.
  void FailAttempt(const std::string& app, Time now) {
    OperationRecord& op = *apps[app].operation;
    op = FinishSyncAttempt(op, apps[app].spec.value_or(Json::object()), {},
                           Error{ErrorKind::kTransient, app, "cluster unreachable"}, now);
  }
};

// Three apps, one per env and cluster, in name order.
inline std::vector<FakeApp> DevQaProd() {
  return {App("guestbook-dev", "dev", "sim-1"), App("guestbook-prod", "prod", "sim-3"),
          App("guestbook-qa", "qa", "sim-2")};
}

// `set` with every app of `fleet` synced at r1 and Healthy: the rollout has completed.
inline FakeStore CompletedAtR1(ApplicationSet set, std::vector<FakeApp>& fleet);

inline std::vector<std::string> StartedApps(const AppSetReconcileResult& r) {
  std::vector<std::string> out;
  for (const auto& s : r.starts) out.push_back(s.app);
  return out;
}

inline const AppRolloutStatus* EntryOf(const AppSetReconcileResult& r, const std::string& app) {
  for (const auto& e : r.plan.application_status) {
    if (e.application == app) return &e;
  }
  return nullptr;
}

// The set's condition of `type` (conditions are sorted by type), or null.
inline Json ConditionOf(const Json& status, const std::string& type) {
  auto it = status.find("conditions");
  if (it == status.end() || !it->is_array()) return nullptr;
  for (const auto& c : *it) {
    if (c.is_object() && c.value("type", "") == type) return c;
  }
  return nullptr;
}

inline bool LogHas(const AppSetReconcileResult& r, const std::string& line) {
  for (const auto& l : r.log) {
    if (l == line) return true;
  }
  return false;
}

inline FakeStore CompletedAtR1(ApplicationSet set, std::vector<FakeApp>& fleet) {
  FakeStore store{std::move(set)};
  for (auto& a : fleet) a.live_image = "ui:1";
  store.Reconcile(fleet, kT0);
  const auto r = store.Reconcile(fleet, At(1));
  EXPECT_EQ(ConditionOf(r.status, "RolloutProgressing")["message"],
            "ApplicationSet Rollout has completed");
  return store;
}

}  // namespace fleetwave::engine::daemon_testing
