// The `fleetwave get` views with hand-written expected output: kubectl-style tables (upper-case
// headers, AGE, -o wide columns), the step view of one ApplicationSet (plain and coloured), and
// the pieces a watch is made of (the lines a change prints, the in-place redraw).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/time.h"
#include "tools/fleetwave/get_watch.h"
#include "tools/fleetwave/rollout_view.h"
#include "tools/fleetwave/table.h"

namespace fleetwave::cli {
namespace {

using engine::Json;

engine::Time At(const std::string& rfc3339) { return *engine::ParseRfc3339(rfc3339); }

Json Entry(const std::string& app, const std::string& status, const std::string& step,
           const std::string& since = "") {
  Json e = {{"application", app}, {"status", status}, {"step", step}, {"message", ""}};
  if (!since.empty()) e["lastTransitionTime"] = since;
  return e;
}

Json Step(const std::string& env, const Json& max_update = Json()) {
  Json s = {{"matchExpressions", {{{"key", "env"}, {"operator", "In"}, {"values", {env}}}}}};
  if (!max_update.is_null()) s["maxUpdate"] = max_update;
  return s;
}

Json GuestbookSet() {
  return Json{{"metadata", {{"name", "guestbook"}}},
              {"spec",
               {{"file", "/etc/fleetwave/appsets/guestbook.yaml"},
                {"strategy",
                 {{"type", "RollingSync"},
                  {"rollingSync", {{"steps", {Step("dev"), Step("qa", 1), Step("prod", 0)}}}}}}}},
              {"status",
               {{"applicationStatus",
                 {Entry("dev-eu", "Healthy", "1", "2026-12-01T10:00:00Z"),
                  Entry("dev-us", "Healthy", "1", "2026-12-01T10:00:00Z"),
                  Entry("qa-eu", "Healthy", "2", "2026-12-01T10:05:00Z"),
                  Entry("qa-us", "Progressing", "2", "2026-12-01T10:08:00Z"),
                  Entry("prod-eu", "Waiting", "3"), Entry("prod-us", "Waiting", "3")}},
                {"conditions",
                 {{{"type", "RolloutProgressing"},
                   {"status", "True"},
                   {"reason", "ApplicationSetModified"},
                   {"message", "ApplicationSet is performing rollout of step 2"},
                   {"lastTransitionTime", "2026-12-01T10:00:00Z"}},
                  {{"type", "ResourcesUpToDate"},
                   {"status", "True"},
                   {"reason", "ApplicationSetUpToDate"},
                   {"message", "All applications have been generated successfully"},
                   {"lastTransitionTime", "2026-12-01T09:50:00Z"}}}},
                {"rollout", {{"step", 2}, {"stepStartedAt", "2026-12-01T10:00:00Z"}}}}}};
}

Json App(const std::string& name, const std::string& sync, const std::string& health,
         bool by_name = false) {
  Json destination = {{"namespace", "guestbook"}};
  if (by_name) {
    destination["name"] = name;
  } else {
    destination["server"] = "https://" + name + ":6443";
  }
  return Json{
      {"apiVersion", "argoproj.io/v1alpha1"},
      {"kind", "Application"},
      {"metadata", {{"name", name}}},
      {"spec", {{"destination", destination}}},
      {"status",
       {{"sync", {{"status", sync}, {"revision", "0123456789abcdef0123456789abcdef01234567"}}},
        {"health", {{"status", health}}}}}};
}

FleetState Guestbook() {
  FleetState s;
  s.collections["applicationsets"]["guestbook"] = GuestbookSet();
  for (const auto& [name, sync, health] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"dev-eu", "Synced", "Healthy"},
           {"dev-us", "Synced", "Healthy"},
           {"qa-eu", "Synced", "Healthy"},
           {"qa-us", "OutOfSync", "Progressing"},
           {"prod-eu", "OutOfSync", "Healthy"},
           {"prod-us", "OutOfSync", "Healthy"}}) {
    s.collections["applications"][name] = App(name, sync, health, name == "prod-us");
    s.collections["clusters"][name] = Json{
        {"name", name}, {"server", "https://" + name + ":6443"}, {"up", true}, {"synced", true}};
  }
  return s;
}

