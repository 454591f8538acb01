// Issue 32: a RollingSync set heals drift in step order. A Healthy app whose live objects no
// longer match its pinned revision (an object deleted or changed by another tool) goes back to
// Waiting and is synced again by the rollout, as a new revision of that app alone would be: in
// step order, within its step's maxUpdate, never while paused, and a step with a drifted app
// holds the later ones. With `fleetwave.io/drift: report` (or no selfHeal in the template) the
// drift is only reported.
#include <gtest/gtest.h>

#include "tests/engine/daemon/daemon_fixture.h"

namespace fleetwave::engine::daemon_testing {
namespace {

constexpr const char* kDriftMessage =
    "Application resource drifted from its pinned revision, setting status to Waiting";

ApplicationSet Healing(ApplicationSet set) {
  set.template_ = {{"spec", {{"syncPolicy", {{"automated", {{"selfHeal", true}}}}}}}};
  return set;
}

ApplicationSet ThreeHealingSteps() {
  return Healing(RollingSet({EnvStep("dev"), EnvStep("qa"), EnvStep("prod")}));
}

TEST(RolloutDrift, DriftInACompletedStepIsSyncedAgainAloneAndTheRolloutCompletesAgain) {
  for (const char* live : {"", "attacker/evil:latest"}) {  // deleted, changed by another tool
    SCOPED_TRACE(*live ? "changed" : "deleted");
    auto fleet = DevQaProd();
    FakeStore store = CompletedAtR1(ThreeHealingSteps(), fleet);
    fleet[0].live_image = live;
    auto r = store.Reconcile(fleet, At(60));
    EXPECT_EQ(r.plan.healed, std::vector<std::string>{"guestbook-dev"});
    EXPECT_TRUE(r.plan.drifted.empty());
    EXPECT_EQ(StartedApps(r), std::vector<std::string>{"guestbook-dev"})
        << "only the drifted app is synced, at once: its step is the first one";
    EXPECT_EQ(r.starts[0].record.revisions, std::vector<std::string>{"r1"}) << "the pin stays";
    EXPECT_EQ(EntryOf(r, "guestbook-dev")->status, RolloutAppState::kPending);
    EXPECT_EQ(EntryOf(r, "guestbook-qa")->status, RolloutAppState::kHealthy);
    EXPECT_EQ(EntryOf(r, "guestbook-prod")->status, RolloutAppState::kHealthy);
    EXPECT_NE(ConditionOf(r.status, "RolloutProgressing")["message"],
              "ApplicationSet Rollout has completed");
    bool logged = false;
    for (const auto& line : r.log) {
      logged |= line.rfind(
                    "appset=guestbook app=guestbook-dev cluster=sim-1 drifted from its "
                    "pinned revision (Deployment/web",
                    0) == 0;
    }
    EXPECT_TRUE(logged) << "the log names the object that drifted";

    store.Succeed("guestbook-dev", At(61));
    fleet[0].live_image = "ui:1";
    r = store.Reconcile(fleet, At(62));
    EXPECT_TRUE(r.starts.empty());
    EXPECT_TRUE(r.plan.healed.empty());
    EXPECT_EQ(EntryOf(r, "guestbook-dev")->status, RolloutAppState::kHealthy);
    EXPECT_EQ(ConditionOf(r.status, "RolloutProgressing")["message"],
              "ApplicationSet Rollout has completed");
  }
}

TEST(RolloutDrift, DriftInALaterStepWaitsForItsStepAndHoldsNothingBefore) {
  auto fleet = DevQaProd();
  FakeStore store = CompletedAtR1(ThreeHealingSteps(), fleet);
  fleet[0].revision = "r2";  // a commit for dev only: step 1 rolls out
  fleet[0].image = "ui:2";
  auto r = store.Reconcile(fleet, At(60));
  ASSERT_EQ(StartedApps(r), std::vector<std::string>{"guestbook-dev"});
  fleet[1].live_image = "";  // prod's Deployment deleted by hand meanwhile
  r = store.Reconcile(fleet, At(61));
  EXPECT_EQ(r.plan.healed, std::vector<std::string>{"guestbook-prod"});
  EXPECT_EQ(EntryOf(r, "guestbook-prod")->status, RolloutAppState::kWaiting);
  EXPECT_EQ(EntryOf(r, "guestbook-prod")->message, kDriftMessage);
  EXPECT_TRUE(r.starts.empty()) << "step 3 is not open while step 1 runs";

  store.Succeed("guestbook-dev", At(62));
  fleet[0].live_image = "ui:2";
  r = store.Reconcile(fleet, At(63));
  EXPECT_EQ(StartedApps(r), std::vector<std::string>{"guestbook-prod"})
      << "dev done, qa Healthy: prod's step opens and its drift is synced";
  EXPECT_EQ(r.starts[0].record.revisions, std::vector<std::string>{"r1"});
}

TEST(RolloutDrift, DriftInTheRunningStepWaitsForItsStepsMaxUpdate) {
  auto fleet = std::vector<FakeApp>{App("dev-a", "dev", "sim-1"), App("dev-b", "dev", "sim-2"),
                                    App("qa-a", "qa", "sim-3")};
  FakeStore store =
      CompletedAtR1(Healing(RollingSet({EnvStep("dev", Int(1)), EnvStep("qa")})), fleet);
  for (auto& a : fleet) {
    a.revision = "r2";
    a.image = "ui:2";
  }
  auto r = store.Reconcile(fleet, At(60));
  ASSERT_EQ(StartedApps(r), std::vector<std::string>{"dev-a"});
  store.Succeed("dev-a", At(61));
  fleet[0].live_image = "ui:2";
  r = store.Reconcile(fleet, At(62));
  ASSERT_EQ(StartedApps(r), std::vector<std::string>{"dev-b"});
  ASSERT_EQ(EntryOf(r, "dev-a")->status, RolloutAppState::kHealthy);

  fleet[0].live_image = "";  // dev-a drifts while dev-b holds the step's one slot
  r = store.Reconcile(fleet, At(63));
  EXPECT_EQ(r.plan.healed, std::vector<std::string>{"dev-a"});
  EXPECT_EQ(EntryOf(r, "dev-a")->status, RolloutAppState::kWaiting);
  EXPECT_TRUE(r.starts.empty()) << "maxUpdate 1: dev-b's sync holds the slot";

  store.Succeed("dev-b", At(64));
  fleet[1].live_image = "ui:2";
  r = store.Reconcile(fleet, At(65));
  EXPECT_EQ(StartedApps(r), std::vector<std::string>{"dev-a"});
  EXPECT_EQ(r.starts[0].record.revisions, std::vector<std::string>{"r2"});
  EXPECT_EQ(EntryOf(r, "qa-a")->status, RolloutAppState::kWaiting)
      << "the step with a drifted app is not complete: qa waits";
}

TEST(RolloutDrift, DriftWhilePausedWaitsForResume) {
  auto fleet = DevQaProd();
  FakeStore store = CompletedAtR1(ThreeHealingSteps(), fleet);
  store.status.rollout.paused = true;
  store.status.rollout.paused_at = At(50);
  fleet[0].live_image = "";
  auto r = store.Reconcile(fleet, At(60));
  EXPECT_EQ(r.plan.healed, std::vector<std::string>{"guestbook-dev"});
  EXPECT_EQ(EntryOf(r, "guestbook-dev")->status, RolloutAppState::kWaiting);
  EXPECT_TRUE(r.starts.empty()) << "nothing is synced while paused";
  r = store.Reconcile(fleet, At(70));
  EXPECT_TRUE(r.plan.healed.empty()) << "found once: the entry is Waiting now";
  EXPECT_TRUE(r.starts.empty());

  store.status.rollout.paused = false;
  store.status.rollout.paused_at.reset();
  r = store.Reconcile(fleet, At(80));
  EXPECT_EQ(StartedApps(r), std::vector<std::string>{"guestbook-dev"});
}

TEST(RolloutDrift, ReportedDriftIsShownAndNeverCorrected) {
  ApplicationSet annotated = ThreeHealingSteps();
  annotated.drift_policy = "report";
  ApplicationSet no_self_heal = RollingSet({EnvStep("dev"), EnvStep("qa"), EnvStep("prod")});
  for (const auto& [name, set] : std::vector<std::pair<const char*, ApplicationSet>>{
           {"fleetwave.io/drift: report", annotated}, {"no selfHeal", no_self_heal}}) {
    SCOPED_TRACE(name);
    auto fleet = DevQaProd();
    FakeStore store = CompletedAtR1(set, fleet);
    // Changed, not deleted: a deleted Deployment is also Missing, which holds the step as any
    // regressed health does (rollingsync.md §4), so the rollout would not read as completed.
    fleet[0].live_image = "attacker/evil:latest";
    for (int t : {60, 70}) {
      const auto r = store.Reconcile(fleet, At(t));
      EXPECT_EQ(r.plan.drifted, std::vector<std::string>{"guestbook-dev"})
          << "reported on every reconcile while it lasts";
      EXPECT_TRUE(r.plan.healed.empty());
      EXPECT_TRUE(r.starts.empty());
      EXPECT_EQ(EntryOf(r, "guestbook-dev")->status, RolloutAppState::kHealthy);
      EXPECT_EQ(ConditionOf(r.status, "RolloutProgressing")["message"],
                "ApplicationSet Rollout has completed");
      for (const auto& a : r.applications) {
        if ((*a)["metadata"]["name"] == "guestbook-dev") {
          EXPECT_EQ((*a)["status"]["sync"]["status"], "OutOfSync");
        }
      }
    }
    fleet[0].live_image = "ui:1";  // put back by hand
    EXPECT_TRUE(store.Reconcile(fleet, At(80)).plan.drifted.empty());
  }
}

TEST(RolloutDrift, ThePolicyComesFromTheAnnotationThenTheTemplate) {
  struct Case {
    const char* name;
    const char* annotation;
    Json automated;
    bool heals;
  };
  const Case cases[] = {
      {"selfHeal true", "", {{"selfHeal", true}}, true},
      {"selfHeal false", "", {{"selfHeal", false}}, false},
      {"automated without selfHeal", "", Json::object(), false},
      {"no automated", "", nullptr, false},
      {"selfHeal as a string is not a yes", "", {{"selfHeal", "true"}}, false},
      {"report wins over selfHeal", "report", {{"selfHeal", true}}, false},
      {"heal without selfHeal", "heal", nullptr, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ApplicationSet set = RollingSet({EnvStep("dev")});
    set.drift_policy = c.annotation;
    if (!c.automated.is_null())
      set.template_ = {{"spec", {{"syncPolicy", {{"automated", c.automated}}}}}};
    EXPECT_EQ(RollingSyncHealsDrift(set), c.heals);
  }
}

TEST(RolloutDrift, TheAnnotationIsDecodedAndAnUnknownValueIsAnIssue) {
  const auto decode = [](const std::string& value) {
    return DecodeApplicationSet(
        YAML::Load("apiVersion: argoproj.io/v1alpha1\n"
                   "kind: ApplicationSet\n"
                   "metadata:\n"
                   "  name: guestbook\n"
                   "  annotations:\n"
                   "    fleetwave.io/drift: " +
                   value +
                   "\n"
                   "spec:\n"
                   "  generators: []\n"
                   "  template:\n"
                   "    metadata: {name: x}\n"
                   "    spec:\n"
                   "      project: default\n"
                   "      source: {repoURL: file:///r, path: p}\n"
                   "      destination: {server: https://x, namespace: y}\n"),
        "set.yaml");
  };
  const DecodedApplicationSet report = decode("report");
  ASSERT_TRUE(report.appset);
  EXPECT_TRUE(report.issues.empty()) << FormatIssue(report.issues.front());
  EXPECT_EQ(report.appset->drift_policy, "report");
  const DecodedApplicationSet wrong = decode("fix");
  ASSERT_EQ(wrong.issues.size(), 1u);
  EXPECT_EQ(FormatIssue(wrong.issues[0]),
            "set.yaml:6:25: metadata.annotations.fleetwave.io/drift: unsupported value \"fix\" "
            "(supported: heal, report)");
}

}  // namespace
}  // namespace fleetwave::engine::daemon_testing
