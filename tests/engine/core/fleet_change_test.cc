// The coordinator's rules for its running actors as tables (engine/fleet_change.h): which
// cluster contexts spawn, restart or retire, which ApplicationSets spawn, get a new spec or are
// marked no longer defined (only while the inputs are trusted), the lines logged about it, when
// a fresh configuration replaces the one in force, and when a retired context may stop.
#include "engine/fleet_change.h"

#include <gtest/gtest.h>

namespace fleetwave::engine {
namespace {

using Names = std::vector<std::string>;

ApplicationSet Set(const std::string& name) {
  ApplicationSet s;
  s.name = name;
  return s;
}

template <typename Map>
Names KeysOf(const Map& m) {
  Names out;
  for (const auto& [k, v] : m) out.push_back(k);
  return out;
}

TEST(PlanFleetChange, Clusters) {
  struct Case {
    const char* name;
    std::vector<WantedCluster> wanted;
    std::set<std::string> running;
    std::set<std::string> retired;
    Names stop_retired, spawn, restart, retire;
    Names log;
  } cases[] = {
      {"a new context gets an actor", {{"east", false}}, {}, {}, {}, {"east"}, {}, {}, {}},
      {"an unchanged context keeps its actor", {{"east", true}}, {"east"}, {}, {}, {}, {}, {}, {}},
      {"a changed context restarts",
       {{"east", false}},
       {"east"},
       {},
       {},
       {},
       {"east"},
       {},
       {"cluster=east changed in the kubeconfig; its actor restarts"}},
      {"a removed context retires",
       {{"east", true}},
       {"east", "west"},
       {},
       {},
       {},
       {},
       {"west"},
       {"cluster=west left the kubeconfig; its actor runs on while a pending deletion needs it"}},
      {"a retired context that is back: the retired actor stops, a new one spawns",
       {{"west", false}},
       {},
       {"west"},
       {"west"},
       {"west"},
       {},
       {},
       {}},
      {"a retired context that is still gone stays retired", {}, {}, {"west"}, {}, {}, {}, {}, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FleetNow now;
    now.clusters = c.wanted;
    now.running_clusters = c.running;
    now.retired_clusters = c.retired;
    const FleetChange change = PlanFleetChange(now);
    EXPECT_EQ(change.stop_retired, c.stop_retired);
    EXPECT_EQ(change.spawn_clusters, c.spawn);
    EXPECT_EQ(change.restart_clusters, c.restart);
    EXPECT_EQ(change.retire_clusters, c.retire);
    EXPECT_EQ(change.log, c.log);
  }
}

TEST(PlanFleetChange, ApplicationSets) {
  struct Case {
    const char* name;
    std::map<std::string, std::vector<ApplicationSet>> good_files;
    std::map<std::string, RunningSet> running;
    bool trusted;
    Names spawn, respec;
    std::vector<std::pair<std::string, bool>> undefined;  // name, defined afterwards
    Names log;
  } cases[] = {
      {"a new set is spawned",
       {{"a.yaml", {Set("web")}}},
       {},
       true,
       {"web"},
       {},
       {},
       {"appset=web loaded from a.yaml"}},
      {"a set still defined gets its new spec, quietly",
       {{"a.yaml", {Set("web")}}},
       {{"web", {true, "a.yaml"}}},
       true,
       {},
       {"web"},
       {},
       {}},
      {"a set defined again after its mark says so",
       {{"b.yaml", {Set("web")}}},
       {{"web", {false, "a.yaml"}}},
       true,
       {},
       {"web"},
       {},
       {"appset=web is defined again in b.yaml"}},
      {"a set no file defines is marked PendingDeletion when trusted",
       {},
       {{"web", {true, "a.yaml"}}},
       true,
       {},
       {},
       {{"web", false}},
       {"appset=web is no longer defined (was in a.yaml); it is marked PendingDeletion"}},
      {"untrusted inputs mark nothing",
       {},
       {{"web", {true, "a.yaml"}}},
       false,
       {},
       {},
       {{"web", true}},
       {}},
      {"an already marked set is not marked again",
       {},
       {{"web", {false, "a.yaml"}}},
       true,
       {},
       {},
       {{"web", false}},
       {}},
      {"two definitions: the first file wins, the other is logged",
       {{"a.yaml", {Set("web")}}, {"b.yaml", {Set("web")}}},
       {},
       true,
       {"web"},
       {},
       {},
       {"b.yaml: ApplicationSet web is also defined in a.yaml; the first one is used",
        "appset=web loaded from a.yaml"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FleetNow now;
    now.good_files = &c.good_files;
    now.sets = c.running;
    now.trusted = c.trusted;
    const FleetChange change = PlanFleetChange(now);
    EXPECT_EQ(KeysOf(change.spawn_sets), c.spawn);
    EXPECT_EQ(KeysOf(change.respec_sets), c.respec);
    std::vector<std::pair<std::string, bool>> undefined;
    for (const auto& u : change.undefined_sets) undefined.emplace_back(u.name, u.defined);
    EXPECT_EQ(undefined, c.undefined);
    EXPECT_EQ(change.log, c.log);
    EXPECT_EQ(change.inputs_trusted, c.trusted);
  }
}

TEST(PlanFleetChange, TheWinningDefinitionCarriesItsFile) {
  const std::map<std::string, std::vector<ApplicationSet>> files{{"a.yaml", {Set("web")}},
                                                                 {"b.yaml", {Set("web")}}};
  FleetNow now;
  now.good_files = &files;
  now.sets = {{"web", {true, "b.yaml"}}};
  const FleetChange change = PlanFleetChange(now);
  ASSERT_EQ(change.respec_sets.count("web"), 1u);
  EXPECT_EQ(change.respec_sets.at("web").file, "a.yaml");
  EXPECT_EQ(change.respec_sets.at("web").set, &files.at("a.yaml")[0]);
}

TEST(PlanFleetChange, DeletionGraceIsNeverNegative) {
  for (const auto& [given, expected] :
       std::vector<std::pair<std::int64_t, std::int64_t>>{{-5, 0}, {0, 0}, {300, 300}}) {
    FleetNow now;
    now.deletion_grace_seconds = given;
    EXPECT_EQ(PlanFleetChange(now).deletion_grace_seconds, expected) << given;
  }
}

TEST(SetTimingsOf, PollsAtLeastASecondApartAndGraceNeverNegative) {
  using std::chrono::seconds;
  struct Case {
    const char* name;
    std::int64_t poll, grace;
    seconds want_poll, want_grace;
  } cases[] = {
      {"as configured", 60, 300, seconds(60), seconds(300)},
      {"a zero poll interval polls every second", 0, 0, seconds(1), seconds(0)},
      {"a negative poll interval too", -30, 10, seconds(1), seconds(10)},
      {"a negative grace is none", 5, -5, seconds(5), seconds(0)},
      {"one second is kept", 1, 1, seconds(1), seconds(1)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const SetTimings t = SetTimingsOf(c.poll, c.grace);
    EXPECT_EQ(t.poll_interval, c.want_poll);
    EXPECT_EQ(t.deletion_grace, c.want_grace);
  }
}

TEST(PlanConfigLoad, ErrorsKeepThePreviousConfiguration) {
  struct Case {
    const char* name;
    std::vector<std::string> errors, before;
    bool load_failed, first;
    bool take_fresh;
    std::optional<std::string> line;
    bool degraded;
  } cases[] = {
      {"a clean load is taken", {}, {"old"}, false, false, true, std::nullopt, false},
      {"a failing reload keeps the configuration in force",
       {"f.yaml: bad", "k: gone"},
       {},
       false,
       false,
       false,
       "reload: f.yaml: bad; k: gone; the previous configuration stays in force",
       true},
      {"the first load just names its errors",
       {"f.yaml: bad"},
       {},
       false,
       true,
       false,
       "f.yaml: bad",
       true},
      {"the same errors again are not counted twice",
       {"f.yaml: bad"},
       {"f.yaml: bad"},
       false,
       false,
       false,
       "reload: f.yaml: bad; the previous configuration stays in force",
       false},
      {"a load that failed outright was counted where it failed",
       {"boom (the reload failed)"},
       {},
       true,
       false,
       false,
       "reload: boom (the reload failed); the previous configuration stays in force",
       false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ConfigLoad load;
    load.errors = &c.errors;
    load.errors_before = &c.before;
    load.load_failed = c.load_failed;
    load.first = c.first;
    const ConfigVerdict v = PlanConfigLoad(load);
    EXPECT_EQ(v.take_fresh, c.take_fresh);
    EXPECT_EQ(v.line, c.line);
    EXPECT_EQ(v.degraded, c.degraded);
  }
}

TEST(DirectoryLine, UnreadableOrEmptyDirectoriesKeepTheSets) {
  struct Case {
    const char* name;
    std::optional<std::string> error;
    bool empty, had_sets;
    std::optional<std::string> line;
  } cases[] = {
      {"unreadable", std::string("sets: permission denied"), false, true,
       "reload: sets: permission denied; the ApplicationSets loaded before stay in force"},
      {"empty after sets were loaded", std::nullopt, true, true,
       "reload: the ApplicationSet directory /etc/sets is empty; the ApplicationSets loaded "
       "before stay in force and nothing is deleted"},
      {"empty from the start is nothing to say", std::nullopt, true, false, std::nullopt},
      {"a readable directory with files", std::nullopt, false, true, std::nullopt},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(DirectoryLine(c.error, c.empty, c.had_sets, "/etc/sets"), c.line);
  }
}

TEST(RetiredToStop, OnlyUnneededAndSettled) {
  const Time t0{std::chrono::seconds(1000)};
  const std::chrono::seconds settle(25);
  const std::map<std::string, Time> retired{
      {"needed", t0}, {"settled", t0}, {"fresh", t0 + std::chrono::seconds(10)}};
  EXPECT_EQ(RetiredToStop(retired, {"needed"}, t0 + settle, settle), Names{"settled"});
  EXPECT_EQ(RetiredToStop(retired, {"needed"}, t0 + settle - std::chrono::seconds(1), settle),
            Names{});
  EXPECT_EQ(RetiredToStop(retired, {}, t0 + settle + std::chrono::seconds(10), settle),
            (Names{"fresh", "needed", "settled"}));
}

TEST(RefuseOperatorDeletion, OnlyWhileAFileDefinesTheSet) {
  EXPECT_EQ(RefuseOperatorDeletion("web", {false, "a.yaml"}, "alice"), std::nullopt);
  const auto refusal = RefuseOperatorDeletion("web", {true, "a.yaml"}, "alice");
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->answer.outcome, CommandOutcome::kConflict);
  EXPECT_EQ(refusal->answer.message,
            "applicationset web is defined by a.yaml; remove that file to delete it (files are "
            "the source of truth: a set still defined would be re-created on the next reload)");
  EXPECT_EQ(refusal->line,
            "appset=web deletion requested by alice refused: a.yaml still defines it; remove "
            "the file");
}

TEST(ReportFileEvent, OnlyNewsIsLoggedAndCounted) {
  auto event = [](FileEvent::Kind kind, bool had_error, bool was_failing, bool changed, bool kept) {
    FileEvent e;
    e.kind = kind;
    e.path = "f.yaml";
    e.errors = {"f.yaml:3:1: bad"};
    e.had_error = had_error;
    e.was_failing = was_failing;
    e.changed = changed;
    e.kept = kept;
    return e;
  };
  using K = FileEvent::Kind;
  struct Case {
    const char* name;
    FileEvent event;
    Names lines;
    bool degraded;
  } cases[] = {
      {"removed after an error",
       event(K::kRemoved, true, false, false, false),
       {"f.yaml: removed; its error is gone"},
       false},
      {"removed quietly", event(K::kRemoved, false, false, false, false), {}, false},
      {"loads again", event(K::kClean, false, true, false, false), {"f.yaml: loads again"}, false},
      {"clean as before", event(K::kClean, false, false, false, false), {}, false},
      {"a new failure keeping its last good version",
       event(K::kFailed, false, false, true, true),
       {"f.yaml:3:1: bad", "f.yaml: the last good version stays in force"},
       true},
      {"a new failure of a file never loaded",
       event(K::kFailed, false, false, true, false),
       {"f.yaml:3:1: bad", "f.yaml: not loaded (no earlier good version)"},
       true},
      {"the same failure again", event(K::kFailed, false, false, false, true), {}, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const FileReport report = ReportFileEvent(c.event);
    EXPECT_EQ(report.lines, c.lines);
    EXPECT_EQ(report.degraded, c.degraded);
  }
}

TEST(ReloadSucceeded, EveryPartMustLoad) {
  AppSetFile bad;
  bad.errors = {"b: bad"};
  const std::map<std::string, AppSetFile> clean{{"a.yaml", AppSetFile{}}};
  const std::map<std::string, AppSetFile> failing{{"a.yaml", AppSetFile{}}, {"b.yaml", bad}};
  EXPECT_TRUE(ReloadSucceeded(true, true, true, clean));
  EXPECT_FALSE(ReloadSucceeded(false, true, true, clean));
  EXPECT_FALSE(ReloadSucceeded(true, false, true, clean));
  EXPECT_FALSE(ReloadSucceeded(true, true, false, clean));
  EXPECT_FALSE(ReloadSucceeded(true, true, true, failing));
}

TEST(RetireSettle, TwoPollIntervalsAndFiveSeconds) {
  EXPECT_EQ(RetireSettle(30), std::chrono::seconds(65));
  EXPECT_EQ(RetireSettle(0), std::chrono::seconds(7));  // a poll interval is at least 1s
}

}  // namespace
}  // namespace fleetwave::engine
