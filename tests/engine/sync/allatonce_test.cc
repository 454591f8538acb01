// AllAtOnce automated sync and self-heal, the progressiveSyncs gate, RollingSync's disabling
// of automated sync, and the operations every trigger builds (engine/rollingsync/allatonce.h,
// engine/sync/sync_operation.h).
#include "engine/rollingsync/allatonce.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/sync/sync_operation.h"

namespace fleetwave::engine {
namespace {

using std::chrono::seconds;

Json Obj(const char* text) { return Json::parse(text); }
Time At(long long s) { return FromUnixSeconds(1'700'000'000 + s); }

AppSync Status(SyncCode code, const char* message = "") {
  AppSync s;
  s.status = code;
  s.message = message;
  if (code == SyncCode::kOutOfSync) s.reason = SyncReason::kFieldDrift;
  return s;
}

TEST(AutoSyncTest, Decisions) {
  struct Case {
    const char* name;
    const char* spec;
    AppSync sync;
    std::string revision;
    std::string pinned;
    std::optional<LastSync> last;
    bool running;
    size_t desired;
    AutoSyncAction want;
    std::string want_message;
    std::optional<Duration> want_requeue;
  };
  const char* automated = R"({"syncPolicy":{"automated":{}}})";
  const char* self_heal = R"({"syncPolicy":{"automated":{"selfHeal":true}}})";
  const char* manual = R"({"syncPolicy":{}})";
  const char* disabled = R"({"syncPolicy":{"automated":{"enabled":false,"selfHeal":true}}})";
  const char* prune = R"({"syncPolicy":{"automated":{"prune":true}}})";
  const char* prune_empty = R"({"syncPolicy":{"automated":{"prune":true,"allowEmpty":true}}})";
  const AppSync drift =
      Status(SyncCode::kOutOfSync, "Deployment/web has drifted at /spec/replicas");
  const LastSync ok_at_b{"b", true, At(0)};
  const LastSync failed_at_b{"b", false, At(0)};
  const Case cases[] = {
      {"synced at the pinned revision: nothing",
       automated,
       Status(SyncCode::kSynced),
       "b",
       "b",
       ok_at_b,
       false,
       1,
       AutoSyncAction::kNone,
       "",
       {}},
      {"synced at a new revision: the pin moves, nothing applied",
       manual,
       Status(SyncCode::kSynced),
       "c",
       "b",
       ok_at_b,
       false,
       1,
       AutoSyncAction::kFastForward,
       "rendered objects at c are already live; pin moves",
       {}},
      {"unknown: wait",
       automated,
       Status(SyncCode::kUnknown, "cluster is unreachable"),
       "c",
       "b",
       ok_at_b,
       false,
       1,
       AutoSyncAction::kNone,
       "sync status Unknown: cluster is unreachable",
       {}},
      {"an operation is running",
       automated,
       drift,
       "c",
       "b",
       ok_at_b,
       true,
       1,
       AutoSyncAction::kNone,
       "an operation is running",
       {}},
      {"automated, new revision: sync",
       automated,
       drift,
       "c",
       "b",
       ok_at_b,
       false,
       1,
       AutoSyncAction::kSync,
       "OutOfSync (Deployment/web has drifted at /spec/replicas): syncing c",
       {}},
      {"automated, never synced: sync",
       automated,
       drift,
       "b",
       "",
       std::nullopt,
       false,
       1,
       AutoSyncAction::kSync,
       "OutOfSync (Deployment/web has drifted at /spec/replicas): syncing b",
       {}},
      {"no automated: wait for a manual sync",
       manual,
       drift,
       "c",
       "b",
       ok_at_b,
       false,
       1,
       AutoSyncAction::kWaitForManualSync,
       "OutOfSync (Deployment/web has drifted at /spec/replicas); automated sync is off: waiting "
       "for a manual sync",
       {}},
      {"automated enabled=false: wait for a manual sync",
       disabled,
       drift,
       "c",
       "b",
       ok_at_b,
       false,
       1,
       AutoSyncAction::kWaitForManualSync,
       "OutOfSync (Deployment/web has drifted at /spec/replicas); automated sync is off: waiting "
       "for a manual sync",
       {}},
      {"drift at the synced revision without selfHeal: nothing",
       automated,
       drift,
       "b",
       "b",
       ok_at_b,
       false,
       1,
       AutoSyncAction::kNone,
       "Skipping auto-sync: most recent sync already to b",
       {}},
      {"drift with selfHeal after the timeout: sync",
       self_heal,
       drift,
       "b",
       "b",
       ok_at_b,
       false,
       1,
       AutoSyncAction::kSync,
       "Self-healing: Deployment/web has drifted at /spec/replicas",
       {}},
      {"failed attempt at this revision is not repeated",
       self_heal,
       drift,
       "b",
       "b",
       failed_at_b,
       false,
       1,
       AutoSyncAction::kNone,
       "Skipping auto-sync: failed previous sync attempt to b",
       {}},
      {"prune with nothing desired: refused",
       prune,
       Status(SyncCode::kOutOfSync, "x"),
       "c",
       "b",
       ok_at_b,
       false,
       0,
       AutoSyncAction::kNone,
       "Skipping sync attempt to c: auto-sync will wipe out all resources (set allowEmpty to "
       "allow it)",
       {}},
      {"prune with nothing desired and allowEmpty: sync",
       prune_empty,
       Status(SyncCode::kOutOfSync, "x"),
       "c",
       "b",
       ok_at_b,
       false,
       0,
       AutoSyncAction::kSync,
       "OutOfSync (x): syncing c",
       {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    AutoSyncInput in;
    in.app_spec = Obj(c.spec);
    in.sync = c.sync;
    in.revision = c.revision;
    in.pinned_revision = c.pinned;
    in.last_sync = c.last;
    in.operation_running = c.running;
    in.desired_objects = c.desired;
    const AutoSyncDecision d = DecideAutoSync(in, At(10));
    EXPECT_EQ(d.action, c.want);
    EXPECT_EQ(d.message, c.want_message);
    EXPECT_EQ(d.requeue_after, c.want_requeue);
  }
}

TEST(AutoSyncTest, SelfHealWaitsForItsTimeout) {
  AutoSyncInput in;
  in.app_spec = Obj(R"({"syncPolicy":{"automated":{"selfHeal":true}}})");
  in.sync = Status(SyncCode::kOutOfSync, "Deployment/web has drifted at /spec/replicas");
  in.revision = in.pinned_revision = "b";
  in.last_sync = LastSync{"b", true, At(0)};
  in.desired_objects = 1;
  // Finished at 0, timeout 5 s: at 3 s it is due in 2 s; at 5 s it syncs.
  AutoSyncDecision early = DecideAutoSync(in, At(3));
  EXPECT_EQ(early.action, AutoSyncAction::kNone);
  EXPECT_EQ(early.requeue_after, Duration(seconds(2)));
  EXPECT_EQ(DecideAutoSync(in, At(5)).action, AutoSyncAction::kSync);
  in.self_heal_timeout = seconds(0);
  EXPECT_EQ(DecideAutoSync(in, At(0)).action, AutoSyncAction::kSync);
}

TEST(ProgressiveSyncsTest, Gate) {
  struct Case {
    const char* name;
    bool progressive;
    const char* type;
    bool want_reconcile;
  };
  const Case cases[] = {
      {"enabled, RollingSync", true, "RollingSync", true},
      {"disabled, RollingSync: not reconciled", false, "RollingSync", false},
      {"disabled, AllAtOnce", false, "AllAtOnce", true},
      {"disabled, no strategy", false, "", true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Strategy s;
    s.type = c.type;
    const ReconcileGate g = GateProgressiveSyncs(c.progressive, s);
    EXPECT_EQ(g.reconcile, c.want_reconcile);
    if (c.want_reconcile) {
      EXPECT_FALSE(g.condition);
    } else {
      ASSERT_TRUE(g.condition);
      EXPECT_EQ(g.condition->type, "ErrorOccurred");
      EXPECT_EQ(g.condition->status, "True");
      EXPECT_EQ(g.condition->reason, "ProgressiveSyncsDisabled");
      EXPECT_EQ(g.condition->message,
                "Progressive syncs are disabled (progressiveSyncs: false); this RollingSync "
                "ApplicationSet is not reconciled");
    }
  }
}

GeneratedApplication App(const char* name, const char* spec) {
  GeneratedApplication a;
  a.name = name;
  a.object = {{"metadata", {{"name", name}}}, {"spec", Obj(spec)}};
  return a;
}

TEST(RollingSyncAutomatedTest, DisabledAndWarnedOnce) {
  ApplicationSet set;
  set.name = "guestbook";
  set.strategy.type = "RollingSync";
  set.strategy.steps.resize(1);
  const std::vector<GeneratedApplication> apps = {
      App("a", R"({"syncPolicy":{"automated":{"prune":true,"selfHeal":true}}})"),
      App("b", R"({"syncPolicy":{}})")};
  const AutomatedDisabled first = DisableAutomatedForRollingSync(set, apps, false);
  ASSERT_EQ(first.apps.size(), 2u);
  EXPECT_EQ(first.apps[0].object["spec"]["syncPolicy"]["automated"],
            Obj(R"({"enabled":false,"prune":true,"selfHeal":true})"));
  EXPECT_EQ(first.apps[1].object["spec"], Obj(R"({"syncPolicy":{}})"));
  EXPECT_FALSE(AutomatedSyncEnabled(first.apps[0].object["spec"]));
  ASSERT_TRUE(first.warning);
  EXPECT_EQ(*first.warning,
            "ApplicationSet guestbook uses RollingSync: automated sync of its Applications is "
            "disabled; only the rollout or a manual sync starts syncs");
  EXPECT_TRUE(first.warned);
  // The next reconcile: the caller remembers it warned; apps are still disabled.
  const AutomatedDisabled second = DisableAutomatedForRollingSync(set, apps, first.warned);
  EXPECT_FALSE(second.warning);
  EXPECT_TRUE(second.warned);
  EXPECT_FALSE(AutomatedSyncEnabled(second.apps[0].object["spec"]));
  // The rollout's operation keeps the template's prune.
  EXPECT_EQ(BuildSyncOperation(second.apps[0].object["spec"], {"abc"}, false)["sync"]["prune"],
            true);
  // No automated anywhere: no warning.
  EXPECT_FALSE(DisableAutomatedForRollingSync(set, {apps[1]}, false).warning);
  // AllAtOnce sets keep automated.
  ApplicationSet all;
  all.name = "x";
  const AutomatedDisabled untouched = DisableAutomatedForRollingSync(all, apps, false);
  EXPECT_FALSE(untouched.warning);
  EXPECT_TRUE(AutomatedSyncEnabled(untouched.apps[0].object["spec"]));
}

TEST(SyncOperationTest, EveryTriggerUsesTheSameShape) {
  const Json spec = Obj(R"({"syncPolicy":{"automated":{"prune":true},
      "syncOptions":["CreateNamespace=true"],"retry":{"limit":2}}})");
  const Json rollout = BuildSyncOperation(spec, {"abc"}, false);
  EXPECT_EQ(rollout,
            Obj(R"({"initiatedBy":{"username":"applicationset-controller","automated":true},
      "info":[{"name":"Reason","value":"ApplicationSet RollingSync triggered a sync of this Application resource"}],
      "sync":{"revision":"abc","prune":true,"syncOptions":["CreateNamespace=true"]},
      "retry":{"limit":2}})"));
  EXPECT_EQ(BuildAutomatedSyncOperation(spec, {"abc"}, false),
            Obj(R"({"initiatedBy":{"automated":true},
      "sync":{"revision":"abc","prune":true,"syncOptions":["CreateNamespace=true"]},
      "retry":{"limit":2}})"));

  struct Case {
    const char* name;
    bool multi;
    std::optional<std::string> revision;
    std::vector<std::string> pinned;
    Json want_sync;
    std::string want_error;
  };
  const Case cases[] = {
      {"pinned revision", false, std::nullopt, {"abc"}, Obj(R"({"revision":"abc"})"), ""},
      {"--revision overrides the pin", false, "def", {"abc"}, Obj(R"({"revision":"def"})"), ""},
      {"never pinned, no --revision: the source's own",
       false,
       std::nullopt,
       {},
       Json::object(),
       ""},
      {"multi-source at the pins",
       true,
       std::nullopt,
       {"a", "b"},
       Obj(R"({"revisions":["a","b"]})"),
       ""},
      {"multi-source refuses --revision",
       true,
       "def",
       {"a", "b"},
       nullptr,
       "--revision names one revision; this application has several sources"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const ManualSync m =
        BuildManualSyncOperation(Obj(R"({})"), c.pinned, c.multi, c.revision, "alice");
    EXPECT_EQ(m.error.value_or(Error{}).message, c.want_error);
    if (!c.want_error.empty()) {
      EXPECT_TRUE(m.operation.is_null());
      continue;
    }
    EXPECT_EQ(m.operation["initiatedBy"], Obj(R"({"username":"alice"})"));
    EXPECT_FALSE(m.operation.contains("info"));
    EXPECT_EQ(m.operation["sync"], c.want_sync);
    EXPECT_EQ(m.operation["retry"], Obj(R"({"limit":5})"));
  }
}

}  // namespace
}  // namespace fleetwave::engine
