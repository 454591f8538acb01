// The AppProjects in force across reloads (engine/project_reload.h): a failing file keeps its
// last good projects, a removed file takes them, an empty or unreadable directory keeps all,
// and the first definition of a name wins.
#include <gtest/gtest.h>

#include "engine/project_reload.h"

namespace fleetwave::engine {
namespace {

AppSetFile Good(std::vector<std::string> names) {
  AppSetFile f;
  for (const auto& n : names) {
    AppProject p;
    p.name = n;
    f.projects.push_back(p);
  }
  return f;
}

AppSetFile Failed() {
  AppSetFile f;
  f.errors = {"p.yaml:3:1: spec.syncWindows[0].kind: unsupported value \"block\""};
  return f;
}

std::vector<std::string> Names(const AppProjectsPtr& p) {
  std::vector<std::string> out;
  if (p) {
    for (const auto& project : p->projects) out.push_back(project.name);
  }
  return out;
}

TEST(ProjectReload, AFailingFileKeepsItsLastGoodProjects) {
  GoodProjects good =
      NextGoodProjects({}, std::nullopt, {{"a.yaml", Good({"prod"})}, {"b.yaml", Good({})}});
  EXPECT_EQ(Names(ProjectsInForce(good)), std::vector<std::string>{"prod"});
  good = NextGoodProjects(good, std::nullopt, {{"a.yaml", Failed()}, {"b.yaml", Good({})}});
  EXPECT_EQ(Names(ProjectsInForce(good)), std::vector<std::string>{"prod"}) << "kept";
  good = NextGoodProjects(good, std::string("appsets: permission denied"), {});
  EXPECT_EQ(Names(ProjectsInForce(good)), std::vector<std::string>{"prod"}) << "unreadable";
  good = NextGoodProjects(good, std::nullopt, {});
  EXPECT_EQ(Names(ProjectsInForce(good)), std::vector<std::string>{"prod"}) << "empty directory";
  good = NextGoodProjects(good, std::nullopt, {{"b.yaml", Good({})}});
  EXPECT_EQ(ProjectsInForce(good), nullptr) << "the file left the directory";
  // A file failing on its first load has nothing to keep.
  good = NextGoodProjects(good, std::nullopt, {{"a.yaml", Failed()}});
  EXPECT_EQ(ProjectsInForce(good), nullptr);
}

TEST(ProjectReload, TheFirstDefinitionOfANameWinsInPathOrder) {
  const GoodProjects good = NextGoodProjects(
      {}, std::nullopt, {{"b.yaml", Good({"prod", "stage"})}, {"a.yaml", Good({"prod"})}});
  const AppProjectsPtr in_force = ProjectsInForce(good);
  EXPECT_EQ(Names(in_force), (std::vector<std::string>{"prod", "stage"}));
}

}  // namespace
}  // namespace fleetwave::engine
