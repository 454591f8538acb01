// [issue 29] A rollback through the daemon's two deciders: RollingSyncDecider (checked at every
// decision, as at a resync) against ReconcileAppSet on the store's state, the oracle, with real
// observations, stored operations and SyncStarts. A step that fails under `onFailure: Rollback`
// starts one sync back (trigger rollback) per app, at its last healthy revisions, last step
// first; none is sent again while it runs or after it started; one whose cluster is unreachable
// waits for the cluster; a restart mid-rollback goes on with the next app.
#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "engine/rollingsync/appset_decider.h"
#include "engine/rollingsync/rollback.h"
#include "tests/engine/daemon/daemon_fixture.h"
#include "tests/engine/daemon/decider_refresh.h"

namespace fleetwave::engine {
namespace {

using namespace daemon_testing;

// dev (step 1), qa (step 2), prod (step 3: a failure budget of 0 and onFailure: Rollback),
// completed at r1 ("ui:1"); the commit r2 ("ui:2") is being rolled out.
ApplicationSet RollbackSet() {
  RolloutStep prod = EnvStep("prod");
  prod.max_failures = Int(0);
  prod.on_failure = RolloutStep::OnFailure::kRollback;
  return RollingSet({EnvStep("dev"), EnvStep("qa"), prod});
}

// The daemon: a store, the fleet, and a decider seeded from a from-scratch decision. Every
// decision is taken by the decider (DecideChecked: the daemon's own check must agree) and by
// ReconcileAppSet on the store's state; both must decide the same.
class RollbackDaemon {
 public:
  RollbackDaemon()
      : set_(std::make_shared<ApplicationSet>(RollbackSet())),
        fleet_(DevQaProd()),
        store_(CompletedAtR1(*set_, fleet_)) {
    for (auto& a : fleet_) {
      a.revision = "r2";
      a.image = "ui:2";
    }
  }

  // A from-scratch decision at `t`, persisted, and a new decider seeded from it: a new commit,
  // or the daemon starting again.
  AppSetReconcileResult Restart(Time t) {
    now_ = t;
    AppSetReconcileResult r = ReconcileAppSet(Input());
    store_.Persist(r);
    decider_ = std::make_unique<RollingSyncDecider>(set_, store_.status, std::move(r.observed),
                                                    store_.apps, std::nullopt, now_);
    return r;
  }

  // The decision at `t` after `changed` apps changed; the decider's delta (the oracle's agrees).
  AppSetDelta Decide(Time t, const std::set<std::string>& changed = {}) {
    now_ = t;
    for (const auto& name : changed) PutRefreshed(*decider_, name, Observe(Find(name)));
    DeciderCheck check;
    AppSetDelta d = decider_->DecideChecked(now_, check);
    EXPECT_TRUE(check.agrees) << check.difference;
    for (const auto& [app, spec] : d.specs) decider_->SetSpec(app, spec);
    for (const auto& s : d.starts) decider_->SetOperation(s.app, s.record);

    const AppSetReconcileResult r = ReconcileAppSet(Input());
    store_.Persist(r);
    EXPECT_EQ(decider_->status(), r.status);
    EXPECT_EQ(Starts(d.starts), Starts(r.starts));
    EXPECT_EQ(d.log, r.log);
    const auto& apps = decider_->applications();
    EXPECT_EQ(apps.size(), r.applications.size());
    for (size_t i = 0; i < apps.size() && i < r.applications.size(); ++i) {
      EXPECT_EQ(WithoutReconciledAt(*apps[i]), WithoutReconciledAt(*r.applications[i]));
    }
    return d;
  }

  // The app's running sync succeeded at `t`: its cluster runs the content of the operation's
  // revision ("rN" holds "ui:N") with `health`.
  AppSetDelta Synced(const std::string& app, Time t, HealthCode health = HealthCode::kHealthy) {
    store_.Succeed(app, t);
    const OperationRecord& op = *store_.apps.at(app).operation;
    decider_->SetOperation(app, op);
    FakeApp& a = Find(app);
    a.live_image = "ui:" + op.revisions.at(0).substr(1);
    a.live_health = health;
    return Decide(t, {app});
  }

  // The attempt of the app's running sync at `t` could not run: it retries or ends in Error.
  AppSetDelta AttemptFailed(const std::string& app, Time t) {
    store_.FailAttempt(app, t);
    decider_->SetOperation(app, store_.apps.at(app).operation);
    return Decide(t, {app});
  }

  AppSetDelta Reachable(const std::string& app, bool reachable, Time t) {
    Find(app).reachable = reachable;
    return Decide(t, {app});
  }

  const OperationRecord& OperationOf(const std::string& app) const {
    return *store_.apps.at(app).operation;
  }
  const FakeStore& store() const { return store_; }

  static std::vector<std::string> Starts(const std::vector<SyncStart>& starts) {
    std::vector<std::string> out;
    for (const auto& s : starts) {
      out.push_back(s.app + " " + SyncStartTriggerName(s.trigger) + " " + s.record.id + " " +
                    Json(s.record.revisions).dump());
    }
    return out;
  }

