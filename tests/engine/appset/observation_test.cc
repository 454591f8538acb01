// engine/appset/observation.h: what an app's render and its cluster's reports make of its
// observation, and what a cluster report changes.
#include "engine/appset/observation.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fleetwave::engine {
namespace {

// An app of project `project` on cluster c1.
ObservedApp App(const std::string& project) {
  ObservedApp o;
  o.desired.name = "web";
  o.desired.cluster = "c1";
  o.desired.object = {{"spec", {{"project", project}}}};
  return o;
}

// A Deployment web/web; `cluster_scoped` adds a Namespace (which a project must whitelist).
std::shared_ptr<const std::vector<RenderedObject>> Objects(bool cluster_scoped = false) {
  std::vector<RenderedObject> objects(1);
  objects[0].ref = {"apps", "Deployment", "web", "web"};
  if (cluster_scoped) {
    objects.emplace_back();
    objects.back().ref = {"", "Namespace", "", "web"};
  }
  return std::make_shared<const std::vector<RenderedObject>>(std::move(objects));
}

RenderSeen Rendered(bool cluster_scoped = false) {
  RenderSeen r;
  r.revisions = {"abc123"};
  r.objects = Objects(cluster_scoped);
  return r;
}

RenderSeen Failed(ErrorKind kind, const std::string& message) {
  RenderSeen r;
  r.error = Error{kind, "", message};
  r.repository_errors = {Error{ErrorKind::kTransient, "https://git/repo", "unreachable"}};
  return r;
}

// Two AppProjects: "open" permits every destination and repo but no cluster-scoped object,
// "team" permits no destination.
AppProjects Projects() {
  AppProjects p;
  AppProject open;
  open.name = "open";
  open.destinations = {{"*", "*", "*"}};
  open.source_repos = {"*"};
  AppProject team;
  team.name = "team";
  p.projects = {open, team};
  return p;
}

TEST(ObserveRender, TheRenderOrItsErrorBecomesTheObservation) {
  const AppProjects projects = Projects();
  const RenderSeen rendered = Rendered();
  const RenderSeen with_namespace = Rendered(true);
  const RenderSeen failed = Failed(ErrorKind::kInvalidInput, "a.yaml:1:1: bad");
  struct Case {
    std::string name;
    const AppProjects* projects;
    std::string project;
    const RenderSeen* render;
    bool has_objects;
    std::optional<ErrorKind> error;
    std::string message;  // what the source error's message starts with
    size_t repository_errors;
  };
  const std::vector<Case> cases = {
      {"rendered, no projects", nullptr, "team", &rendered, true, std::nullopt, "", 0},
      {"rendered, undefined default permits", &projects, "", &rendered, true, std::nullopt, "", 0},
      {"rendered, project permits", &projects, "open", &rendered, true, std::nullopt, "", 0},
      {"rendered, project refuses the destination", &projects, "team", &rendered, false,
       ErrorKind::kInvalidInput, "application destination server ''", 0},
      {"rendered, project refuses an object", &projects, "open", &with_namespace, false,
       ErrorKind::kInvalidInput, "Resource :Namespace is not permitted in project open.", 0},
      {"rendered, project missing", &projects, "gone", &rendered, false, ErrorKind::kInvalidInput,
       "Application referencing project gone which does not exist", 0},
      {"not rendered", nullptr, "team", nullptr, false, ErrorKind::kPermanent, "not rendered", 0},
      {"render failed", nullptr, "team", &failed, false, ErrorKind::kInvalidInput,
       "a.yaml:1:1: bad", 1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ObservedApp o = App(c.project);
    ObserveRender(c.projects, c.render, o);
    EXPECT_EQ(o.rendered != nullptr, c.has_objects);
    EXPECT_EQ(o.revisions,
              c.has_objects ? std::vector<std::string>{"abc123"} : std::vector<std::string>{});
    ASSERT_EQ(o.source_error.has_value(), c.error.has_value());
    if (c.error) {
      EXPECT_EQ(o.source_error->kind, *c.error);
      EXPECT_EQ(o.source_error->message.rfind(c.message, 0), 0u) << o.source_error->message;
    }
    EXPECT_EQ(o.repository_errors.size(), c.repository_errors);
  }
}

TEST(ObserveRender, ARenderThatReadsAgainClearsTheErrors) {
  const RenderSeen failed = Failed(ErrorKind::kTransient, "fetch failed");
  const RenderSeen rendered = Rendered();
  ObservedApp o = App("");
  ObserveRender(nullptr, &failed, o);
  ASSERT_TRUE(o.source_error);
  ObserveRender(nullptr, &rendered, o);
  EXPECT_FALSE(o.source_error);
  EXPECT_TRUE(o.repository_errors.empty());
  EXPECT_EQ(o.rendered, rendered.objects);
}

TEST(ObserveRender, ResetsTheComparisonOnlyWhenWhatItComparedChanged) {
  const RenderSeen rendered = Rendered();
  RenderSeen rendered_again = Rendered();  // other objects: another render
  const RenderSeen failed = Failed(ErrorKind::kTransient, "fetch failed");
  const RenderSeen failed_other = Failed(ErrorKind::kTransient, "fetch failed again");
  struct Case {
    std::string name;
    const RenderSeen* before;
    const RenderSeen* after;
    bool reset;
  };
  const std::vector<Case> cases = {
      {"same render", &rendered, &rendered, false},
      {"new render", &rendered, &rendered_again, true},
      {"render fails", &rendered, &failed, true},
      {"same failure", &failed, &failed, false},
      {"other failure", &failed, &failed_other, true},
      {"failure to render", &failed, &rendered, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ObservedApp o = App("");
    ObserveRender(nullptr, c.before, o);
    o.compared = std::make_shared<const AppSync>();
    ObserveRender(nullptr, c.after, o);
    EXPECT_EQ(o.compared == nullptr, c.reset);
  }
}

TEST(RefreshOf, RefreshesOnlyWhatChanged) {
  GeneratedApplication kept;
  kept.name = "web";
  kept.cluster = "c1";
  kept.labels = {{"env", "prod"}};
  kept.object = {{"spec", {{"project", "default"}}}};
  kept.spec_fingerprint = 7;
  const auto with = [&](auto change) {
    GeneratedApplication app = kept;
    change(app);
    return app;
  };
  const GeneratedApplication same = kept;
  const GeneratedApplication moved = with([](auto& a) { a.cluster = "c2"; });
  const GeneratedApplication new_spec = with([](auto& a) { a.spec_fingerprint = 8; });
  const GeneratedApplication new_labels = with([](auto& a) { a.labels["env"] = "dev"; });
  const GeneratedApplication new_object = with([](auto& a) {
    a.object["metadata"] = {{"name", "web"}};
  });
  struct Case {
    std::string name;
    const GeneratedApplication* app;
    bool same_generation, live_changed, applied_changed;
    bool desired, render, live, applied;
  };
  const std::vector<Case> cases = {
      {"nothing changed", &same, true, false, false, false, false, false, false},
      {"new generation, same app", &same, false, false, false, false, true, false, false},
      {"moved", &moved, false, false, false, true, true, true, false},
      {"new spec", &new_spec, false, false, false, true, true, false, false},
      {"new labels", &new_labels, false, false, false, true, true, false, false},
      {"new object", &new_object, false, false, false, true, true, false, false},
      // The same generation cannot hold another app: nothing of it is compared.
      {"same generation ignores the app", &moved, true, false, false, false, false, false, false},
      {"live changed", &same, true, true, false, false, false, true, false},
      {"attempt ended", &same, true, false, true, false, false, false, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const ObservationRefresh r =
        RefreshOf(kept, *c.app, c.same_generation, c.live_changed, c.applied_changed);
    EXPECT_EQ(r.desired, c.desired);
    EXPECT_EQ(r.render, c.render);
    EXPECT_EQ(r.live, c.live);
    EXPECT_EQ(r.applied, c.applied);
  }
}

TEST(ObserveCluster, ReachableIsUpAndObservedIsListed) {
  struct Case {
    std::string name;
    std::optional<ClusterFlags> cluster;  // nullopt: never reported
    bool was_reachable;
    bool reachable, observed, reset;
  };
  const std::vector<Case> cases = {
      {"never reported", std::nullopt, true, false, false, true},
      {"up and listed", ClusterFlags{true, true, true}, true, true, true, false},
      {"up again", ClusterFlags{true, true, true}, false, true, true, true},
      {"reachable, not synced", ClusterFlags{true, false, true}, true, false, true, true},
      {"synced, not reachable", ClusterFlags{false, true, true}, false, false, true, false},
      {"never listed", ClusterFlags{false, false, false}, false, false, false, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ObservedApp o = App("");
    o.reachable = c.was_reachable;
    o.compared = std::make_shared<const AppSync>();
    ObserveCluster(c.cluster ? &*c.cluster : nullptr, o);
    EXPECT_EQ(o.reachable, c.reachable);
    EXPECT_EQ(o.observed, c.observed);
    EXPECT_EQ(o.compared == nullptr, c.reset);
  }
}

TEST(ApplyClusterReport, UpIsReachableAndSyncedAndListedStays) {
  struct Case {
    std::string name;
    ClusterFlags before;
    bool reachable, synced;
    ClusterFlags after;
    bool changed;
    std::string log;
  };
  const std::vector<Case> cases = {
      {"first list", {}, true, true, {true, true, true}, true, "cluster=c1 is reachable"},
      {"reachable, not yet synced", {}, true, false, {true, false, false}, false, ""},
      {"same again", {true, true, true}, true, true, {true, true, true}, false, ""},
      {"lost",
       {true, true, true},
       false,
       false,
       {false, false, true},
       true,
       "cluster=c1 is unreachable"},
      {"watches resyncing",
       {true, true, true},
       true,
       false,
       {true, false, true},
       true,
       "cluster=c1 is unreachable"},
      {"back",
       {false, false, true},
       true,
       true,
       {true, true, true},
       true,
       "cluster=c1 is reachable"},
      {"synced while unreachable lists it", {}, false, true, {false, true, true}, true, ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const ClusterReportEffect e = ApplyClusterReport("c1", c.before, c.reachable, c.synced);
    EXPECT_EQ(e.flags.reachable, c.after.reachable);
    EXPECT_EQ(e.flags.synced, c.after.synced);
    EXPECT_EQ(e.flags.listed, c.after.listed);
    EXPECT_EQ(e.changed, c.changed);
    EXPECT_EQ(e.log, c.log);
  }
}

}  // namespace
}  // namespace fleetwave::engine
