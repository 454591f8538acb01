// Each phase of a RollingSync reconcile (rollout_phases.h) driven alone, on hand-made rows:
// join (§3), the step gate (§4), promotion within maxUpdate (§5), the choice of syncs (§6) and
// the rollout state and conditions (§7). The whole reconcile is pinned by rollout_plan_test.cc
// and the conformance vectors.
#include "engine/rollingsync/rollout_phases.h"

#include <gtest/gtest.h>

#include "engine/rollingsync/rollout_spec_diff.h"
#include "engine/sync/sync_operation.h"
#include "tests/engine/rollingsync/builders.h"

namespace fleetwave::engine {
namespace {

using namespace testing_builders;
using S = RolloutAppState;

const Time kNow = T("2026-03-01T12:00:00Z");

// Everything a phase reads, kept alive for the rows that point into it.
struct Reconcile {
  Strategy strategy;
  std::vector<Application> live;
  std::vector<GeneratedApplication> desired;
  StepAssignment assignment;

  Reconcile(std::vector<RolloutStep> steps, std::vector<Application> apps) : live(std::move(apps)) {
    strategy = RollingSet(std::move(steps)).strategy;
    desired = DesiredOf(live);
    assignment = AssignSteps(strategy, desired);
  }

  JoinedApps Join(std::vector<AppRolloutStatus> stored,
                  std::map<std::string, std::string>* skipped = nullptr,
                  const std::vector<std::string>& ignore = {}) const {
    std::map<std::string, std::string> none;
    return JoinApps(desired, assignment, live, std::move(stored), ignore, skipped ? *skipped : none,
                    kNow);
  }
};

// Two steps: a, b on step 1 and c on step 2.
Reconcile TwoSteps(const std::string& sync = "OutOfSync") {
  return Reconcile({StepIn("step", {"1"}), StepIn("step", {"2"})},
                   {Live("a", "1", sync), Live("b", "1", sync), Live("c", "2", sync)});
}

std::vector<std::string> Names(const JoinedApps& joined) {
  std::vector<std::string> out;
  for (const auto& row : joined.rows) out.push_back(row.live->name);
  return out;
}

std::vector<S> States(const JoinedApps& joined) {
  std::vector<S> out;
  for (const auto& entry : joined.entries) out.push_back(entry.status);
  return out;
}

// --- Step numbers ----------------------------------------------------------------------------

TEST(StepNumbers, EveryDesiredOrLiveAppWithItsOneBasedStep) {
  Reconcile rc({StepIn("step", {"1"}), StepIn("step", {"2"})},
               {Live("c", "2"), Live("a", "1"), Live("orphan", "1"), Live("x", "")});
  rc.desired.pop_back();                          // x is live only
  rc.desired.erase(rc.desired.begin() + 2);       // and so is orphan
  rc.desired.push_back(Desired(Live("b", "2")));  // b is desired only
  rc.assignment = AssignSteps(rc.strategy, rc.desired);
  const std::map<std::string, int> expected = {
      {"a", 1}, {"b", 2}, {"c", 2}, {"orphan", -1}, {"x", -1}};
  EXPECT_EQ(StepNumbers(rc.desired, &rc.assignment, rc.live), expected);
  const std::map<std::string, int> none = {
      {"a", -1}, {"b", -1}, {"c", -1}, {"orphan", -1}, {"x", -1}};
  EXPECT_EQ(StepNumbers(rc.desired, nullptr, rc.live), none);
}

// --- 1. JoinApps ---------------------------------------------------------------------------

TEST(JoinApps, RowsInNameOrderWithTheirDesiredAppStepAndEntry) {
  Reconcile rc({StepIn("step", {"1"}), StepIn("step", {"2"})},
               {Live("c", "2", "OutOfSync"), Live("a", "1", "OutOfSync"), Live("x", "")});
  // A desired app not created yet has no row.
  rc.desired.push_back(Desired(Live("b", "1")));
  rc.assignment = AssignSteps(rc.strategy, rc.desired);
  const JoinedApps j = rc.Join({Entry("c", S::kPending, "2"), Entry("a", S::kWaiting, "1"),
                                Entry("gone", S::kHealthy, "1")});
  EXPECT_EQ(Names(j), (std::vector<std::string>{"a", "c", "x"}));
  EXPECT_EQ(j.rows[0].step, 0);
  EXPECT_EQ(j.rows[1].step, 1);
  EXPECT_EQ(j.rows[2].step, -1);
  EXPECT_EQ(j.entries[0].step, "1");
  EXPECT_EQ(j.entries[2].step, "-1");
  EXPECT_EQ(j.entries[1].status, S::kPending);
  EXPECT_EQ(j.entries[1].message, "earlier message");
  ASSERT_EQ(j.row_of_desired.size(), 4u);
  EXPECT_EQ(j.row_of_desired[0], 1u);                  // c
  EXPECT_EQ(j.row_of_desired[1], 0u);                  // a
  EXPECT_EQ(j.row_of_desired[2], 2u);                  // x
  EXPECT_EQ(j.row_of_desired[3], JoinedApps::kNoRow);  // b
  for (const auto& row : j.rows) EXPECT_EQ(row.desired->name, row.live->name);
  EXPECT_FALSE(j.new_generation);
}

TEST(JoinApps, AnAppWithoutAnEntryStartsWaiting) {
  const Reconcile rc = TwoSteps();
  const JoinedApps j = rc.Join({});
  EXPECT_EQ(States(j), (std::vector<S>{S::kWaiting, S::kWaiting, S::kWaiting}));
  EXPECT_EQ(j.entries[0].message, "No Application status found, defaulting status to Waiting");
  EXPECT_EQ(j.entries[0].target_revisions, std::vector<std::string>{"r1"});
  EXPECT_FALSE(j.new_generation);
}

TEST(JoinApps, ChangesSendSyncedEntriesBackToWaitingAndStartAGeneration) {
  struct Case {
    const char* name;
    S stored;
    bool new_spec;
    std::string live_revision;
    std::vector<std::string> ignore;
    S expected;
    const char* message;  // nullptr: the stored one
  };
  const Case cases[] = {
      {"NoChange", S::kHealthy, false, "r1", {}, S::kHealthy, nullptr},
      {"SpecChanged",
       S::kHealthy,
       true,
       "r1",
       {},
       S::kWaiting,
       "Application has pending changes (spec differs), setting status to Waiting"},
      {"SpecChangeIgnored",
       S::kHealthy,
       true,
       "r1",
       {"/spec/source/targetRevision"},
       S::kHealthy,
       nullptr},
      {"RevisionChanged",
       S::kProgressing,
       false,
       "r2",
       {},
       S::kWaiting,
       "Application has pending changes, setting status to Waiting"},
      {"PendingIgnoresTheSpec", S::kPending, true, "r1", {}, S::kPending, nullptr},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Reconcile rc({StepIn("step", {"1"})}, {Live("a", "1", "OutOfSync", "Progressing")});
    rc.live[0].revisions = {c.live_revision};
    rc.live[0].reconciled_at = T("2026-03-01T11:50:00Z");  // older than the entry: no news
    rc.live[0].spec_fingerprint = SpecFingerprint(rc.live[0].spec);
    if (c.new_spec) rc.desired[0].object["spec"]["source"]["targetRevision"] = "v2";
    rc.desired[0].spec_fingerprint = SpecFingerprint(DesiredSpecOf(rc.desired[0]));
    const JoinedApps j = rc.Join({Entry("a", c.stored, "1")}, nullptr, c.ignore);
    EXPECT_EQ(j.entries[0].status, c.expected);
    EXPECT_EQ(j.entries[0].message, c.message ? c.message : "earlier message");
    EXPECT_EQ(j.entries[0].target_revisions, std::vector<std::string>{c.live_revision});
    EXPECT_EQ(j.new_generation, c.message != nullptr);
  }
}

TEST(JoinApps, TheFirstOfTwoStoredEntriesForOneAppCounts) {
  AppRolloutStatus second = Entry("a", S::kHealthy, "1");
  second.message = "second";
  const Reconcile rc = TwoSteps();
  const JoinedApps j = rc.Join({Entry("b", S::kPending, "1"), Entry("a", S::kPending, "1"), second,
                                Entry("c", S::kWaiting, "2")});
  EXPECT_EQ(States(j), (std::vector<S>{S::kPending, S::kPending, S::kWaiting}));
  EXPECT_EQ(j.entries[0].message, "earlier message");
}

TEST(JoinApps, SkipsLastForOneRevisionAndOnlyWhileTheAppExists) {
  Reconcile rc = TwoSteps();
  rc.live[1].revisions = {"r2"};  // b is pinned to a new revision
  std::map<std::string, std::string> skipped = {
      {"a", "cluster retired"}, {"b", "flaky"}, {"gone", "deleted app"}};
  const JoinedApps j = rc.Join(
      {Entry("a", S::kWaiting, "1"), Entry("b", S::kWaiting, "1"), Entry("c", S::kWaiting, "2")},
      &skipped);
  EXPECT_TRUE(j.rows[0].skipped);
  EXPECT_EQ(j.entries[0].message, "Application skipped: cluster retired");
  EXPECT_FALSE(j.rows[1].skipped);
  EXPECT_FALSE(j.rows[2].skipped);
  EXPECT_EQ(skipped, (std::map<std::string, std::string>{{"a", "cluster retired"}}));
}

// --- The gate ------------------------------------------------------------------------------

TEST(OpenSteps, AStepHoldsTheNextUntilEveryAppCompletesIt) {
  struct Case {
    const char* name;
    S a, b;
    const char* b_health;
    bool skip_b;
    int current_step;  // 1-based; 0 = all complete
  };
  const Case cases[] = {
      {"StepOneRunning", S::kHealthy, S::kProgressing, "Healthy", false, 1},
      {"StepOneDone", S::kHealthy, S::kHealthy, "Healthy", false, 2},
      {"LiveDegradedHoldsAHealthyEntry", S::kHealthy, S::kHealthy, "Degraded", false, 1},
      {"SkippedCountsAsComplete", S::kHealthy, S::kWaiting, "Healthy", true, 2},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Reconcile rc = TwoSteps();
    rc.live[1].health_status = c.b_health;
    JoinedApps j = rc.Join({});
    j.entries[0].status = c.a;
    j.entries[1].status = c.b;
    j.rows[1].skipped = c.skip_b;
    EXPECT_EQ(OpenSteps(rc.assignment, j).CurrentStep(), c.current_step);
  }
}

TEST(OpenSteps, ADesiredAppNotCreatedYetHoldsItsStep) {
  Reconcile rc = TwoSteps("Synced");
  rc.desired.push_back(Desired(Live("b2", "1")));
  rc.assignment = AssignSteps(rc.strategy, rc.desired);
  const JoinedApps j = rc.Join({});  // a and b are Synced and Healthy: Healthy at once
  EXPECT_EQ(j.entries[0].status, S::kHealthy);
  EXPECT_EQ(OpenSteps(rc.assignment, j).CurrentStep(), 1);
}

// --- 2. PromoteApps ------------------------------------------------------------------------

TEST(PromoteApps, WaitingAppsOfOpenStepsWithinTheBudgetInNameOrder) {
  struct Case {
    const char* name;
    std::optional<IntOrString> max_update;
    bool paused;
    bool skip_a;
    std::vector<S> expected;  // a, b, c
  };
  const Case cases[] = {
      {"Unlimited", std::nullopt, false, false, {S::kPending, S::kPending, S::kWaiting}},
      {"OneAtATime", Int(1), false, false, {S::kPending, S::kWaiting, S::kWaiting}},
      {"FiftyPercentOfTwo", Str("50%"), false, false, {S::kPending, S::kWaiting, S::kWaiting}},
      {"Paused", std::nullopt, true, false, {S::kWaiting, S::kWaiting, S::kWaiting}},
      {"SkippedStaysWaiting", Int(1), false, true, {S::kWaiting, S::kPending, S::kWaiting}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Reconcile rc = TwoSteps();
    rc.strategy.steps[0].max_update = c.max_update;
    JoinedApps j = rc.Join({});
    j.rows[0].skipped = c.skip_a;
    const Eligibility open = PromoteApps(rc.strategy, rc.assignment, c.paused, j, kNow);
    EXPECT_EQ(States(j), c.expected);
    EXPECT_EQ(open.CurrentStep(), 1);
    if (c.expected[1] == S::kPending) {
      EXPECT_EQ(j.entries[1].message,
                "Application moved to Pending status, watching for the Application resource to "
                "start Progressing");
      EXPECT_EQ(j.entries[1].last_transition_time, kNow);
    }
  }
}

TEST(PromoteApps, AnAppAlreadyInProgressUsesTheBudget) {
  Reconcile rc = TwoSteps();
  rc.strategy.steps[0].max_update = Int(1);
  JoinedApps j = rc.Join({Entry("a", S::kWaiting, "1"), Entry("b", S::kProgressing, "1")});
  PromoteApps(rc.strategy, rc.assignment, false, j, kNow);
  EXPECT_EQ(States(j), (std::vector<S>{S::kWaiting, S::kProgressing, S::kWaiting}));
}

TEST(PromoteApps, AStepCompletedByPromotionOpensTheNextInTheSameReconcile) {
  // a's sync already ran and it is Healthy: promoted, it moves on to Healthy at once, which
  // completes step 1 and lets c be promoted now rather than on the next reconcile.
  Reconcile rc({StepIn("step", {"1"}), StepIn("step", {"2"})},
               {Live("a", "1"), Live("c", "2", "OutOfSync")});
  rc.live[0].reconciled_at = kNow;
  rc.live[0].operation_state = OperationState{"Succeeded", kNow, Json::object()};
  JoinedApps j = rc.Join({});
  j.entries[0].status = S::kWaiting;  // as stored before the sync started
  const Eligibility open = PromoteApps(rc.strategy, rc.assignment, false, j, kNow);
  EXPECT_EQ(States(j), (std::vector<S>{S::kHealthy, S::kPending}));
  EXPECT_EQ(open.CurrentStep(), 2);
}

// --- 3. SelectSyncs ------------------------------------------------------------------------

TEST(SelectSyncs, PendingAppsOfOpenStepsWithTheirOperation) {
  Reconcile rc = TwoSteps();
  // The desired specs add a sync option the live ones lack, so each operation shows which
  // spec it was built from.
  for (auto& d : rc.desired) d.object["spec"]["syncPolicy"] = {{"syncOptions", {"Validate=false"}}};
  JoinedApps j = rc.Join({});
  for (auto& entry : j.entries) entry.status = S::kPending;
  j.rows[0].desired = nullptr;  // a is no longer generated: its live spec is synced
  const Eligibility step_one{0};
  const Eligibility all{-1};

  EXPECT_EQ(SelectSyncs(j, step_one, false).apps, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(SelectSyncs(j, all, true).apps.empty());
  j.rows[1].skipped = true;
  const SyncSelection s = SelectSyncs(j, all, false);
  EXPECT_EQ(s.apps, (std::vector<std::string>{"a", "c"}));
  ASSERT_EQ(s.operations.size(), 2u);
  EXPECT_EQ(s.operations.at("c")["sync"]["revision"], "r1");
  EXPECT_EQ(s.operations.at("c")["sync"]["syncOptions"], Json::array({"Validate=false"}));
  EXPECT_FALSE(s.operations.at("a")["sync"].contains("syncOptions"));
  EXPECT_EQ(s.operations.at("a"), BuildSyncOperation(rc.live[0].spec, {"r1"}, false));
}

// --- 4. FinishRollout ----------------------------------------------------------------------

const AppSetCondition& ConditionOf(const RolloutOutcome& o, const std::string& type) {
  for (const auto& c : o.conditions) {
    if (c.type == type) return c;
  }
  throw std::runtime_error("no condition " + type);
}

TEST(FinishRollout, StateConditionsAndDeadline) {
  Strategy strategy = TwoSteps().strategy;
  strategy.steps[1].progress_deadline_seconds = 600;
  RolloutState stored;
  stored.generation = 3;
  stored.step = 1;
  stored.step_started_at = T("2026-03-01T11:00:00Z");
  const std::vector<AppSetCondition> previous = {
      {"ErrorOccurred", "True", "ApplicationSetRolloutError", "old", T("2026-03-01T10:00:00Z")},
      {"Other", "True", "Kept", "kept", T("2026-03-01T10:00:00Z")}};
  RolloutConfigIssues issues;
  issues.empty_steps = {1};

  const RolloutOutcome o = FinishRollout(strategy, stored, previous, issues,
                                         /*new_generation=*/false, Eligibility{1}, kNow);
  EXPECT_EQ(o.rollout.generation, 3);
  EXPECT_EQ(o.rollout.step, 2);
  EXPECT_EQ(o.rollout.step_started_at, kNow);
  EXPECT_EQ(o.step_deadline, T("2026-03-01T12:10:00Z"));
  std::vector<std::string> types;
  for (const auto& c : o.conditions) types.push_back(c.type);
  EXPECT_EQ(types, (std::vector<std::string>{"InvalidRolloutConfig", "Other", "ResourcesUpToDate",
                                             "RolloutProgressing"}));
  EXPECT_EQ(ConditionOf(o, "InvalidRolloutConfig").message,
            "Steps [2] have no applications matching their criteria");
  EXPECT_EQ(ConditionOf(o, "RolloutProgressing").reason, "ApplicationSetModified");

  const RolloutOutcome next = FinishRollout(strategy, stored, previous, issues,
                                            /*new_generation=*/true, Eligibility{-1}, kNow);
  EXPECT_EQ(next.rollout.generation, 4);
  EXPECT_EQ(next.rollout.step, 0);
  EXPECT_FALSE(next.step_deadline);
  EXPECT_EQ(ConditionOf(next, "RolloutProgressing").reason, "ApplicationSetRolloutComplete");
}

}  // namespace
}  // namespace fleetwave::engine