ViewOptions Plain() { return ViewOptions{false, false, At("2026-12-01T10:10:00Z")}; }

TEST(GetViewsTest, AppSets) {
  struct Case {
    std::string name;
    bool wide;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"Table", false,
       "NAME        STRATEGY      STEP   APPS   STATUS        AGE\n"
       "guestbook   RollingSync   2/3    3/6    Progressing   20m\n"},
      {"Wide", true,
       "NAME        STRATEGY      STEP   APPS   STATUS        AGE   FILE                           "
       " "
       "        MESSAGE\n"
       "guestbook   RollingSync   2/3    3/6    Progressing   20m   "
       "/etc/fleetwave/appsets/guestbook.yaml   ApplicationSet is performing rollout of step 2\n"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ViewOptions options = Plain();
    options.wide = c.wide;
    EXPECT_EQ(AppSetsView(Guestbook(), "", options).text, c.want);
  }
}

TEST(GetViewsTest, Apps) {
  EXPECT_EQ(AppsView(Guestbook(), "", Plain()).text,
            "NAME      APPSET      CLUSTER   STEP   SYNC        HEALTH        ROLLOUT       AGE\n"
            "dev-eu    guestbook   dev-eu    1      Synced      Healthy       Healthy       10m\n"
            "dev-us    guestbook   dev-us    1      Synced      Healthy       Healthy       10m\n"
            "prod-eu   guestbook   prod-eu   3      OutOfSync   Healthy       Waiting       "
            "<unknown>\n"
            "prod-us   guestbook   prod-us   3      OutOfSync   Healthy       Waiting       "
            "<unknown>\n"
            "qa-eu     guestbook   qa-eu     2      Synced      Healthy       Healthy       5m\n"
            "qa-us     guestbook   qa-us     2      OutOfSync   Progressing   Progressing   2m\n");
  ViewOptions wide = Plain();
  wide.wide = true;
  EXPECT_EQ(AppsView(Guestbook(), "qa-us", wide).text,
            "NAME    APPSET      CLUSTER   STEP   SYNC        HEALTH        ROLLOUT       AGE   "
            "NAMESPACE   REVISION   MESSAGE\n"
            "qa-us   guestbook   qa-us     2      OutOfSync   Progressing   Progressing   2m    "
            "guestbook   0123456\n");
}

TEST(GetViewsTest, Clusters) {
  FleetState s;
  s.collections["clusters"]["a"] =
      Json{{"name", "a"}, {"server", "https://a:443"}, {"up", true}, {"synced", true}};
  s.collections["clusters"]["b"] =
      Json{{"name", "b"}, {"server", "https://b:443"}, {"up", true}, {"synced", false}};
  s.collections["clusters"]["c"] =
      Json{{"name", "c"}, {"server", "https://c:443"}, {"up", false}, {"synced", false}};
  EXPECT_EQ(ClustersView(s, "", Plain()).text,
            "NAME   SERVER          STATUS\n"
            "a      https://a:443   Ready\n"
            "b      https://b:443   Syncing\n"
            "c      https://c:443   Unreachable\n");
  ViewOptions wide = Plain();
  wide.wide = true;
  EXPECT_EQ(ClustersView(s, "", wide).text,
            "NAME   SERVER          STATUS        UP      SYNCED\n"
            "a      https://a:443   Ready         true    true\n"
            "b      https://b:443   Syncing       true    false\n"
            "c      https://c:443   Unreachable   false   false\n");
}

