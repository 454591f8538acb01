// The daemon's reconcile of one ApplicationSet (engine/rollingsync/appset_reconcile.h), driven
// through a fake fleet and a fake store: promotion, the start guard, new revisions with and without
// a changed render, unreachable clusters and source errors, read-after-write, AllAtOnce,
// progressiveSyncs: false, the Applications it serves and idempotence.
#include "engine/rollingsync/appset_reconcile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/appset/app_project.h"
#include "tests/engine/daemon/daemon_fixture.h"

namespace fleetwave::engine {
namespace {

using namespace daemon_testing;  // NOLINT: the fixture's vocabulary

ApplicationSet ThreeSteps() { return RollingSet({EnvStep("dev"), EnvStep("qa"), EnvStep("prod")}); }

// --- Promotion ---------------------------------------------------------------------------

TEST(AppSetReconcileTest, PromotionRespectsStepsAndMaxUpdate) {
  struct Case {
    const char* name;
    std::optional<IntOrString> max_update;
    std::vector<std::string> started;
  };
  const std::vector<Case> cases = {
      {"unset: every app of step 1", std::nullopt, {"dev-a", "dev-b", "dev-c"}},
      {"integer 2: the first two by name", Int(2), {"dev-a", "dev-b"}},
      {"34% of 3 floors to 1", Str("34%"), {"dev-a"}},
      {"0: a manual gate, nothing starts", Int(0), {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    FakeStore store{RollingSet({EnvStep("dev", c.max_update), EnvStep("qa")})};
    const std::vector<FakeApp> fleet = {App("dev-a", "dev", "sim-1"), App("dev-b", "dev", "sim-2"),
                                        App("dev-c", "dev", "sim-3"), App("qa-a", "qa", "sim-4")};
    const auto r = store.Reconcile(fleet, kT0);
    EXPECT_EQ(StartedApps(r), c.started);
    for (const auto& s : r.starts) {
      EXPECT_EQ(s.trigger, SyncStartTrigger::kRollout);
      EXPECT_EQ(s.record.phase, OperationPhase::kRunning);
      EXPECT_EQ(s.record.started_at, kT0);
      EXPECT_EQ(s.record.revisions, std::vector<std::string>{"r1"});
      EXPECT_EQ(s.record.operation["sync"]["revision"], "r1");
      EXPECT_EQ(s.record.operation["initiatedBy"]["username"], "applicationset-controller");
      const std::string cluster = s.app == "dev-a" ? "sim-1" : s.app == "dev-b" ? "sim-2" : "sim-3";
      EXPECT_TRUE(LogHas(r, "appset=guestbook app=" + s.app + " cluster=" + cluster +
                                " promoted to Pending (step 1)"));
    }
    // Step 2 never starts while step 1 is not Healthy.
    ASSERT_NE(EntryOf(r, "qa-a"), nullptr);
    EXPECT_EQ(EntryOf(r, "qa-a")->status, RolloutAppState::kWaiting);
  }
}

// The actor keeps its observations between reconciles (it refreshes only what changed), so the
// reconcile hands them back as they came in, in the same order.
TEST(AppSetReconcileTest, HandsTheObservationsBackUnchanged) {
  FakeStore store{ThreeSteps()};
  std::vector<FakeApp> fleet = DevQaProd();
  fleet[0].live_image = "ui:1";
  AppSetReconcileInput in;
  in.appset = &store.set;
  for (const auto& a : fleet) in.apps.push_back(Observe(a));
  in.now = kT0;
  const std::vector<ObservedApp> before = in.apps;
  const AppSetReconcileResult r = ReconcileAppSet(std::move(in));
  ASSERT_EQ(r.observed.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    SCOPED_TRACE(before[i].desired.name);
    EXPECT_EQ(r.observed[i].desired.name, before[i].desired.name);
    EXPECT_EQ(r.observed[i].desired.object, before[i].desired.object);
    EXPECT_EQ(r.observed[i].rendered, before[i].rendered);
    EXPECT_EQ(r.observed[i].revisions, before[i].revisions);
    EXPECT_EQ(r.observed[i].live.size(), before[i].live.size());
    EXPECT_EQ(r.observed[i].live_health, before[i].live_health);
  }
  EXPECT_FALSE(r.observed[0].live.empty());
}

// The comparison of rendered and live objects is cached in the observation it was made for and
// reused while the spec it ran under (its fingerprint) is the same; the actor resets the cache
// when it refreshes the objects, so a stale cache here shows that the cache is what is read.
TEST(AppSetReconcileTest, ReusesItsComparisonWhileTheSpecIsTheSame) {
  FakeStore store{ThreeSteps()};
  std::vector<FakeApp> fleet = DevQaProd();
  for (auto& a : fleet) a.live_image = "ui:1";
  auto reconcile = [&store](std::vector<ObservedApp> apps) {
    AppSetReconcileInput in;
    in.appset = &store.set;
    in.apps = std::move(apps);
    in.now = kT0;
    return ReconcileAppSet(std::move(in));
  };
  auto dev_sync = [](const AppSetReconcileResult& r) {
    for (const auto& a : r.applications) {
      if ((*a)["metadata"]["name"] == "guestbook-dev") return (*a)["status"]["sync"]["status"];
    }
    return Json();
  };
  std::vector<ObservedApp> first;
  for (const auto& a : fleet) first.push_back(Observe(a));
  const AppSetReconcileResult r = reconcile(first);
  ASSERT_NE(r.observed[0].compared, nullptr);
  EXPECT_EQ(r.observed[0].desired.name, "guestbook-dev");
  EXPECT_EQ(dev_sync(r), "Synced");

  FakeApp drifted = fleet[0];
  drifted.live_image = "ui:2";
  const ObservedApp now_live = Observe(drifted);
  std::vector<ObservedApp> kept = r.observed;
  kept[0].live = now_live.live;
  kept[0].live_health = now_live.live_health;
  EXPECT_EQ(dev_sync(reconcile(kept)), "Synced") << "the cache kept by the caller is reused";

  std::vector<ObservedApp> reset = kept;
  reset[0].compared = nullptr;
  EXPECT_EQ(dev_sync(reconcile(reset)), "OutOfSync");

  std::vector<ObservedApp> respecced = kept;
  Json& spec = respecced[0].desired.object["spec"];
  spec["info"] = Json::array({{{"name", "owner"}, {"value", "web"}}});
  respecced[0].desired.spec_fingerprint = SpecFingerprint(spec);
  EXPECT_EQ(dev_sync(reconcile(respecced)), "OutOfSync") << "another spec compares anew";
}

// An app's Application is served again, reconciledAt included, while nothing it shows changed
// and it was built since the caller's last fresh gather; a change rebuilds that app's alone.
TEST(AppSetReconcileTest, ReusesTheApplicationWhileNothingItShowsChanged) {
  FakeStore store{ThreeSteps()};
  std::vector<FakeApp> fleet = DevQaProd();
  for (auto& a : fleet) a.live_image = "ui:1";
  const Time t1 = kT0 + std::chrono::seconds(1);
  auto reconcile = [&store](std::vector<ObservedApp> apps, Time now, std::optional<Time> since,
                            std::map<std::string, StoredApp> stored = {}) {
    AppSetReconcileInput in;
    in.appset = &store.set;
    in.apps = std::move(apps);
    in.stored_apps = std::move(stored);
    in.now = now;
    in.reuse_applications_since = since;
    return ReconcileAppSet(std::move(in));
  };
  std::vector<ObservedApp> observed;
  for (const auto& a : fleet) observed.push_back(Observe(a));
  const AppSetReconcileResult first = reconcile(observed, kT0, kT0);
  ASSERT_EQ(first.applications.size(), 3u);

  const AppSetReconcileResult same = reconcile(first.observed, t1, kT0);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(same.applications[i], first.applications[i]) << i;
    EXPECT_EQ((*same.applications[i])["status"]["reconciledAt"], FormatRfc3339(kT0));
  }

  const AppSetReconcileResult regathered = reconcile(first.observed, t1, t1);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NE(regathered.applications[i], first.applications[i]) << i;
    EXPECT_EQ((*regathered.applications[i])["status"]["reconciledAt"], FormatRfc3339(t1));
  }

  std::map<std::string, StoredApp> stored;
  stored["guestbook-dev"].operation = StartOperation("op-1", Json::object(), {"r1"}, t1);
  const AppSetReconcileResult started = reconcile(first.observed, t1, kT0, stored);
  EXPECT_NE(started.applications[0], first.applications[0]) << "dev shows its operation";
  EXPECT_EQ((*started.applications[0])["status"]["operationState"]["id"], "op-1");
  EXPECT_EQ(started.applications[1], first.applications[1]);
  EXPECT_EQ(started.applications[2], first.applications[2]);

  const AppSetReconcileResult unset = reconcile(first.observed, t1, std::nullopt);
  for (size_t i = 0; i < 3; ++i) EXPECT_NE(unset.applications[i], first.applications[i]) << i;
}

// The stored apps are lent too: handed back as they came, each spec fingerprinted once.
TEST(AppSetReconcileTest, HandsTheStoredAppsBackWithTheirFingerprints) {
  FakeStore store{ThreeSteps()};
  const std::vector<FakeApp> fleet = DevQaProd();
  store.Reconcile(fleet, kT0);  // stores the specs
  ASSERT_EQ(store.apps.size(), 3u);
  AppSetReconcileInput in;
  in.appset = &store.set;
  for (const auto& a : fleet) in.apps.push_back(Observe(a));
  in.stored_apps = store.apps;
  in.now = kT0;
  const AppSetReconcileResult r = ReconcileAppSet(std::move(in));
  ASSERT_EQ(r.stored_apps.size(), store.apps.size());
  for (const auto& [name, app] : store.apps) {
    SCOPED_TRACE(name);
    const auto it = r.stored_apps.find(name);
    ASSERT_NE(it, r.stored_apps.end());
    ASSERT_TRUE(it->second.spec.has_value());
    EXPECT_EQ(*it->second.spec, *app.spec);
    EXPECT_EQ(it->second.operation.has_value(), app.operation.has_value());
    EXPECT_EQ(it->second.spec_fingerprint, SpecFingerprint(*app.spec));
  }
}

TEST(AppSetReconcileTest, StartGuardNeverReSendsASync) {
  // dev is Pending on r2 since 12:00:00 (the entry's transition); what the store holds about its
  // operation decides whether a sync starts now.
  struct Case {
    const char* name;
    std::optional<OperationRecord> operation;
    Time now;
    bool starts;
  };
  auto op = [](OperationPhase phase, const char* revision, Time started) {
    OperationRecord r = StartOperation("op-1", Json::object(), {revision}, started);
    r.phase = phase;
    if (phase != OperationPhase::kRunning) r.finished_at = started + std::chrono::seconds(1);
    return r;
  };
  const std::vector<Case> cases = {
      {"no operation yet: starts", std::nullopt, At(5), true},
      {"an older revision's sync still running: held back",
       op(OperationPhase::kRunning, "r1", At(-60)), At(5), false},
      {"an older revision's sync finished: starts", op(OperationPhase::kSucceeded, "r1", At(-60)),
       At(5), true},
      {"the clock stepped back after the start: the sync at the pin is not re-sent",
       op(OperationPhase::kFailed, "r2", At(0)), At(-30), false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    FakeStore store{RollingSet({EnvStep("dev")})};
    AppRolloutStatus e;
    e.application = "dev-a";
    e.status = RolloutAppState::kPending;
    e.message =
        "Application moved to Pending status, watching for the Application resource to "
        "start Progressing";
    e.step = "1";
    e.target_revisions = {"r2"};
    e.last_transition_time = kT0;
    store.status.application_status = {e};
    store.apps["dev-a"].spec = Spec();
    store.apps["dev-a"].operation = c.operation;
    FakeApp a = App("dev-a", "dev", "sim-1", "ui:2", "r2", "ui:1");
    const auto r = store.Reconcile({a}, c.now);
    EXPECT_EQ(r.starts.size(), c.starts ? 1u : 0u);
  }
}

TEST(AppSetReconcileTest, ClockSteppedBackBeforeTheStartNeverReSends) {
  // dev was promoted at 12:00:00 but held back behind a running sync; when that one ends the
  // clock reads 30 s earlier. The sync starts once, stamped at the transition, and the next
  // reconcile moves the entry on instead of starting it again.
  FakeStore store{RollingSet({EnvStep("dev")})};
  AppRolloutStatus e;
  e.application = "dev-a";
  e.status = RolloutAppState::kPending;
  e.step = "1";
  e.target_revisions = {"r2"};
  e.last_transition_time = kT0;
  store.status.application_status = {e};
  store.apps["dev-a"].spec = Spec();
  OperationRecord old = StartOperation("op-0", Json::object(), {"r1"}, At(-90));
  old.phase = OperationPhase::kSucceeded;
  store.apps["dev-a"].operation = old;
  const FakeApp a = App("dev-a", "dev", "sim-1", "ui:2", "r2", "ui:1");
  auto r = store.Reconcile({a}, At(-30));
  ASSERT_EQ(r.starts.size(), 1u);
  EXPECT_EQ(r.starts[0].record.started_at, kT0);
  r = store.Reconcile({a}, At(-29));
  EXPECT_TRUE(r.starts.empty());
  EXPECT_EQ(EntryOf(r, "dev-a")->status, RolloutAppState::kProgressing);
}

TEST(AppSetReconcileTest, HeldBackSyncIsToldOnceAtThePromotion) {
  FakeStore store{RollingSet({EnvStep("dev")})};
  store.apps["dev-a"].spec = Spec();
  store.apps["dev-a"].operation = StartOperation("manual-1", Json::object(), {"r0"}, At(-5));
  const FakeApp a = App("dev-a", "dev", "sim-1");
  auto r = store.Reconcile({a}, kT0);
  EXPECT_TRUE(r.starts.empty());
  EXPECT_TRUE(LogHas(r,
                     "appset=guestbook app=dev-a cluster=sim-1 sync held back: operation "
                     "manual-1 is running"));
  r = store.Reconcile({a}, At(1));
  EXPECT_TRUE(r.starts.empty());
  EXPECT_TRUE(r.log.empty());
}

TEST(AppSetReconcileTest, WakesAtTheStepDeadline) {
  RolloutStep dev = EnvStep("dev");
  dev.progress_deadline_seconds = 300;
  FakeStore store{RollingSet({dev, EnvStep("qa")})};
  const auto r = store.Reconcile({App("dev-a", "dev", "sim-1"), App("qa-a", "qa", "sim-2")}, kT0);
  EXPECT_EQ(r.wake_at, At(300));
}

// A daemon that just started has not observed its clusters yet: their apps read unreachable
// for lack of data. That must not re-open step 1 and so restart step 2's clock (the step
// clock survives restarts, RollingSync §7); a cluster observed and then lost re-opens its step
// as §4 says. Pinned end to end by tests/daemon/step_control_e2e_test.py.
TEST(AppSetReconcileTest, UnobservedClusterNeverReopensAStepOrRestartsItsClock) {
  struct Case {
    const char* name;
    bool dev_reachable;
    bool dev_observed;
    int step;
    std::optional<Time> step_started_at;
    std::string message;
    std::optional<Time> wake_at;
  };
  const std::vector<Case> cases = {
      {"observed: step 2 runs on", true, true, 2, At(2),
       "ApplicationSet is performing rollout of step 2", At(62)},
      {"not observed yet (a restart): step 2 held, its clock kept", false, false, 2, At(2),
       "ApplicationSet is performing rollout of step 2", At(62)},
      {"observed, then unreachable: step 1 re-opened", false, true, 1, At(30),
       "ApplicationSet is performing rollout of step 1", std::nullopt},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    // qa: maxUpdate 0 (the rollout stays at step 2) and a 60 s deadline.
    RolloutStep qa = EnvStep("qa", Int(0));
    qa.progress_deadline_seconds = 60;
    FakeStore store{RollingSet({EnvStep("dev"), qa, EnvStep("prod")})};
    auto fleet = DevQaProd();
    ASSERT_EQ(StartedApps(store.Reconcile(fleet, kT0)), std::vector<std::string>{"guestbook-dev"});
    store.Succeed("guestbook-dev", At(1));
    fleet[0].live_image = fleet[0].image;
    const auto at_step_two = store.Reconcile(fleet, At(2));
    ASSERT_EQ(at_step_two.plan.rollout->step, 2);
    ASSERT_EQ(at_step_two.plan.rollout->step_started_at, At(2));

    fleet[0].reachable = c.dev_reachable;
    fleet[0].observed = c.dev_observed;
    const auto r = store.Reconcile(fleet, At(30));
    EXPECT_EQ(r.plan.rollout->step, c.step);
    EXPECT_EQ(r.plan.rollout->step_started_at, c.step_started_at);
    EXPECT_EQ(ConditionOf(r.status, "RolloutProgressing")["message"], c.message);
    EXPECT_EQ(r.plan.step_deadline, c.wake_at);
    EXPECT_EQ(LogHas(r, "appset=guestbook step 1 re-opened"), c.step == 1);
    EXPECT_TRUE(r.starts.empty());
  }
}

TEST(AppSetReconcileTest, PendingAppWithItsSyncStartedIsNotRestarted) {
  FakeStore store{ThreeSteps()};
  auto fleet = DevQaProd();
  ASSERT_EQ(StartedApps(store.Reconcile(fleet, kT0)), std::vector<std::string>{"guestbook-dev"});
  // The sync is persisted and running; nothing is live yet.
  const auto r = store.Reconcile(fleet, At(10));
  EXPECT_TRUE(r.starts.empty());
  EXPECT_EQ(EntryOf(r, "guestbook-dev")->status, RolloutAppState::kProgressing);
  EXPECT_EQ(r.attempts_due, std::vector<std::string>{"guestbook-dev"});
}

// --- New revisions -----------------------------------------------------------------------

// Every app Healthy at r1 with ui:1 live, the rollout completed.
FakeStore CompletedAtR1(std::vector<FakeApp>& fleet) {
  return daemon_testing::CompletedAtR1(ThreeSteps(), fleet);
}

TEST(AppSetReconcileTest, UnchangedRenderAtNewRevisionMovesThePinWithoutApply) {
  auto fleet = DevQaProd();
  FakeStore store = CompletedAtR1(fleet);
  for (auto& a : fleet) a.revision = "r2";  // a commit that leaves the objects as they are
  const auto r = store.Reconcile(fleet, At(60));
  EXPECT_TRUE(r.starts.empty());
  for (const auto& a : fleet) {
    SCOPED_TRACE(a.name);
    const AppRolloutStatus* e = EntryOf(r, a.name);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->status, RolloutAppState::kHealthy);
    EXPECT_EQ(e->target_revisions, std::vector<std::string>{"r2"});
  }
  EXPECT_TRUE(LogHas(r,
                     "appset=guestbook app=guestbook-qa cluster=sim-2 pinned to r2, Healthy "
                     "(step 2): Application resource has synced, updating status to Healthy"));
  EXPECT_EQ(ConditionOf(r.status, "RolloutProgressing")["reason"], "ApplicationSetRolloutComplete");
  // And a sync attempt at r2 would send nothing.
  const ObservedApp dev = Observe(fleet[0]);
  const SyncAttempt attempt =
      PlanSyncAttempt({kSet, dev.desired.name}, *dev.rendered, dev.live, {}, false);
  EXPECT_TRUE(attempt.apply.empty());
}

TEST(AppSetReconcileTest, ChangedRenderReRollsFromStepOne) {
  auto fleet = DevQaProd();
  FakeStore store = CompletedAtR1(fleet);
  for (auto& a : fleet) {
    a.revision = "r2";
    a.image = "ui:2";
  }
  auto r = store.Reconcile(fleet, At(60));
  EXPECT_EQ(StartedApps(r), std::vector<std::string>{"guestbook-dev"});
  EXPECT_EQ(EntryOf(r, "guestbook-qa")->status, RolloutAppState::kWaiting);
  EXPECT_EQ(EntryOf(r, "guestbook-prod")->status, RolloutAppState::kWaiting);
  EXPECT_EQ(ConditionOf(r.status, "RolloutProgressing")["message"],
            "ApplicationSet is performing rollout of step 1");
  EXPECT_TRUE(LogHas(r, "appset=guestbook rollout generation 2 started"));

  // dev's sync ran, but until dev is Healthy at r2 nothing of step 2 starts.
  store.Succeed("guestbook-dev", At(61));
  fleet[0].live_image = "ui:2";
  fleet[0].live_health = HealthCode::kProgressing;
  r = store.Reconcile(fleet, At(62));
  EXPECT_TRUE(r.starts.empty());
  fleet[0].live_health = HealthCode::kHealthy;
  r = store.Reconcile(fleet, At(70));
  EXPECT_EQ(StartedApps(r), std::vector<std::string>{"guestbook-qa"});
  EXPECT_TRUE(LogHas(r, "appset=guestbook step 1 complete"));
  EXPECT_TRUE(LogHas(r,
                     "appset=guestbook app=guestbook-qa cluster=sim-2 promoted to Pending "
                     "(step 2)"));
}

// --- What nothing starts for -------------------------------------------------------------

TEST(AppSetReconcileTest, UnknownAppsAreReportedNeverSynced) {
  struct Case {
    const char* name;
    bool reachable;
    std::optional<std::string> source_error;
    const char* condition;  // "" = none
  };
  const std::vector<Case> cases = {
      {"unreachable cluster", false, std::nullopt, ""},
      {"source error", true, "guestbook/web.yaml:3:7: mapping values are not allowed here",
       "ComparisonError"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    FakeStore store{RollingSet({EnvStep("dev")})};
    FakeApp a = App("dev-a", "dev", "sim-1");
    a.reachable = c.reachable;
    a.source_error = c.source_error;
    const auto r = store.Reconcile({a}, kT0);
    EXPECT_TRUE(r.starts.empty());
    ASSERT_EQ(r.applications.size(), 1u);
    const Json& status = (*r.applications[0])["status"];
    EXPECT_EQ(status["sync"]["status"], "Unknown");
    EXPECT_EQ(status["health"]["status"], "Unknown");
    if (*c.condition) {
      EXPECT_EQ(status["conditions"][0]["type"], c.condition);
      EXPECT_EQ(status["conditions"][0]["message"], *c.source_error);
    }
    // Promoted (it holds its maxUpdate slot) but not synced; once readable it syncs.
    EXPECT_EQ(EntryOf(r, "dev-a")->status, RolloutAppState::kPending);
    a.reachable = true;
    a.source_error.reset();
    EXPECT_EQ(StartedApps(store.Reconcile({a}, At(5))), std::vector<std::string>{"dev-a"});
  }
}

TEST(AppSetReconcileTest, SourceErrorNeverReadsAsARevisionChange) {
  auto fleet = DevQaProd();
  FakeStore store = CompletedAtR1(fleet);
  fleet[0].source_error = "git fetch failed: connection refused";
  const auto r = store.Reconcile(fleet, At(60));
  EXPECT_EQ(EntryOf(r, "guestbook-dev")->status, RolloutAppState::kHealthy);
  EXPECT_EQ(EntryOf(r, "guestbook-dev")->target_revisions, std::vector<std::string>{"r1"});
  EXPECT_EQ(r.status["rollout"]["generation"], 1);
}

TEST(AppSetReconcileTest, ReadAfterWriteGateKeepsProgressing) {
  struct Case {
    const char* name;
    std::string live_resource_version;
    int64_t live_generation;
    RolloutAppState want;
  };
  const std::vector<Case> cases = {
      {"watch behind the apply: Progressing", "9", 1, RolloutAppState::kProgressing},
      {"watch caught up: Healthy", "10", 2, RolloutAppState::kHealthy},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    FakeStore store{RollingSet({EnvStep("dev")})};
    FakeApp a = App("dev-a", "dev", "sim-1");
    store.Reconcile({a}, kT0);  // Pending, sync started
    store.Succeed("dev-a", At(1));
    AppSetReconcileInput in;
    in.appset = &store.set;
    in.stored = store.status;
    in.stored_apps = store.apps;
    in.now = At(2);
    ObservedApp o = Observe(a);
    o.live = LiveOf(*o.rendered, c.live_resource_version, c.live_generation);
    o.live_health = HealthOf(*o.rendered);
    o.applied = {{o.rendered->front().ref, "10", 2}};
    in.apps = {o};
    const auto r = ReconcileAppSet(std::move(in));
    EXPECT_EQ(EntryOf(r, "dev-a")->status, c.want);
  }
}

// --- Sync attempts and retries -----------------------------------------------------------

TEST(AppSetReconcileTest, FailedAttemptRetriesThenFails) {
  FakeStore store{RollingSet({EnvStep("dev")})};
  FakeApp a = App("dev-a", "dev", "sim-1");
  a.spec = Spec({{"retry", {{"limit", 2}, {"backoff", {{"duration", "5s"}, {"factor", 2}}}}}});
  auto r = store.Reconcile({a}, kT0);
  ASSERT_EQ(r.starts.size(), 1u);
  const ObjectRef web = RenderAt("dev-a", "ui:1").front().ref;
  const std::vector<ObjectResult> failed = {{web, ObjectResultCode::kSyncFailed, "boom"}};
  struct Attempt {
    Time at;
    OperationPhase phase;
    std::optional<Time> next;
  };
  const std::vector<Attempt> attempts = {
      {At(1), OperationPhase::kRunning, At(6)},
      {At(6), OperationPhase::kRunning, At(16)},
      {At(16), OperationPhase::kFailed, std::nullopt},
  };
  for (const auto& attempt : attempts) {
    OperationRecord& op = *store.apps["dev-a"].operation;
    op = FinishSyncAttempt(op, *store.apps["dev-a"].spec, failed, std::nullopt, attempt.at);
    EXPECT_EQ(op.phase, attempt.phase);
    EXPECT_EQ(op.next_attempt_at, attempt.next);
    r = store.Reconcile({a}, attempt.at);
    EXPECT_TRUE(r.starts.empty());  // a retry is the same operation, never a new start
    EXPECT_EQ(r.wake_at, attempt.next);
    EXPECT_TRUE(r.attempts_due.empty());
  }
  EXPECT_EQ(store.apps["dev-a"].operation->message,
            "one or more objects failed to apply (retried 2 times).");
  // The retry becomes due at its time.
  OperationRecord running = StartOperation("op", Json{{"retry", {{"limit", 1}}}}, {"r1"}, kT0);
  running = FinishSyncAttempt(running, Json::object(), failed, std::nullopt, At(1));
  store.apps["dev-a"].operation = running;
  EXPECT_EQ(store.Reconcile({a}, *running.next_attempt_at).attempts_due,
            std::vector<std::string>{"dev-a"});
}

// [issue 29] A sync already running finishes while a deny window is active, its retries
// included, whatever the window's syncOverrun says (Argo CD would stop it with syncOverrun:
// false): why `validate` warns that syncOverrun has no effect (SyncOverrunWarnings). A sync not
// started yet is held.
TEST(AppSetReconcileTest, ARetryOfARunningSyncGoesOnInADenyWindowWhateverItsSyncOverrun) {
  const ObjectRef web = RenderAt("dev-a", "ui:1").front().ref;
  const std::vector<ObjectResult> failed = {{web, ObjectResultCode::kSyncFailed, "boom"}};
  for (const bool overrun : {false, true}) {
    SCOPED_TRACE(overrun ? "syncOverrun: true" : "syncOverrun: false");
    SyncWindow always;  // a deny window active all the time
    always.deny = true;
    always.schedule_text = "* * * * *";
    std::string why;
    always.schedule = *ParseCron(always.schedule_text, &why);
    always.duration_seconds = 3600;
    always.duration_text = "1h";
    always.applications = {"*"};
    always.sync_overrun = overrun;
    AppProject project;
    project.name = "default";
    project.source_repos = {"*"};
    project.destinations = {{"*", "", "*"}};
    project.sync_windows = {always};
    auto projects = std::make_shared<AppProjects>();
    projects->projects = {project};
    ApplicationSet set = RollingSet({EnvStep("dev")});
    set.projects = projects;
    FakeStore store{set};
    const std::vector<FakeApp> fleet = {App("dev-a", "dev", "sim-1"), App("dev-b", "dev", "sim-2")};
    store.Reconcile(fleet, kT0);
    OperationRecord running = StartOperation("op", Json{{"retry", {{"limit", 1}}}}, {"r1"}, kT0);
    running = FinishSyncAttempt(running, Json::object(), failed, std::nullopt, At(1));
    ASSERT_EQ(running.phase, OperationPhase::kRunning);
    store.apps["dev-a"].operation = running;
    const auto r = store.Reconcile(fleet, *running.next_attempt_at);
    EXPECT_EQ(r.attempts_due, std::vector<std::string>{"dev-a"});
    EXPECT_TRUE(r.starts.empty()) << "dev-b's sync is held by the window";
  }
}

TEST(AppSetReconcileTest, FinishSyncAttemptOutcomes) {
  const ObjectRef web = RenderAt("dev-a", "ui:1").front().ref;
  struct Case {
    const char* name;
    Json operation;
    std::vector<ObjectResult> results;
    std::optional<Error> error;
    Json app_spec;
    OperationPhase phase;
  };
  const std::vector<Case> cases = {
      {"every object synced: Succeeded",
       Json{{"retry", {{"limit", 5}}}},
       {{web, ObjectResultCode::kSynced, ""}},
       std::nullopt,
       Json::object(),
       OperationPhase::kSucceeded},
      {"failed without retries left: Failed",
       Json{{"retry", {{"limit", 0}}}},
       {{web, ObjectResultCode::kSyncFailed, "x"}},
       std::nullopt,
       Json::object(),
       OperationPhase::kFailed},
      {"could not run, no retry: Error",
       Json{{"retry", {{"limit", 0}}}},
       {},
       TransientError("", "cluster is down"),
       Json::object(),
       OperationPhase::kError},
      {"no retry in the operation: the app's policy retries",
       Json::object(),
       {{web, ObjectResultCode::kSyncFailed, "x"}},
       std::nullopt,
       Json{{"syncPolicy", {{"retry", {{"limit", 1}}}}}},
       OperationPhase::kRunning},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const OperationRecord running = StartOperation("op", c.operation, {"r1"}, kT0);
    const OperationRecord done = FinishSyncAttempt(running, c.app_spec, c.results, c.error, At(3));
    EXPECT_EQ(done.phase, c.phase);
    EXPECT_EQ(done.finished_at, At(3));
  }
}

TEST(AppSetReconcileTest, PlanSyncAttemptSendsOnlyWhatIsNotLive) {
  const AppIdentity app{kSet, "dev-a"};
  const auto v1 = RenderAt("dev-a", "ui:1");
  const auto v2 = RenderAt("dev-a", "ui:2");
  LiveObject unowned = LiveOf(v2).front();
  unowned.annotations.erase(kTrackingIdAnnotation);
  LiveObject extra = LiveOf(v1).front();
  extra.ref.name = "old";
  extra.annotations[kTrackingIdAnnotation] = TrackingId(app, extra.ref);
  LiveObject keep = extra;
  keep.annotations[kSyncOptionsAnnotation] = "Prune=false";
  struct Case {
    const char* name;
    std::vector<LiveObject> live;
    bool prune;
    size_t applied;
    bool force;
    std::vector<ObjectResultCode> settled;
    size_t pruned;
  };
  const std::vector<Case> cases = {
      {"live at the desired hash: nothing sent",
       LiveOf(v2),
       false,
       0,
       false,
       {ObjectResultCode::kSynced},
       0},
      {"missing: applied", {}, false, 1, false, {}, 0},
      {"owned at an older hash: applied with force", LiveOf(v1), false, 1, true, {}, 0},
      {"not fleetwave's: refused", {unowned}, false, 0, false, {ObjectResultCode::kSyncFailed}, 0},
      {"tracked, no longer desired, prune: pruned",
       {LiveOf(v2).front(), extra},
       true,
       0,
       false,
       {ObjectResultCode::kSynced},
       1},
      {"Prune=false: skipped",
       {LiveOf(v2).front(), keep},
       true,
       0,
       false,
       {ObjectResultCode::kSynced, ObjectResultCode::kPruneSkipped},
       0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const SyncAttempt a = PlanSyncAttempt(app, v2, c.live, {}, c.prune);
    ASSERT_EQ(a.apply.size(), c.applied);
    ASSERT_EQ(a.actions.size(), c.applied);
    if (c.applied) {
      EXPECT_EQ(a.actions[0].force, c.force);
    }
    std::vector<ObjectResultCode> settled;
    for (const auto& s : a.settled) settled.push_back(s.status);
    EXPECT_EQ(settled, c.settled);
    EXPECT_EQ(a.prune.size(), c.pruned);
  }
}

// --- Manual sync -------------------------------------------------------------------------

TEST(AppSetReconcileTest, ManualSync) {
  FakeApp a = App("dev-a", "dev", "sim-1", "ui:2", "r2");
  const ObservedApp o = Observe(a);
  StoredApp running;
  running.spec = Spec();
  running.operation = StartOperation("op-1", Json::object(), {"r1"}, kT0);
  StoredApp idle = running;
  idle.operation->phase = OperationPhase::kSucceeded;
  FakeApp multi_app = a;
  multi_app.spec = Spec();
  multi_app.spec.erase("source");
  multi_app.spec["sources"] = Json::array({{{"repoURL", "file:///a"}}, {{"repoURL", "file:///b"}}});
  struct Case {
    const char* name;
    ObservedApp app;
    std::optional<StoredApp> stored;
    std::vector<std::string> pinned;
    std::optional<std::string> revision;
    std::vector<std::string> revisions;  // empty: refused
    CommandOutcome refusal = CommandOutcome::kAccepted;
  };
  ObservedApp unreachable = o;
  unreachable.reachable = false;
  ObservedApp unrendered = o;
  unrendered.revisions.clear();
  const std::vector<Case> cases = {
      {"at the pin", o, idle, {"r1"}, std::nullopt, {"r1"}},
      {"at --revision", o, idle, {"r1"}, "r3", {"r3"}},
      {"first sight, no pin: the current revision", o, std::nullopt, {}, std::nullopt, {"r2"}},
      {"refused while an operation runs: a conflict",
       o,
       running,
       {"r1"},
       std::nullopt,
       {},
       CommandOutcome::kConflict},
      {"refused while the cluster is unreachable: not now",
       unreachable,
       idle,
       {"r1"},
       std::nullopt,
       {},
       CommandOutcome::kUnavailable},
      {"refused with no revision known yet: not now",
       unrendered,
       std::nullopt,
       {},
       std::nullopt,
       {},
       CommandOutcome::kUnavailable},
      {"--revision refused for a multi-source app: invalid",
       Observe(multi_app),
       std::nullopt,
       {"r1"},
       "r3",
       {},
       CommandOutcome::kInvalid},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ManualSyncDecision d = StartManualSync(c.app, c.stored, c.pinned, c.revision, "alice", At(9));
    if (c.revisions.empty()) {
      EXPECT_FALSE(d.start);
      ASSERT_TRUE(d.error);
      EXPECT_FALSE(d.error->message.empty());
      EXPECT_EQ(CommandOutcomeName(CommandRefusalOf(d.error->kind)),
                std::string(CommandOutcomeName(c.refusal)));
      continue;
    }
    ASSERT_TRUE(d.start) << d.error.value_or(Error{}).message;
    EXPECT_FALSE(d.error);
    EXPECT_EQ(d.start->trigger, SyncStartTrigger::kManual);
    EXPECT_EQ(d.start->record.revisions, c.revisions);
    EXPECT_EQ(d.start->record.operation["initiatedBy"]["username"], "alice");
    EXPECT_EQ(d.start->record.started_at, At(9));
    EXPECT_EQ(d.start->record.phase, OperationPhase::kRunning);
  }
}

// --- AllAtOnce and the progressiveSyncs gate ----------------------------------------------

TEST(AppSetReconcileTest, AllAtOnceAutomatedSelfHealAndManual) {
  const Json automated = {{"automated", Json::object()}};
  const Json self_heal = {{"automated", {{"selfHeal", true}}}};
  struct Case {
    const char* name;
    Json sync_policy;
    std::string live_image;  // "" = deleted
    std::string last_sync_revision;
    Time last_finished;
    Time now;
    bool starts;
    std::optional<Time> wake_at;
  };
  const std::vector<Case> cases = {
      {"automated, OutOfSync at a new revision: syncs", automated, "ui:1", "r1", kT0, At(60), true,
       std::nullopt},
      {"no automated: waits for a person", nullptr, "ui:1", "r1", kT0, At(60), false, std::nullopt},
      {"automated, Synced at a new revision: fast-forward, nothing applied", automated, "ui:2",
       "r1", kT0, At(60), false, std::nullopt},
      {"automated without selfHeal, drift at the synced revision: nothing", automated, "", "r2",
       kT0, At(60), false, std::nullopt},
      {"selfHeal, drift, last sync long ago: re-syncs", self_heal, "", "r2", kT0, At(60), true,
       std::nullopt},
      {"selfHeal, drift, last sync 2s ago: held back until the timeout", self_heal, "", "r2",
       At(58), At(60), false, At(63)},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    FakeStore store{AllAtOnceSet()};
    FakeApp a = App("dev-a", "dev", "sim-1", "ui:2", "r2", c.live_image);
    a.spec = Spec(c.sync_policy);
    store.apps["dev-a"].spec = DesiredSpecOf(Observe(a).desired);
    OperationRecord last = StartOperation("op-0", Json::object(), {c.last_sync_revision}, kT0);
    last.phase = OperationPhase::kSucceeded;
    last.finished_at = c.last_finished;
    store.apps["dev-a"].operation = last;
    const auto r = store.Reconcile({a}, c.now);
    ASSERT_EQ(r.starts.size(), c.starts ? 1u : 0u);
    if (c.starts) {
      EXPECT_EQ(r.starts[0].trigger, SyncStartTrigger::kAutomated);
      EXPECT_EQ(r.starts[0].record.revisions, std::vector<std::string>{"r2"});
      EXPECT_EQ(r.starts[0].record.operation["initiatedBy"]["automated"], true);
    }
    EXPECT_EQ(r.wake_at, c.wake_at);
    // AllAtOnce shows no rollout entries.
    EXPECT_TRUE(r.status["applicationStatus"].empty());
    EXPECT_FALSE(r.status.contains("rollout"));
  }
}

TEST(AppSetReconcileTest, SetsThatAreNotRolledOutWriteNothing) {
  struct Case {
    const char* name;
    ApplicationSet set;
    bool progressive_syncs;
    const char* condition_type;
    const char* condition_reason;
  };
  ApplicationSet no_steps = RollingSet({});
  ApplicationSet unsupported = AllAtOnceSet();
  unsupported.strategy.type = "RollingUpdate";
  const std::vector<Case> cases = {
      {"progressiveSyncs: false", ThreeSteps(), false, "ErrorOccurred", "ProgressiveSyncsDisabled"},
      {"RollingSync without steps", no_steps, true, "ErrorOccurred", "ApplicationSetRolloutError"},
      {"unsupported strategy type", unsupported, true, "", ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    FakeStore store{c.set};
    store.progressive_syncs = c.progressive_syncs;
    const auto r = store.Reconcile(DevQaProd(), kT0);
    EXPECT_TRUE(r.starts.empty());
    EXPECT_TRUE(r.specs.empty());
    EXPECT_TRUE(r.plan.apps_to_sync.empty());
    if (*c.condition_type) {
      EXPECT_EQ(ConditionOf(r.status, c.condition_type)["reason"], c.condition_reason);
    }
    EXPECT_EQ(r.applications.size(), 3u);  // still reported
  }
}

TEST(AppSetReconcileTest, ProgressiveSyncsBackOnClearsItsCondition) {
  FakeStore store{ThreeSteps()};
  store.progressive_syncs = false;
  store.Reconcile(DevQaProd(), kT0);
  store.progressive_syncs = true;
  const auto r = store.Reconcile(DevQaProd(), At(1));
  EXPECT_TRUE(ConditionOf(r.status, "ErrorOccurred").is_null());
  EXPECT_EQ(StartedApps(r), std::vector<std::string>{"guestbook-dev"});
}

// [issue 29] A step's analysis with no Prometheus to ask (none in the step, none in
// fleetwave.yaml) could only fail after its apps were rolled out: the set is refused before it
// writes anything, with ErrorOccurred naming the step and both settings; a default Prometheus
// (or the step's own) lets it roll out and clears the condition.
TEST(AppSetReconcileTest, AnAnalysisWithNoPrometheusRefusesTheSetUntilOneIsSet) {
  ApplicationSet set = ThreeSteps();
  AnalysisSpec analysis;
  analysis.query = "errors";
  set.strategy.steps[1].analysis = analysis;
  FakeStore store{set};
  auto r = store.Reconcile(DevQaProd(), kT0);
  EXPECT_TRUE(r.starts.empty());
  EXPECT_TRUE(r.specs.empty());
  EXPECT_FALSE(r.plan.planned) << "never handed to the incremental decider past the gate";
  const Json c = ConditionOf(r.status, "ErrorOccurred");
  EXPECT_EQ(c["status"], "True");
  EXPECT_EQ(c["reason"], "AnalysisPrometheusMissing");
  EXPECT_EQ(c["message"],
            "spec.strategy.rollingSync.steps[1].analysis (step 2) has no prometheus and "
            "fleetwave.yaml sets no analysis.prometheus: the analysis could never pass; set the "
            "step's analysis.prometheus or analysis.prometheus in fleetwave.yaml; this "
            "ApplicationSet is not reconciled");
  EXPECT_TRUE(std::any_of(r.log.begin(), r.log.end(), [](const std::string& line) {
    return line.find("steps[1].analysis (step 2) has no prometheus") != std::string::npos;
  }));

  store.analysis_prometheus = "http://prometheus:9090";
  r = store.Reconcile(DevQaProd(), At(1));
  EXPECT_TRUE(ConditionOf(r.status, "ErrorOccurred").is_null());
  EXPECT_TRUE(r.plan.planned);
  EXPECT_EQ(StartedApps(r), std::vector<std::string>{"guestbook-dev"});

  // The step's own prometheus is enough without a default.
  FakeStore own{set};
  own.set.strategy.steps[1].analysis->prometheus = "http://prometheus:9090";
  r = own.Reconcile(DevQaProd(), kT0);
  EXPECT_TRUE(ConditionOf(r.status, "ErrorOccurred").is_null());
  EXPECT_EQ(StartedApps(r), std::vector<std::string>{"guestbook-dev"});
}

// --- Specs, Applications, idempotence ------------------------------------------------------

TEST(AppSetReconcileTest, SpecsWrittenOnFirstSightAndOnChangeOnly) {
  FakeStore store{RollingSet({EnvStep("dev")})};
  FakeApp a = App("dev-a", "dev", "sim-1");
  a.spec = Spec({{"automated", {{"prune", true}}}});
  auto r = store.Reconcile({a}, kT0);
  ASSERT_EQ(r.specs.count("dev-a"), 1u);
  // RollingSync disables automated sync on what it writes, keeping prune for its operation.
  EXPECT_EQ(r.specs["dev-a"]["syncPolicy"]["automated"]["enabled"], false);
  EXPECT_EQ(r.starts.at(0).record.operation["sync"]["prune"], true);
  ASSERT_TRUE(r.automated_warning);
  r = store.Reconcile({a}, At(1));
  EXPECT_TRUE(r.specs.empty());
  EXPECT_FALSE(r.automated_warning);  // warned once

  // A template change is written, and sends a synced app back to Waiting.
  a.live_image = "ui:1";
  store.Succeed("dev-a", At(2));
  r = store.Reconcile({a}, At(3));
  ASSERT_EQ(EntryOf(r, "dev-a")->status, RolloutAppState::kHealthy);
  a.spec["destination"]["namespace"] = "guestbook-2";
  r = store.Reconcile({a}, At(4));
  ASSERT_EQ(r.specs.count("dev-a"), 1u);
  EXPECT_EQ(r.specs["dev-a"]["destination"]["namespace"], "guestbook-2");
  EXPECT_EQ(r.status["rollout"]["generation"], 2);
}

// The reconcile compares the stored spec with the desired one through their fingerprints first
// and walks both only when the fingerprints differ (or one is missing): equal fingerprints mean
// equal specs, different ones mean nothing (1 and 1.0 are equal JSON).
TEST(AppSetReconcileTest, SpecWriteComparesFingerprintsThenSpecs) {
  Json moved = Spec();
  moved["destination"]["namespace"] = "guestbook-2";
  const Json retry_int = Spec({{"retry", {{"limit", 1}}}});
  const Json retry_double = Spec({{"retry", {{"limit", 1.0}}}});
  ASSERT_NE(SpecFingerprint(retry_int), SpecFingerprint(retry_double));
  const Json automated = Spec({{"automated", {{"prune", true}}}});
  Json automated_off = automated;
  automated_off["syncPolicy"]["automated"]["enabled"] = false;
  struct Case {
    const char* name;
    Json desired;
    bool desired_fingerprint;  // false: generated without one (0)
    Json stored;
    bool written;
    Json served;  // the Application's spec after the reconcile
  };
  const std::vector<Case> cases = {
      {"equal specs, equal fingerprints: not written", Spec(), true, Spec(), false, Spec()},
      {"different specs, different fingerprints: written", moved, true, Spec(), true, moved},
      {"equal specs, different fingerprints (1 and 1.0): not written", retry_int, true,
       retry_double, false, retry_double},
      {"no desired fingerprint, different specs: written", moved, false, Spec(), true, moved},
      {"no desired fingerprint, equal specs: not written", Spec(), false, Spec(), false, Spec()},
      // The generated spec's fingerprint is not the written one's: RollingSync changed it.
      {"stored as generated, before RollingSync disabled automated sync: written", automated, true,
       automated, true, automated_off},
      {"stored with automated sync disabled: not written", automated, true, automated_off, false,
       automated_off},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const ApplicationSet set = RollingSet({EnvStep("dev")});
    FakeApp a = App("dev-a", "dev", "sim-1", "ui:1", "r1", "ui:1");
    a.spec = c.desired;
    AppSetReconcileInput in;
    in.appset = &set;
    in.apps.push_back(Observe(a));
    if (!c.desired_fingerprint) in.apps[0].desired.spec_fingerprint = 0;
    in.stored_apps["dev-a"].spec = c.stored;
    in.now = kT0;
    const AppSetReconcileResult r = ReconcileAppSet(std::move(in));
    EXPECT_EQ(r.specs.count("dev-a"), c.written ? 1u : 0u);
    if (c.written && r.specs.count("dev-a") == 1) {
      EXPECT_EQ(r.specs.at("dev-a"), c.served);
    }
    ASSERT_EQ(r.applications.size(), 1u);
    EXPECT_EQ((*r.applications[0])["spec"], c.served);
    // The observation comes back as generated, whatever the reconcile read.
    EXPECT_EQ(r.observed.at(0).desired.object["spec"], c.desired);
  }
}

TEST(AppSetReconcileTest, HeldBackUpdatesAreNotChanges) {
  // applicationsSync: create-only keeps the Application as first written, so a template change
  // is neither written nor read as a spec change (which would re-roll on every reconcile).
  ApplicationSet set = RollingSet({EnvStep("dev")});
  set.applications_sync = ApplicationsSync::kCreateOnly;
  FakeStore store{set};
  FakeApp a = App("dev-a", "dev", "sim-1", "ui:1", "r1", "ui:1");
  ASSERT_EQ(store.Reconcile({a}, kT0).specs.size(), 1u);  // created
  a.spec["destination"]["namespace"] = "elsewhere";
  const auto r = store.Reconcile({a}, At(1));
  EXPECT_TRUE(r.specs.empty());
  EXPECT_EQ(EntryOf(r, "dev-a")->status, RolloutAppState::kHealthy);
  EXPECT_EQ(r.status["rollout"]["generation"], 1);
  EXPECT_EQ((*r.applications[0])["spec"]["destination"]["namespace"], "guestbook");
}

TEST(AppSetReconcileTest, OperationIdsAreDeterministicAndUniquePerStart) {
  auto ids = [](Time now) {
    FakeStore store{RollingSet({EnvStep("dev")})};
    std::vector<std::string> out;
    for (const auto& s :
         store.Reconcile({App("dev-a", "dev", "sim-1"), App("dev-b", "dev", "sim-2")}, now)
             .starts) {
      out.push_back(s.record.id);
    }
    return out;
  };
  const auto first = ids(kT0);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(ids(kT0), first);     // the same inputs give the same ids
  EXPECT_NE(first[0], first[1]);  // per app
  EXPECT_NE(ids(At(1)), first);   // per start time
  // A manual sync right after, in the same second, at the same revision: still a new id.
  StoredApp stored;
  stored.operation = StartOperation(first[0], Json::object(), {"r1"}, kT0);
  stored.operation->phase = OperationPhase::kSucceeded;
  const ManualSyncDecision again = StartManualSync(Observe(App("dev-a", "dev", "sim-1")), stored,
                                                   {"r1"}, std::nullopt, "bob", kT0);
  ASSERT_TRUE(again.start);
  EXPECT_NE(again.start->record.id, first[0]);
}

TEST(AppSetReconcileTest, ApplicationsRoundTripThroughDecodeApplication) {
  FakeStore store{ThreeSteps()};
  auto fleet = DevQaProd();
  fleet[1].source_error = "guestbook/web.yaml:3:7: bad";
  fleet[2].spec.erase("source");
  fleet[2].spec["sources"] = Json::array({{{"repoURL", "file:///a"}}, {{"repoURL", "file:///b"}}});
  store.Reconcile(fleet, kT0);
  const auto r = store.Reconcile(fleet, At(10));
  ASSERT_EQ(r.applications.size(), 3u);
  DecodedApplications decoded;
  for (const auto& a : r.applications) DecodeApplicationDocument(*a, "api", decoded);
  ASSERT_TRUE(decoded.issues.empty());
  ASSERT_EQ(decoded.apps.size(), 3u);
  const Application& dev = decoded.apps[0];
  EXPECT_EQ(dev.name, "guestbook-dev");
  EXPECT_EQ(dev.labels.at("env"), "dev");
  EXPECT_EQ(dev.sync_status, "OutOfSync");
  EXPECT_EQ(dev.health_status, "Missing");
  EXPECT_EQ(dev.revisions, std::vector<std::string>{"r1"});
  EXPECT_EQ(dev.reconciled_at, At(10));
  ASSERT_TRUE(dev.operation_state);
  EXPECT_EQ(dev.operation_state->phase, "Running");
  EXPECT_EQ(dev.operation_state->started_at, kT0);
  EXPECT_EQ(dev.spec, *store.apps["guestbook-dev"].spec);
  const Application& prod = decoded.apps[1];
  EXPECT_EQ(prod.sync_status, "Unknown");
  EXPECT_TRUE(prod.HasCondition("ComparisonError"));
  const Application& qa = decoded.apps[2];
  EXPECT_TRUE(qa.IsMultiSource());
  EXPECT_EQ((*r.applications[2])["status"]["sync"]["revisions"], Json::array({"r1"}));
  EXPECT_EQ((*r.applications[0])["apiVersion"], "argoproj.io/v1alpha1");
  EXPECT_EQ((*r.applications[0])["kind"], "Application");
  // And a plan over them reads the same rollout as the daemon's.
  const PlanResult replan =
      Plan(store.set, store.status, DesiredFromLive(decoded.apps), decoded.apps, At(10));
  EXPECT_EQ(replan.application_status, r.plan.application_status);
}

TEST(AppSetReconcileTest, ReconcilingThePersistedResultStartsNothingNew) {
  struct Case {
    const char* name;
    ApplicationSet set;
  };
  const std::vector<Case> cases = {
      {"RollingSync", ThreeSteps()},
      {"AllAtOnce automated", AllAtOnceSet()},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    FakeStore store{c.set};
    auto fleet = DevQaProd();
    for (auto& a : fleet) a.spec = Spec({{"automated", Json::object()}});
    const auto first = store.Reconcile(fleet, kT0);
    EXPECT_FALSE(first.starts.empty());
    const auto second = store.Reconcile(fleet, At(1));
    EXPECT_TRUE(second.starts.empty());
    const auto third = store.Reconcile(fleet, At(1));
    EXPECT_TRUE(third.starts.empty());
    EXPECT_EQ(third.status, second.status);
    EXPECT_TRUE(third.log.empty());
    EXPECT_TRUE(third.specs.empty());
  }
}

// The whole rollout, the actor's part played by the test: apply what starts, then report it live.
TEST(AppSetReconcileTest, RolloutRunsStepByStepToCompletion) {
  FakeStore store{ThreeSteps()};
  auto fleet = DevQaProd();
  std::vector<std::string> order;
  std::vector<std::string> log;
  Time now = kT0;
  for (int round = 0; round < 20; ++round) {
    const auto r = store.Reconcile(fleet, now);
    log.insert(log.end(), r.log.begin(), r.log.end());
    for (const auto& s : r.starts) {
      order.push_back(s.app);
      // Every app of an earlier step is Healthy at r1 before a later one starts.
      const int step = std::stoi(EntryOf(r, s.app)->step);
      for (const auto& a : fleet) {
        const int other = std::stoi(EntryOf(r, a.name)->step);
        if (other < step) {
          EXPECT_EQ(EntryOf(r, a.name)->status, RolloutAppState::kHealthy) << a.name;
        }
      }
      now += std::chrono::seconds(1);
      store.Succeed(s.app, now);
      for (auto& a : fleet) {
        if (a.name == s.app) a.live_image = a.image;
      }
    }
    now += std::chrono::seconds(5);
    if (ConditionOf(r.status, "RolloutProgressing")["reason"] == "ApplicationSetRolloutComplete")
      break;
  }
  EXPECT_EQ(order, (std::vector<std::string>{"guestbook-dev", "guestbook-qa", "guestbook-prod"}));
  auto has = [&](const std::string& line) {
    return std::find(log.begin(), log.end(), line) != log.end();
  };
  EXPECT_TRUE(has("appset=guestbook app=guestbook-qa cluster=sim-2 promoted to Pending (step 2)"));
  EXPECT_TRUE(has("appset=guestbook step 1 complete"));
  EXPECT_TRUE(has("appset=guestbook step 2 complete"));
  EXPECT_TRUE(has("appset=guestbook rollout completed"));
}

}  // namespace
}  // namespace fleetwave::engine
