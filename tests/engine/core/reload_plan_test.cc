// The coordinator's reload rules as a table (engine/reload_plan.h): which files and sets are in
// force after a load, whether the inputs are trusted for deletion, what each file reports, and
// which of two definitions of a set wins.
#include "engine/reload_plan.h"

#include <gtest/gtest.h>

namespace fleetwave::engine {
namespace {

ApplicationSet Set(const std::string& name) {
  ApplicationSet s;
  s.name = name;
  return s;
}

AppSetFile Good(std::vector<std::string> names) {
  AppSetFile f;
  for (const auto& n : names) f.appsets.push_back(Set(n));
  return f;
}

AppSetFile Bad(const std::string& error) {
  AppSetFile f;
  f.errors = {error};
  return f;
}

std::map<std::string, std::vector<std::string>> SetsInForce(const ReloadState& s) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [path, sets] : s.good_files) {
    for (const auto& set : sets) out[path].push_back(set.name);
  }
  return out;
}

// A previous state: a.yaml (web) and b.yaml (api) good, c.yaml failing with "c: bad".
ReloadState Before() {
  ReloadState s;
  s.good_files["a.yaml"] = {Set("web")};
  s.good_files["b.yaml"] = {Set("api")};
  s.file_errors["c.yaml"] = {"c: bad"};
  s.files_seen = {"a.yaml", "b.yaml", "c.yaml"};
  return s;
}

TEST(PlanReload, FilesInForceAndTrust) {
  using Sets = std::map<std::string, std::vector<std::string>>;
  struct Case {
    const char* name;
    bool config_ok;
    std::optional<std::string> directory_error;
    std::map<std::string, AppSetFile> files;
    bool trusted;
    Sets in_force;
  } cases[] = {
      {"everything loads",
       true,
       std::nullopt,
       {{"a.yaml", Good({"web"})}, {"b.yaml", Good({"api"})}, {"c.yaml", Good({"db"})}},
       true,
       {{"a.yaml", {"web"}}, {"b.yaml", {"api"}}, {"c.yaml", {"db"}}}},
      {"a failing file keeps its last good version",
       true,
       std::nullopt,
       {{"a.yaml", Bad("a: broken")}, {"b.yaml", Good({"api"})}, {"c.yaml", Bad("c: bad")}},
       true,
       {{"a.yaml", {"web"}}, {"b.yaml", {"api"}}}},
      {"a removed file takes its sets",
       true,
       std::nullopt,
       {{"a.yaml", Good({"web"})}},
       true,
       {{"a.yaml", {"web"}}}},
      {"an unreadable directory changes nothing and is not trusted",
       true,
       std::string("permission denied"),
       {},
       false,
       {{"a.yaml", {"web"}}, {"b.yaml", {"api"}}}},
      {"an empty directory keeps the sets and is not trusted",
       true,
       std::nullopt,
       {},
       false,
       {{"a.yaml", {"web"}}, {"b.yaml", {"api"}}}},
      {"a failed configuration is not trusted, files still move on",
       false,
       std::nullopt,
       {{"a.yaml", Good({"web"})}},
       false,
       {{"a.yaml", {"web"}}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const ReloadPlan plan = PlanReload(Before(), c.config_ok, c.directory_error, c.files);
    EXPECT_EQ(plan.trusted, c.trusted);
    EXPECT_EQ(SetsInForce(plan.next), c.in_force);
  }
}

TEST(PlanReload, EachFileReportsWhatChanged) {
  const ReloadPlan plan = PlanReload(
      Before(), true, std::nullopt,
      {{"a.yaml", Bad("a: broken")}, {"c.yaml", Good({"db"})}, {"d.yaml", Bad("d: bad")}});
  ASSERT_EQ(plan.events.size(), 4u);
  // b.yaml left (it showed no error); then the files of the load in path order.
  EXPECT_EQ(plan.events[0].kind, FileEvent::Kind::kRemoved);
  EXPECT_EQ(plan.events[0].path, "b.yaml");
  EXPECT_FALSE(plan.events[0].had_error);
  EXPECT_EQ(plan.events[1].kind, FileEvent::Kind::kFailed);
  EXPECT_TRUE(plan.events[1].changed);
  EXPECT_TRUE(plan.events[1].kept);  // a.yaml's web stays in force
  EXPECT_EQ(plan.events[2].kind, FileEvent::Kind::kClean);
  EXPECT_TRUE(plan.events[2].was_failing);  // c.yaml loads again
  EXPECT_EQ(plan.events[3].kind, FileEvent::Kind::kFailed);
  EXPECT_FALSE(plan.events[3].kept);  // d.yaml never loaded
  EXPECT_EQ(plan.next.file_errors, (std::map<std::string, std::vector<std::string>>{
                                       {"a.yaml", {"a: broken"}}, {"d.yaml", {"d: bad"}}}));
  EXPECT_EQ(plan.next.files_seen, (std::set<std::string>{"a.yaml", "c.yaml", "d.yaml"}));

  // The same failure again is not news; a removed file that showed an error says so.
  const ReloadPlan again = PlanReload(plan.next, true, std::nullopt,
                                      {{"a.yaml", Bad("a: broken")}, {"c.yaml", Good({"db"})}});
  ASSERT_EQ(again.events.size(), 3u);
  EXPECT_EQ(again.events[0].kind, FileEvent::Kind::kRemoved);
  EXPECT_EQ(again.events[0].path, "d.yaml");
  EXPECT_TRUE(again.events[0].had_error);
  EXPECT_FALSE(again.events[1].changed);
  EXPECT_FALSE(again.events[2].was_failing);
}

TEST(WantedSets, TheFirstDefinitionInPathOrderWins) {
  std::map<std::string, std::vector<ApplicationSet>> good = {
      {"a.yaml", {Set("web"), Set("api")}}, {"b.yaml", {Set("web")}}, {"c.yaml", {Set("db")}}};
  std::vector<DuplicateSet> duplicates;
  const auto wanted = WantedSets(good, &duplicates);
  ASSERT_EQ(wanted.size(), 3u);
  EXPECT_EQ(wanted.at("web").file, "a.yaml");
  EXPECT_EQ(wanted.at("web").set, &good["a.yaml"][0]);
  EXPECT_EQ(wanted.at("db").file, "c.yaml");
  ASSERT_EQ(duplicates.size(), 1u);
  EXPECT_EQ(duplicates[0].file, "b.yaml");
  EXPECT_EQ(duplicates[0].name, "web");
  EXPECT_EQ(duplicates[0].used_file, "a.yaml");
}

}  // namespace
}  // namespace fleetwave::engine