TEST(GetViewsTest, Workloads) {
  FleetState s;
  s.collections["workloads"]["dev/shop/Deployment/web"] =
      Json{{"cluster", "dev"},
           {"namespace", "shop"},
           {"kind", "Deployment"},
           {"name", "web"},
           {"deadlineSeconds", 600},
           {"exceeded", true},
           {"condition",
            {{"type", "Progressing"},
             {"status", "False"},
             {"reason", "ProgressDeadlineExceeded"},
             {"message", "Deployment \"web\" has timed out progressing."},
             {"lastTransitionTime", "2026-12-01T10:05:00Z"}}}};
  s.collections["workloads"]["dev/shop/CloneSet/api"] = Json{
      {"cluster", "dev"},           {"namespace", "shop"},  {"kind", "CloneSet"}, {"name", "api"},
      {"deadlineSeconds", nullptr}, {"condition", nullptr}, {"exceeded", false}};
  EXPECT_EQ(WorkloadsView(s, "", Plain()).text,
            "CLUSTER   NAMESPACE   KIND         NAME   PROGRESSING                DEADLINE   AGE\n"
            "dev       shop        CloneSet     api    -                          -          "
            "<unknown>\n"
            "dev       shop        Deployment   web    ProgressDeadlineExceeded   600s       5m\n");
}

TEST(GetViewsTest, StepView) {
  EXPECT_EQ(AppSetStepView(Guestbook(), "guestbook", Plain()).text,
            "NAME        STRATEGY      STEP   APPS   STATUS        AGE\n"
            "guestbook   RollingSync   2/3    3/6    Progressing   20m\n"
            "\n"
            "STEP   SELECTOR        APPS   PROGRESS       MAXUPDATE    STATE\n"
            "1      env in (dev)    2/2    [##########]   100%         Complete\n"
            "2      env in (qa)     1/2    [#####-----]   1            Progressing\n"
            "3      env in (prod)   0/2    [----------]   0 (manual)   Waiting\n"
            "\n"
            "Step 2 applications:\n"
            "APPLICATION   HEALTH        SYNC        CLUSTER   ROLLOUT\n"
            "qa-eu         Healthy       Synced      qa-eu     Healthy\n"
            "qa-us         Progressing   OutOfSync   qa-us     Progressing\n"
            "\n"
            "ApplicationSet is performing rollout of step 2\n");
}

// Issue 29: the current step's analysis measurements under its query and condition, each with
// its value (or error) and result.
TEST(GetViewsTest, StepViewShowsTheAnalysisMeasurements) {
  FleetState s = Guestbook();
  Json& set = s.collections["applicationsets"]["guestbook"];
  set["spec"]["strategy"]["rollingSync"]["steps"][1]["analysis"] = {
      {"query", "sum(errors)"}, {"successCondition", "< 0.5"}, {"count", 3}};
  set["status"]["rollout"]["analysis"] = {
      {"step", 2},
      {"measurements",
       Json::array({{{"time", "2026-03-01T12:00:00Z"}, {"value", 0.25}, {"passed", true}},
                    {{"time", "2026-03-01T12:00:30Z"},
                     {"passed", false},
                     {"error", "Prometheus did not answer: connection refused"}}})}};
  const View view = AppSetStepView(s, "guestbook", Plain());
  EXPECT_NE(view.text.find("\nStep 2 analysis: 1/3 passed, 1 failed; sum(errors) < 0.5\n"
                           "TIME                   VALUE   RESULT   ERROR\n"
                           "2026-03-01T12:00:00Z   0.25    Passed\n"
                           "2026-03-01T12:00:30Z   -       Failed   Prometheus did not answer: "
                           "connection refused\n"),
            std::string::npos)
      << view.text;
  bool line = false;
  for (const auto& [key, text] : view.lines) {
    line = line || (key == "analysis/2026-03-01T12:00:00Z" &&
                    text == "step 2 analysis at 2026-03-01T12:00:00Z: 0.25 passed");
  }
  EXPECT_TRUE(line);
}

