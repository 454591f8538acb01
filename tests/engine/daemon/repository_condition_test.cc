// The set's ErrorOccurred condition from the repositories its apps could not read (issue 27):
// which condition a source error gives, how a new one replaces it, and that a reconcile reading
// every repository again clears it, with the pins kept and nothing deleted meanwhile.
#include "engine/repository_condition.h"

#include <gtest/gtest.h>

#include "tests/engine/daemon/daemon_fixture.h"

namespace fleetwave::engine {
namespace {

using namespace daemon_testing;  // NOLINT: the fake fleet

const char* kUrl = "https://git.example.com/org/repo.git";

Error Unreachable() {
  return TransientError(kUrl,
                        "cannot fetch: failed to connect to git.example.com: Connection "
                        "refused");
}
Error Unauthorized() {
  return PermanentError(kUrl,
                        "cannot fetch: authentication failed (username deploy, password "
                        "from /etc/fleetwave/git-token)");
}
Error Vanished() { return NotFoundError(kUrl, "unknown revision \"release\""); }

TEST(RepositoryConditionTest, WhichConditionASourceErrorGives) {
  struct Case {
    const char* name;
    std::vector<Error> errors;
    const char* reason;  // "" = no condition
    std::string message;
  };
  const std::vector<Case> cases = {
      {"no error", {}, "", ""},
      {"unreachable", {Unreachable()}, kRepositoryUnavailable, Unreachable().ToString()},
      {"401", {Unauthorized()}, kRepositoryUnavailable, Unauthorized().ToString()},
      {"host key refused",
       {PermanentError("ssh://git@git.example.com/org/repo",
                       "cannot fetch: the host key of git.example.com does not match its entry "
                       "in /etc/fleetwave/known_hosts")},
       kRepositoryUnavailable,
       "ssh://git@git.example.com/org/repo: cannot fetch: the host key of git.example.com does "
       "not match its entry in /etc/fleetwave/known_hosts"},
      {"vanished revision", {Vanished()}, kRevisionNotFound, Vanished().ToString()},
      {"a vanished revision and an unreachable repository",
       {Vanished(), Unreachable()},
       kRepositoryUnavailable,
       Vanished().ToString() + "; " + Unreachable().ToString()},
      {"a password in the URL is never shown",
       {TransientError("https://deploy:hunter2@git.example.com/org/repo", "cannot fetch: DNS")},
       kRepositoryUnavailable,
       "https://deploy:***@git.example.com/org/repo: cannot fetch: DNS"},
      {"beyond three, counted",
       {TransientError("https://a/r", "x"), TransientError("https://b/r", "x"),
        TransientError("https://c/r", "x"), TransientError("https://d/r", "x"),
        TransientError("https://e/r", "x")},
       kRepositoryUnavailable,
       "https://a/r: x; https://b/r: x; https://c/r: x; and 2 more"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::optional<AppSetCondition> got = RepositoryErrorCondition(c.errors);
    if (!*c.reason) {
      EXPECT_FALSE(got.has_value());
      continue;
    }
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->type, "ErrorOccurred");
    EXPECT_EQ(got->status, "True");
    EXPECT_EQ(got->reason, c.reason);
    EXPECT_EQ(got->message, c.message);
    EXPECT_EQ(got->message.find("hunter2"), std::string::npos);
  }
}

TEST(RepositoryConditionTest, HowItReplacesAndClears) {
  const Time t0 = T("2026-03-01T10:00:00Z");
  const Time t1 = T("2026-03-01T10:05:00Z");
  const AppSetCondition progressing{"RolloutProgressing", "False", "ApplicationSetRolloutComplete",
                                    "ApplicationSet Rollout has completed", t0};
  const AppSetCondition unreachable{"ErrorOccurred", "True", kRepositoryUnavailable,
                                    Unreachable().ToString(), t0};
  const AppSetCondition no_steps{"ErrorOccurred", "True", "ApplicationSetRolloutError",
                                 "No steps defined for rollout", t0};
  struct Case {
    const char* name;
    std::vector<AppSetCondition> before;
    std::vector<Error> errors;
    std::vector<AppSetCondition> want;
  };
  const std::vector<Case> cases = {
      {"set on the first failure, at now",
       {progressing},
       {Unreachable()},
       {{"ErrorOccurred", "True", kRepositoryUnavailable, Unreachable().ToString(), t1},
        progressing}},
      {"the same failure again keeps its transition time",
       {unreachable, progressing},
       {Unreachable()},
       {unreachable, progressing}},
      {"another reason replaces it, at now",
       {unreachable, progressing},
       {Unauthorized()},
       {{"ErrorOccurred", "True", kRepositoryUnavailable, Unauthorized().ToString(), t1},
        progressing}},
      {"a revision gone replaces it too",
       {unreachable, progressing},
       {Vanished()},
       {{"ErrorOccurred", "True", kRevisionNotFound, Vanished().ToString(), t1}, progressing}},
      {"cleared once every repository reads", {unreachable, progressing}, {}, {progressing}},
      {"nothing to clear", {progressing}, {}, {progressing}},
      {"a set without steps says that first", {no_steps}, {Unreachable()}, {no_steps}},
      {"and its condition is not cleared by a good fetch", {no_steps}, {}, {no_steps}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::vector<AppSetCondition> got = ApplyRepositoryErrors(c.before, c.errors, t1);
    ASSERT_EQ(got.size(), c.want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].type, c.want[i].type);
      EXPECT_EQ(got[i].status, c.want[i].status);
      EXPECT_EQ(got[i].reason, c.want[i].reason);
      EXPECT_EQ(got[i].message, c.want[i].message);
      EXPECT_EQ(got[i].last_transition_time, c.want[i].last_transition_time);
    }
  }
}

TEST(RepositoryConditionTest, ManyAppsOnOneRepositoryReportItOnce) {
  std::vector<ObservedApp> apps(3);
  apps[0].repository_errors = {Unreachable()};
  apps[1].repository_errors = {Unreachable(), Vanished()};
  const std::vector<Error> got = RepositoryErrorsOf(apps);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], Unreachable());
  EXPECT_EQ(got[1], Vanished());
}

