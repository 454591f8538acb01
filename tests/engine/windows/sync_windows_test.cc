// Argo CD's sync-window rules (engine/sync/sync_windows.h) as tables: when a window is active,
// which apps it applies to, whether a sync may start, and the next edge a daemon wakes up at.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/sync/sync_windows.h"

namespace fleetwave::engine {
namespace {

Time T(const char* text) { return *ParseRfc3339(text); }

SyncWindow Window(bool deny, const char* schedule, long long seconds, const char* duration) {
  SyncWindow w;
  w.deny = deny;
  w.schedule_text = schedule;
  std::string why;
  w.schedule = *ParseCron(schedule, &why);
  w.duration_seconds = seconds;
  w.duration_text = duration;
  w.applications = {"*"};
  return w;
}

TEST(SyncWindowsTest, ActiveFromTheMatchingMinuteForTheDuration) {
  const SyncWindow w = Window(true, "0 22 * * *", 3600, "1h");
  struct Row {
    const char* at;
    bool active;
  };
  for (const Row& row : {Row{"2026-03-02T21:59:59Z", false}, Row{"2026-03-02T22:00:00Z", true},
                         Row{"2026-03-02T22:59:59Z", true}, Row{"2026-03-02T23:00:00Z", false},
                         Row{"2026-03-03T10:00:00Z", false}}) {
    EXPECT_EQ(WindowActive(w, T(row.at)), row.active) << row.at;
  }
  // A duration longer than the period: always active.
  const SyncWindow always = Window(true, "0 * * * *", 7200, "2h");
  EXPECT_TRUE(WindowActive(always, T("2026-03-02T10:30:00Z")));
}

TEST(SyncWindowsTest, NextEdgeIsTheStartOrTheEnd) {
  const SyncWindow w = Window(true, "0 22 * * *", 3600, "1h");
  EXPECT_EQ(FormatRfc3339(*NextWindowEdge(w, T("2026-03-02T10:00:00Z"))), "2026-03-02T22:00:00Z");
  EXPECT_EQ(FormatRfc3339(*NextWindowEdge(w, T("2026-03-02T22:10:00Z"))), "2026-03-02T23:00:00Z");
  // Overlapping activity: the next schedule minute comes first; waking there changes nothing
  // and the following edge is the end of the last one.
  const SyncWindow overlap = Window(true, "*/30 * * * *", 3600, "1h");
  EXPECT_EQ(FormatRfc3339(*NextWindowEdge(overlap, T("2026-03-02T10:10:00Z"))),
            "2026-03-02T10:30:00Z");
  EXPECT_FALSE(NextWindowEdge(Window(true, "0 0 30 2 *", 60, "1m"), T("2026-03-02T10:10:00Z")));
}

TEST(SyncWindowsTest, AppliesByApplicationClusterOrNamespace) {
  SyncWindow w = Window(true, "* * * * *", 60, "1m");
  w.applications = {"prod-*"};
  w.clusters = {"https://prod.*"};
  w.namespaces = {"payments"};
  struct Row {
    WindowTarget target;
    bool or_applies;
    bool and_applies;
  };
  for (const Row& row : {
           Row{{"prod-a", "https://stage", "stage", "web"}, true, false},
           Row{{"stage-a", "https://prod.eu", "", "web"}, true, false},
           Row{{"stage-a", "", "prod-by-name", "web"}, false, false},
           Row{{"stage-a", "https://stage", "stage", "payments"}, true, false},
           Row{{"prod-a", "https://prod.eu", "eu", "payments"}, true, true},
           Row{{"stage-a", "https://stage", "stage", "web"}, false, false},
       }) {
    w.and_operator = false;
    EXPECT_EQ(WindowApplies(w, row.target), row.or_applies) << row.target.app;
    w.and_operator = true;
    EXPECT_EQ(WindowApplies(w, row.target), row.and_applies) << row.target.app;
  }
  w.clusters = {"prod-by-*"};
  w.and_operator = false;
  EXPECT_TRUE(WindowApplies(w, {"stage-a", "", "prod-by-name", "web"}));  // by cluster name
}

TEST(SyncWindowsTest, GlobMatch) {
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("a*c", "abbbc"));
  EXPECT_TRUE(GlobMatch("a?c", "abc"));
  EXPECT_FALSE(GlobMatch("a?c", "ac"));
  EXPECT_TRUE(GlobMatch("https://*.example.com/*", "https://git.example.com/org/repo"));
  EXPECT_FALSE(GlobMatch("prod", "prod-a"));
  EXPECT_TRUE(GlobMatch("*-*-*-x", "a-b-c-d-x"));
}

TEST(SyncWindowsTest, ArgoCdRules) {
  const Time in = T("2026-03-02T22:30:00Z");   // inside 22:00+1h
  const Time out = T("2026-03-02T12:00:00Z");  // outside
  const WindowTarget app{"web", "https://prod", "prod", "web"};
  SyncWindow deny = Window(true, "0 22 * * *", 3600, "1h");
  SyncWindow allow = Window(false, "0 22 * * *", 3600, "1h");
  SyncWindow other_app = Window(true, "0 22 * * *", 3600, "1h");
  other_app.applications = {"api"};
  struct Row {
    const char* name;
    std::vector<SyncWindow> windows;
    Time now;
    bool manual;
    bool allowed;
  };
  SyncWindow deny_manual = deny;
  deny_manual.manual_sync = true;
  SyncWindow allow_manual = allow;
  allow_manual.manual_sync = true;
  for (const Row& row : {
           Row{"no windows", {}, in, false, true},
           Row{"a window of another app", {other_app}, in, false, true},
           Row{"active deny", {deny}, in, false, false},
           Row{"inactive deny", {deny}, out, false, true},
           Row{"active allow", {allow}, in, false, true},
           Row{"inactive allow", {allow}, out, false, false},
           Row{"deny beats allow", {allow, deny}, in, false, false},
           Row{"manual through a manualSync deny", {deny_manual}, in, true, true},
           Row{"automatic never through a deny", {deny_manual}, in, false, false},
           Row{"manual needs every active deny to allow it", {deny_manual, deny}, in, true, false},
           Row{"manual outside a manualSync allow", {allow_manual}, out, true, true},
           Row{"manual outside a plain allow", {allow}, out, true, false},
       }) {
    const SyncVerdict v = CanSync(row.windows, app, row.now, row.manual);
    EXPECT_EQ(v.allowed, row.allowed) << row.name;
    EXPECT_EQ(v.window == nullptr, row.allowed) << row.name;
  }
  EXPECT_EQ(HoldReason(CanSync({deny}, app, in, false), "prod"),
            "sync window deny '0 22 * * *' 1h (UTC) of project 'prod' is active");
  EXPECT_EQ(HoldReason(CanSync({allow}, app, out, false), "prod"),
            "no allow sync window of project 'prod' is active (allow '0 22 * * *' 1h (UTC))");
}

}  // namespace
}  // namespace fleetwave::engine