// Issue 29: a rollback shows as one line (why, who, when, each phase's count, the kept apps),
// then each failed app with its reason; a set without one shows none.
TEST(GetViewsTest, StepViewShowsTheRollback) {
  FleetState s = Guestbook();
  EXPECT_EQ(AppSetStepView(s, "guestbook", Plain()).text.find("Rollback"), std::string::npos);
  Json& set = s.collections["applicationsets"]["guestbook"];
  set["status"]["rollout"]["rollback"] = Json::parse(R"({
    "reason": "StepFailed", "failedStep": 2, "startedAt": "2026-03-01T12:00:00Z",
    "applications": [
      {"application": "qa-eu", "step": 2, "from": ["b2"], "to": ["a1"], "phase": "RolledBack"},
      {"application": "qa-us", "step": 2, "from": ["b2"], "to": ["a1"], "phase": "Failed",
       "message": "sync failed: forbidden"},
      {"application": "dev", "step": 1, "from": ["b2"], "to": ["a1"], "phase": "Waiting"}],
    "kept": ["dev-new"]})");
  const View view = AppSetStepView(s, "guestbook", Plain());
  const std::string line =
      "Rollback after step 2 failed, started 2026-03-01T12:00:00Z, in progress: 1 rolled back, 0 "
      "syncing, 1 waiting, 1 failed of 3; kept at their revision: dev-new";
  EXPECT_NE(view.text.find("\n" + line + "\n  rollback of qa-us failed: sync failed: forbidden\n"),
            std::string::npos)
      << view.text;
  bool listed = false;
  for (const auto& [key, text] : view.lines) listed = listed || (key == "rollback" && text == line);
  EXPECT_TRUE(listed);
}