// Through the reconcile: a failed fetch shows on the set, the apps keep their pins and
// Applications (nothing deleted, nothing synced), and the next good fetch clears it and the
// rollout resumes at the new commit.
TEST(RepositoryConditionTest, AFailedFetchShowsOnTheSetAndClearsWhenAFetchSucceeds) {
  auto fleet = DevQaProd();
  FakeStore store =
      CompletedAtR1(RollingSet({EnvStep("dev"), EnvStep("qa"), EnvStep("prod")}), fleet);
  for (auto& a : fleet) {
    a.source_error = Unauthorized().ToString();
    a.repository_errors = {Unauthorized()};
  }
  auto r = store.Reconcile(fleet, At(60));
  const Json failed = ConditionOf(r.status, "ErrorOccurred");
  ASSERT_FALSE(failed.is_null()) << r.status.dump();
  EXPECT_EQ(failed["status"], "True");
  EXPECT_EQ(failed["reason"], kRepositoryUnavailable);
  EXPECT_EQ(failed["message"], Unauthorized().ToString());
  EXPECT_EQ(failed["lastTransitionTime"], "2026-03-01T12:01:00Z");
  EXPECT_TRUE(LogHas(r, "appset=guestbook ErrorOccurred=True RepositoryUnavailable: " +
                            Unauthorized().ToString()));
  EXPECT_TRUE(r.starts.empty());
  EXPECT_EQ(r.applications.size(), 3u);
  for (const auto& a : fleet) {
    EXPECT_EQ(EntryOf(r, a.name)->target_revisions, std::vector<std::string>{"r1"}) << a.name;
  }

  // Failing the same way: the same condition, its transition time kept, nothing logged again.
  r = store.Reconcile(fleet, At(120));
  EXPECT_EQ(ConditionOf(r.status, "ErrorOccurred")["lastTransitionTime"], "2026-03-01T12:01:00Z");
  EXPECT_FALSE(LogHas(r, "appset=guestbook ErrorOccurred=True RepositoryUnavailable: " +
                             Unauthorized().ToString()));

  // The fetch succeeds again, at a new commit: the condition goes and the rollout resumes.
  for (auto& a : fleet) {
    a.source_error.reset();
    a.repository_errors.clear();
    a.revision = "r2";
    a.image = "ui:2";
  }
  r = store.Reconcile(fleet, At(180));
  EXPECT_TRUE(ConditionOf(r.status, "ErrorOccurred").is_null()) << r.status.dump();
  EXPECT_TRUE(LogHas(r, "appset=guestbook ErrorOccurred cleared: its repositories read again"));
  EXPECT_EQ(StartedApps(r), std::vector<std::string>{"guestbook-dev"});
}