 private:
  FakeApp& Find(const std::string& name) {
    for (auto& a : fleet_) {
      if (a.name == name) return a;
    }
    throw std::logic_error("no app " + name);
  }

  AppSetReconcileInput Input() const {
    AppSetReconcileInput in;
    in.appset = set_.get();
    in.stored = store_.status;
    for (const auto& a : fleet_) in.apps.push_back(Observe(a));  // DevQaProd: name order
    in.stored_apps = store_.apps;
    in.automated_warned = true;
    in.now = now_;
    return in;
  }

  std::shared_ptr<ApplicationSet> set_;
  std::vector<FakeApp> fleet_;
  FakeStore store_;
  std::unique_ptr<RollingSyncDecider> decider_;
  Time now_ = kT0;
};

const char* const kDev = "guestbook-dev";
const char* const kQa = "guestbook-qa";
const char* const kProd = "guestbook-prod";

std::vector<std::string> AppsOf(const std::vector<SyncStart>& starts) {
  std::vector<std::string> out;
  for (const auto& s : starts) out.push_back(s.app);
  return out;
}

bool Has(const std::vector<std::string>& log, const std::string& line) {
  return std::find(log.begin(), log.end(), line) != log.end();
}

std::string RolloutMessage(const FakeStore& store) {
  for (const auto& c : store.status.conditions) {
    if (c.type == "RolloutProgressing") return c.message;
  }
  return "";
}

// Rolls r2 out through dev and qa; prod's sync comes up Degraded at the returned time's
// decision, which fails step 3 and starts the rollback (its delta in `failed`).
Time RollOutUntilProdFails(RollbackDaemon& daemon, AppSetDelta& failed) {
  const AppSetReconcileResult commit = daemon.Restart(At(10));
  EXPECT_EQ(StartedApps(commit), std::vector<std::string>{kDev});
  EXPECT_EQ(AppsOf(daemon.Synced(kDev, At(20)).starts), std::vector<std::string>{kQa});
  EXPECT_EQ(AppsOf(daemon.Synced(kQa, At(30)).starts), std::vector<std::string>{kProd});
  failed = daemon.Synced(kProd, At(40), HealthCode::kDegraded);
  return At(40);
}

TEST(RollingSyncDeciderRollback, AFailedStepSyncsEachAppBackOnceLastStepFirst) {
  RollbackDaemon daemon;
  AppSetDelta d;
  RollOutUntilProdFails(daemon, d);
  // prod, the last step's, goes back first, to r1 (its last healthy revision), as a rollback.
  ASSERT_EQ(d.starts.size(), 1u);
  EXPECT_EQ(d.starts[0].app, kProd);
  EXPECT_EQ(d.starts[0].trigger, SyncStartTrigger::kRollback);
  EXPECT_EQ(d.starts[0].record.revisions, std::vector<std::string>{"r1"});
  EXPECT_TRUE(IsRollbackOperation(d.starts[0].record.operation));
  EXPECT_TRUE(Has(d.log,
                  "appset=guestbook app=guestbook-prod cluster=sim-3 sync started "
                  "(rollback) operation=" +
                      d.starts[0].record.id + " revision=r1"));
  const std::string prod_back = d.starts[0].record.id;

  // Not sent again while it runs: time passes, prod changes, a resync.
  EXPECT_TRUE(daemon.Decide(At(41)).starts.empty());
  EXPECT_TRUE(daemon.Decide(At(45), {kProd}).starts.empty());
  EXPECT_EQ(daemon.OperationOf(kProd).id, prod_back);

  // prod is back at r1 and Healthy: qa (step 2) next, then dev (step 1), one each.
  d = daemon.Synced(kProd, At(50));
  EXPECT_EQ(AppsOf(d.starts), std::vector<std::string>{kQa});
  EXPECT_EQ(d.starts.at(0).trigger, SyncStartTrigger::kRollback);
  EXPECT_EQ(d.starts.at(0).record.revisions, std::vector<std::string>{"r1"});
  // Not sent again after it started either: prod's finished sync back stays its operation.
  EXPECT_TRUE(daemon.Decide(At(51), {kProd}).starts.empty());
  EXPECT_EQ(daemon.OperationOf(kProd).id, prod_back);

  d = daemon.Synced(kQa, At(60));
  EXPECT_EQ(AppsOf(d.starts), std::vector<std::string>{kDev});
  EXPECT_EQ(d.starts.at(0).trigger, SyncStartTrigger::kRollback);
  d = daemon.Synced(kDev, At(70));
  EXPECT_TRUE(d.starts.empty());
  EXPECT_NE(RolloutMessage(daemon.store())
                .find("rolled back to each app's last healthy revisions, last step first: 3 of 3 "
                      "apps returned"),
            std::string::npos)
      << RolloutMessage(daemon.store());
  // The held revision rolls nothing out again.
  EXPECT_TRUE(daemon.Decide(At(80), {kDev, kQa, kProd}).starts.empty());
}

TEST(RollingSyncDeciderRollback, ASyncBackWaitsForItsUnreachableClusterAndStartsWhenItIsBack) {
  RollbackDaemon daemon;
  AppSetDelta d;
  RollOutUntilProdFails(daemon, d);
  ASSERT_EQ(AppsOf(d.starts), std::vector<std::string>{kProd});
  // qa's cluster goes away before prod is back: qa's turn comes and its sync back is held.
  EXPECT_TRUE(daemon.Reachable(kQa, false, At(45)).starts.empty());
  d = daemon.Synced(kProd, At(50));
  EXPECT_TRUE(d.starts.empty());
  EXPECT_TRUE(Has(d.log,
                  "appset=guestbook app=guestbook-qa cluster=sim-2 sync back held: "
                  "cluster is unreachable"));
  EXPECT_TRUE(daemon.Decide(At(55)).starts.empty());
  EXPECT_TRUE(daemon.Decide(At(56), {kQa}).starts.empty());
  // A restart meanwhile holds it too: the decider seeded from the stored rollback knows qa's turn.
  EXPECT_TRUE(daemon.Restart(At(57)).starts.empty());
  EXPECT_TRUE(daemon.Decide(At(58), {kQa}).starts.empty());
  // Back: it starts, once.
  d = daemon.Reachable(kQa, true, At(60));
  ASSERT_EQ(AppsOf(d.starts), std::vector<std::string>{kQa});
  EXPECT_EQ(d.starts[0].trigger, SyncStartTrigger::kRollback);
  EXPECT_EQ(d.starts[0].record.revisions, std::vector<std::string>{"r1"});
  EXPECT_TRUE(daemon.Decide(At(61), {kQa}).starts.empty());
}

TEST(RollingSyncDeciderRollback, ARestartMidRollbackGoesOnWithoutResendingASyncBack) {
  RollbackDaemon daemon;
  AppSetDelta d;
  RollOutUntilProdFails(daemon, d);
  const std::string prod_back = d.starts.at(0).record.id;
  d = daemon.Synced(kProd, At(50));
  ASSERT_EQ(AppsOf(d.starts), std::vector<std::string>{kQa});
  const std::string qa_back = d.starts[0].record.id;

  // The daemon starts again while qa's sync back runs: its first decision, from scratch on the
  // stored status, sends nothing again; the decider seeded from it goes on with dev.
  const AppSetReconcileResult first = daemon.Restart(At(55));
  EXPECT_TRUE(first.starts.empty());
  EXPECT_TRUE(daemon.Decide(At(56), {kProd, kQa}).starts.empty());
  EXPECT_EQ(daemon.OperationOf(kProd).id, prod_back);
  EXPECT_EQ(daemon.OperationOf(kQa).id, qa_back);
  d = daemon.Synced(kQa, At(60));
  ASSERT_EQ(AppsOf(d.starts), std::vector<std::string>{kDev});
  EXPECT_EQ(d.starts[0].trigger, SyncStartTrigger::kRollback);

  // Again after qa is back: prod and qa stay rolled back, dev's running sync back is not re-sent.
  EXPECT_TRUE(daemon.Restart(At(65)).starts.empty());
  EXPECT_TRUE(daemon.Decide(At(66), {kDev, kQa, kProd}).starts.empty());
  d = daemon.Synced(kDev, At(70));
  EXPECT_TRUE(d.starts.empty());
  EXPECT_NE(RolloutMessage(daemon.store()).find("3 of 3 apps returned"), std::string::npos)
      << RolloutMessage(daemon.store());
}

TEST(RollingSyncDeciderRollback, ASyncBackEndingInErrorFailsThatAppAndTheNextStepGoesBack) {
  RollbackDaemon daemon;
  AppSetDelta d;
  Time t = RollOutUntilProdFails(daemon, d);
  ASSERT_EQ(AppsOf(d.starts), std::vector<std::string>{kProd});
  const std::string prod_back = d.starts[0].record.id;
  // prod's cluster refuses every attempt: the operation retries, then ends in Error.
  int attempts = 0;
  do {
    t += std::chrono::minutes(10);
    d = daemon.AttemptFailed(kProd, t);
    ++attempts;
    if (daemon.OperationOf(kProd).phase == OperationPhase::kRunning) {
      EXPECT_TRUE(d.starts.empty()) << "attempt " << attempts;
    }
  } while (daemon.OperationOf(kProd).phase == OperationPhase::kRunning && attempts < 20);
  ASSERT_EQ(daemon.OperationOf(kProd).phase, OperationPhase::kError);
  EXPECT_EQ(daemon.OperationOf(kProd).id, prod_back);
  // The rollback goes on with qa; prod is not sent back again.
  ASSERT_EQ(AppsOf(d.starts), std::vector<std::string>{kQa});
  EXPECT_EQ(d.starts[0].trigger, SyncStartTrigger::kRollback);
  EXPECT_TRUE(daemon.Decide(t + std::chrono::seconds(1), {kProd, kQa}).starts.empty());
  EXPECT_NE(RolloutMessage(daemon.store()).find("; failed: guestbook-prod"), std::string::npos)
      << RolloutMessage(daemon.store());
}

}  // namespace
}  // namespace fleetwave::engine