// The current step's state follows the rollout: paused, past its deadline, or (once the
// rollout completed) no current step and every step Complete.
TEST(GetViewsTest, StepStates) {
  struct Case {
    std::string name;
    std::function<void(Json&)> change;
    std::string want_step2;  // step 2's row
  };
  const std::vector<Case> cases = {
      {"Paused", [](Json& s) { s["status"]["rollout"]["paused"] = true; },
       "2      env in (qa)     1/2    [#####-----]   1            Paused"},
      {"DeadlineExceeded", [](Json& s) { s["status"]["rollout"]["stepDeadlineExceeded"] = true; },
       "2      env in (qa)     1/2    [#####-----]   1            Deadline exceeded"},
      {"SkippedCountsComplete",
       [](Json& s) {
         s["status"]["rollout"]["skipped"] = {{"qa-us", "cluster rebuilt"}};
       },
       "2      env in (qa)     2/2    [##########]   1            Progressing"},
      // Issue 29: an operator's abort and a failed step, from the RolloutProgressing condition.
      {"Aborted",
       [](Json& s) {
         s["status"]["rollout"]["aborted"] = true;
         s["status"]["conditions"][0] = {{"type", "RolloutProgressing"},
                                         {"status", "False"},
                                         {"reason", "RolloutAborted"},
                                         {"message", "ApplicationSet rollout was aborted"}};
       },
       "2      env in (qa)     1/2    [#####-----]   1            Aborted"},
      {"Failed",
       [](Json& s) {
         s["status"]["conditions"][0] = {{"type", "RolloutProgressing"},
                                         {"status", "False"},
                                         {"reason", "RolloutFailed"},
                                         {"message", "ApplicationSet rollout step 2 failed"}};
       },
       "2      env in (qa)     1/2    [#####-----]   1            Failed"},
      {"RolledBack",
       [](Json& s) {
         s["status"]["conditions"][0] = {{"type", "RolloutProgressing"},
                                         {"status", "False"},
                                         {"reason", "RolloutRolledBack"},
                                         {"message", "ApplicationSet rollout was rolled back"}};
       },
       "2      env in (qa)     1/2    [#####-----]   1            Rolled back"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FleetState s = Guestbook();
    c.change(s.collections["applicationsets"]["guestbook"]);
    const std::string text = AppSetStepView(s, "guestbook", Plain()).text;
    EXPECT_NE(text.find(c.want_step2 + "\n"), std::string::npos) << text;
  }
  FleetState done = Guestbook();
  Json& set = done.collections["applicationsets"]["guestbook"];
  for (Json& e : set["status"]["applicationStatus"]) e["status"] = "Healthy";
  set["status"]["rollout"].erase("step");
  set["status"]["conditions"][0]["reason"] = "ApplicationSetRolloutComplete";
  set["status"]["conditions"][0]["status"] = "False";
  set["status"]["conditions"][0]["message"] = "ApplicationSet Rollout has completed";
  EXPECT_EQ(AppSetStepView(done, "guestbook", Plain()).text,
            "NAME        STRATEGY      STEP   APPS   STATUS     AGE\n"
            "guestbook   RollingSync   3/3    6/6    Complete   20m\n"
            "\n"
            "STEP   SELECTOR        APPS   PROGRESS       MAXUPDATE    STATE\n"
            "1      env in (dev)    2/2    [##########]   100%         Complete\n"
            "2      env in (qa)     2/2    [##########]   1            Complete\n"
            "3      env in (prod)   2/2    [##########]   0 (manual)   Complete\n"
            "\n"
            "ApplicationSet Rollout has completed\n");
}

// On a colour terminal the current step's row is bold cyan, states and health carry their
// colours, and the padding stays outside the escape codes so columns line up.
TEST(GetViewsTest, StepViewColour) {
  ViewOptions options = Plain();
  options.color = true;
  const std::string text = AppSetStepView(Guestbook(), "guestbook", options).text;
  EXPECT_NE(text.find("\x1b[1;36m2\x1b[0m      \x1b[1;36menv in (qa)\x1b[0m     "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\x1b[32mComplete\x1b[0m\n"), std::string::npos);
  EXPECT_NE(text.find("\x1b[1;36mProgressing\x1b[0m\n"), std::string::npos);
  EXPECT_NE(text.find("qa-us         \x1b[33mProgressing\x1b[0m   \x1b[33mOutOfSync\x1b[0m"),
            std::string::npos);
  EXPECT_NE(text.find("\n1      env in (dev)    2/2    \x1b[32m[##########]\x1b[0m"),
            std::string::npos)
      << "step 1 is not current: plain but for its state's colour";
}

TEST(GetViewsTest, Age) {
  const engine::Time now = At("2026-12-01T10:00:00Z");
  struct Case {
    std::string since;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"2026-12-01T10:00:00Z", "0s"},        {"2026-12-01T09:59:15Z", "45s"},
      {"2026-12-01T09:58:01Z", "119s"},      {"2026-12-01T09:56:48Z", "3m12s"},
      {"2026-12-01T09:55:00Z", "5m"},        {"2026-12-01T08:00:00Z", "120m"},
      {"2026-12-01T05:00:00Z", "5h"},        {"2026-12-01T03:30:00Z", "6h30m"},
      {"2026-11-30T10:00:00Z", "24h"},       {"2026-11-28T07:00:00Z", "3d3h"},
      {"2026-10-01T10:00:00Z", "61d"},       {"2023-12-01T10:00:00Z", "3y1d"},
      {"2026-12-01T10:00:05Z", "<invalid>"}, {"", "<unknown>"},
      {"not a time", "<unknown>"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.since);
    EXPECT_EQ(Age(c.since, now), c.want);
  }
}

TEST(GetViewsTest, ProgressBarAndFitWidth) {
  EXPECT_EQ(ProgressBar(0, 4, 8), "[--------]");
  EXPECT_EQ(ProgressBar(1, 4, 8), "[##------]");
  EXPECT_EQ(ProgressBar(4, 4, 8), "[########]");
  EXPECT_EQ(ProgressBar(0, 0, 4), "[####]");
  EXPECT_EQ(FitWidth("abcdef", 4), "abcd");
  EXPECT_EQ(FitWidth("abcdef", 0), "abcdef");
  EXPECT_EQ(FitWidth("\x1b[1;36mabcdef\x1b[0m", 3), "\x1b[1;36mabc\x1b[0m");
  EXPECT_EQ(FitWidth("ab\x1b[32mcd\x1b[0mef", 10), "ab\x1b[32mcd\x1b[0mef");
}

// A watch on a pipe prints the lines that changed, new ones, and the ones that went away.
TEST(GetWatchTest, ChangedLines) {
  const View before{"", {{"a", "a Healthy"}, {"b", "b Progressing"}, {"c", "c Waiting"}}};
  const View after{"", {{"a", "a Healthy"}, {"b", "b Healthy"}, {"d", "d Waiting"}}};
  EXPECT_EQ(ChangedLines(before, after),
            (std::vector<std::string>{"b Healthy", "d Waiting", "c Waiting (deleted)"}));
  EXPECT_EQ(ChangedLines(after, after), std::vector<std::string>{});
}

// The step view's keyed lines carry no ages (a line changes only when its object does) and
// name what they are about.
TEST(GetWatchTest, StepViewLines) {
  const View view = AppSetStepView(Guestbook(), "guestbook", Plain());
  ASSERT_GE(view.lines.size(), 5u);
  EXPECT_EQ(view.lines[0],
            (std::pair<std::string, std::string>{
                "appset/guestbook", "appset guestbook: step 2/3 Progressing, 3/6 apps complete"}));
  EXPECT_EQ(view.lines[2],
            (std::pair<std::string, std::string>{
                "step/2", "step 2 (env in (qa)): 1/2 [#####-----] maxUpdate 1 Progressing"}));
  bool found = false;
  for (const auto& [key, line] : view.lines) {
    if (key == "app/qa-us") {
      found = true;
      EXPECT_EQ(line, "app qa-us (step 2): Progressing OutOfSync on qa-us, rollout Progressing");
    }
  }
  EXPECT_TRUE(found);
}

TEST(GetWatchTest, Redraw) {
  size_t lines = 0;
  EXPECT_EQ(Redraw(0, "ab\ncd\n", 0, 0, &lines), "ab\x1b[K\ncd\x1b[K\n\x1b[J");
  EXPECT_EQ(lines, 2u);
  EXPECT_EQ(Redraw(2, "abcdef\nx\ny\nz\n", 3, 3, &lines), "\x1b[2A\rabc\x1b[K\nx\x1b[K\n\x1b[J");
  EXPECT_EQ(lines, 2u);
}

// Watch events update the state the views read; a bookmark or garbage changes nothing.
TEST(GetWatchTest, ApplyEvents) {
  FleetState s = Guestbook();
  EXPECT_TRUE(s.Apply("applications",
                      Json{{"type", "MODIFIED"}, {"object", App("qa-us", "Synced", "Healthy")}}));
  EXPECT_EQ(s.Of("applications").at("qa-us")["status"]["health"]["status"], "Healthy");
  EXPECT_TRUE(s.Apply("applications",
                      Json{{"type", "DELETED"}, {"object", App("qa-us", "Synced", "Healthy")}}));
  EXPECT_EQ(s.Of("applications").count("qa-us"), 0u);
  EXPECT_FALSE(s.Apply("applications",
                       Json{{"type", "BOOKMARK"}, {"object", {{"initialEventsEnd", true}}}}));
  EXPECT_FALSE(s.Apply("applications", Json{{"type", "ADDED"}, {"object", "x"}}));
  EXPECT_FALSE(s.Apply("clusters", Json::array()));
}

}  // namespace
}  // namespace fleetwave::cli