TEST(RepositoryConditionTest, AnAllAtOnceSetShowsItToo) {
  FakeStore store{AllAtOnceSet()};
  FakeApp a = App("guestbook-dev", "dev", "sim-1");
  a.source_error = Vanished().ToString();
  a.repository_errors = {Vanished()};
  auto r = store.Reconcile({a}, kT0);
  EXPECT_EQ(ConditionOf(r.status, "ErrorOccurred")["reason"], kRevisionNotFound) << r.status.dump();
  a.source_error.reset();
  a.repository_errors.clear();
  r = store.Reconcile({a}, At(5));
  EXPECT_TRUE(ConditionOf(r.status, "ErrorOccurred").is_null()) << r.status.dump();
}

// A repository only a git generator reads (the template's apps read another one): the caller
// keeps the last good generation's apps, which read fine, and hands the generator's error in.
// The set shows it as it shows an app's (the URL's password hidden), nothing is synced or
// dropped meanwhile, and the first reconcile whose generation read it again clears it.
TEST(RepositoryConditionTest, ARepositoryOnlyAGitGeneratorReadsShowsOnTheSetAndClears) {
  auto fleet = DevQaProd();
  FakeStore store =
      CompletedAtR1(RollingSet({EnvStep("dev"), EnvStep("qa"), EnvStep("prod")}), fleet);
  const Error generator_gone = NotFoundError("https://deploy:hunter2@git.example.com/org/clusters",
                                             "unknown revision "
                                             "\"main\"");
  struct Step {
    const char* name;
    std::vector<Error> generator_errors;
    const char* reason;  // "" = no ErrorOccurred
    std::string message;
  };
  const std::vector<Step> steps = {
      {"its revision vanished",
       {generator_gone},
       kRevisionNotFound,
       "https://deploy:***@git.example.com/org/clusters: unknown revision \"main\""},
      {"and the template's repository fails too: both, one reason",
       {generator_gone, Unreachable()},
       kRepositoryUnavailable,
       "https://deploy:***@git.example.com/org/clusters: unknown revision \"main\"; " +
           Unreachable().ToString()},
      {"it reads again", {}, "", ""},
  };
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& step = steps[i];
    SCOPED_TRACE(step.name);
    store.generator_errors = step.generator_errors;
    const auto r = store.Reconcile(fleet, At(60 * static_cast<int>(i + 1)));
    const Json condition = ConditionOf(r.status, "ErrorOccurred");
    if (!*step.reason) {
      EXPECT_TRUE(condition.is_null()) << r.status.dump();
    } else {
      ASSERT_FALSE(condition.is_null()) << r.status.dump();
      EXPECT_EQ(condition["status"], "True");
      EXPECT_EQ(condition["reason"], step.reason);
      EXPECT_EQ(condition["message"], step.message);
    }
    EXPECT_EQ(r.status.dump().find("hunter2"), std::string::npos);
    EXPECT_TRUE(r.starts.empty());
    EXPECT_EQ(r.applications.size(), 3u);
    for (const auto& a : fleet) {
      EXPECT_EQ(EntryOf(r, a.name)->target_revisions, std::vector<std::string>{"r1"}) << a.name;
    }
  }
}

// After a start, before the set's first generation in this process, a repository only its git
// generators read that fails is shown on the stored status (StoredStatusWithRepositoryErrors):
// every stored field as it is, ErrorOccurred as ApplyRepositoryErrors says, its time kept from
// what was shown (or stored) while it says the same.
TEST(RepositoryConditionTest, AStoredStatusShownWithoutAGenerationChangesOnlyErrorOccurred) {
  const Time t0 = T("2026-03-01T10:00:00Z");
  const Time t1 = T("2026-03-01T10:05:00Z");
  const Json pins = Json::array({{{"application", "web-dev"},
                                  {"status", "Progressing"},
                                  {"message", "Application resource became Progressing"},
                                  {"step", "1"},
                                  {"targetRevisions", {"r1"}},
                                  {"lastTransitionTime", "2026-03-01T09:00:00Z"}},
                                 {{"application", "web-qa"},
                                  {"status", "Waiting"},
                                  {"message", "Application is waiting for its step"},
                                  {"step", "2"},
                                  {"targetRevisions", {"r1"}}}});
  RolloutState state;
  state.generation = 3;
  state.step = 1;
  state.step_started_at = T("2026-03-01T09:00:00Z");
  const Json rollout = EncodeRolloutState(state);
  const AppSetCondition progressing{"RolloutProgressing", "True", "ApplicationSetModified",
                                    "ApplicationSet is performing rollout of step 1", t0};
  const AppSetCondition no_steps{"ErrorOccurred", "True", "ApplicationSetRolloutError",
                                 "No steps defined for rollout", t0};
  auto with_conditions = [&](std::vector<AppSetCondition> conditions) {
    Json status = {{"applicationStatus", pins}, {"rollout", rollout}, {"resources", {"kept"}}};
    status["conditions"] = Json::array();
    for (const auto& c : conditions) status["conditions"].push_back(EncodeAppSetCondition(c));
    return status;
  };
  auto unreachable_at = [](Time t) {
    return AppSetCondition{"ErrorOccurred", "True", kRepositoryUnavailable,
                           Unreachable().ToString(), t};
  };
  const Error secret_url = TransientError("https://deploy:hunter2@git.example.com/org/clusters",
                                          "cannot fetch: connection refused");
  struct Case {
    const char* name;
    Json stored;
    Json shown;
    std::vector<Error> errors;
    Json want;
  };
  const std::vector<Case> cases = {
      {"the first failure: the stored status with ErrorOccurred at now",
       with_conditions({progressing}),
       nullptr,
       {Unreachable()},
       with_conditions({unreachable_at(t1), progressing})},
      {"still failing: its time is the one shown",
       with_conditions({progressing}),
       with_conditions({unreachable_at(t0), progressing}),
       {Unreachable()},
       with_conditions({unreachable_at(t0), progressing})},
      {"another reason replaces what was shown, at now",
       with_conditions({progressing}),
       with_conditions({unreachable_at(t0), progressing}),
       {Unauthorized()},
       with_conditions(
           {{"ErrorOccurred", "True", kRepositoryUnavailable, Unauthorized().ToString(), t1},
            progressing})},
      {"stored before the stop, the same failure: its stored time",
       with_conditions({unreachable_at(t0), progressing}),
       nullptr,
       {Unreachable()},
       with_conditions({unreachable_at(t0), progressing})},
      {"a set without steps says that first",
       with_conditions({no_steps}),
       nullptr,
       {Unreachable()},
       with_conditions({no_steps})},
      {"a set with no stored status yet: ErrorOccurred alone",
       Json::object(),
       nullptr,
       {secret_url},
       {{"applicationStatus", Json::array()},
        {"conditions",
         {EncodeAppSetCondition({"ErrorOccurred", "True", kRepositoryUnavailable,
                                 "https://deploy:***@git.example.com/org/clusters: cannot fetch: "
                                 "connection refused",
                                 t1})}}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Issues issues;
    const Json got = StoredStatusWithRepositoryErrors(c.stored, c.shown, c.errors, t1, issues);
    EXPECT_EQ(got, c.want) << got.dump(2);
    EXPECT_TRUE(issues.empty());
    EXPECT_EQ(got.dump().find("hunter2"), std::string::npos);
  }
}

// A file that does not parse is the app's ComparisonError, not the set's repository condition.
TEST(RepositoryConditionTest, AFileErrorIsNoRepositoryError) {
  auto fleet = DevQaProd();
  FakeStore store =
      CompletedAtR1(RollingSet({EnvStep("dev"), EnvStep("qa"), EnvStep("prod")}), fleet);
  fleet[0].source_error = "https://git.example.com/org/repo@r1:guestbook/web.yaml:3:7: bad";
  const auto r = store.Reconcile(fleet, At(60));
  EXPECT_TRUE(ConditionOf(r.status, "ErrorOccurred").is_null()) << r.status.dump();
}

}  // namespace
}  // namespace fleetwave::engine
