// The apply plan: adoption and force, the prune set, the delete set (engine/sync/apply_plan.h).
#include "engine/sync/apply_plan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/engine/sync/sync_builders.h"

namespace fleetwave::engine {
namespace {

using testing::Crd;
using testing::Deploy;
using testing::kApp;
using testing::kOtherApp;
using testing::Live;
using testing::Ns;
using testing::Svc;

RenderedObject Desired(const ObjectRef& ref, bool adopt_in_manifest = false) {
  RenderedObject r;
  r.ref = ref;
  r.tracking_id = TrackingId(kApp, ref);
  r.object = {{"metadata", {{"name", ref.name}}}};
  if (adopt_in_manifest) r.object["metadata"]["annotations"]["fleetwave.io/adopt"] = "true";
  return r;
}

TEST(ApplyPlanTest, Adoption) {
  struct Case {
    const char* name;
    std::vector<LiveObject> live;
    bool adopt_in_manifest;
    std::vector<ApplyAction> want_apply;
    std::vector<ObjectRefusal> want_refused;
  };
  const ObjectRef d = Deploy("web");
  const std::string refusal =
      "Deployment/web exists and is not managed by fleetwave; set fleetwave.io/adopt: \"true\" "
      "to adopt it";
  const Case cases[] = {
      {"absent: created without force", {}, false, {{d, false, false}}, {}},
      {"owned by this app: force", {Live(d, &kApp)}, false, {{d, true, false}}, {}},
      {"unmarked existing object: refused", {Live(d, nullptr)}, false, {}, {{d, refusal}}},
      {"another app's object: refused", {Live(d, &kOtherApp)}, false, {}, {{d, refusal}}},
      {"a copy carrying this app's id for another object: refused",
       {Live(d, nullptr, {{kTrackingIdAnnotation, TrackingId(kApp, Deploy("original"))}})},
       false,
       {},
       {{d, refusal}}},
      {"live annotated adopt: applied without force",
       {Live(d, nullptr, {{kAdoptAnnotation, "true"}})},
       false,
       {{d, false, true}},
       {}},
      {"adopt not exactly \"true\": refused",
       {Live(d, nullptr, {{kAdoptAnnotation, "yes"}})},
       false,
       {},
       {{d, refusal}}},
      {"manifest annotated adopt: applied without force",
       {Live(d, nullptr)},
       true,
       {{d, false, true}},
       {}},
      {"another app's object annotated adopt",
       {Live(d, &kOtherApp, {{kAdoptAnnotation, "true"}})},
       false,
       {{d, false, true}},
       {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const ApplyPlan plan = PlanApply(kApp, {Desired(d, c.adopt_in_manifest)}, c.live, true);
    EXPECT_EQ(plan.apply, c.want_apply);
    EXPECT_EQ(plan.refused, c.want_refused);
    EXPECT_TRUE(plan.prune.empty());
  }
}

TEST(ApplyPlanTest, ApplyKeepsRenderOrder) {
  const ApplyPlan plan = PlanApply(
      kApp, {Desired(Ns("guestbook")), Desired(Svc("b")), Desired(Deploy("a"))}, {}, false);
  ASSERT_EQ(plan.apply.size(), 3u);
  EXPECT_EQ(plan.apply[0].ref, Ns("guestbook"));
  EXPECT_EQ(plan.apply[1].ref, Svc("b"));
  EXPECT_EQ(plan.apply[2].ref, Deploy("a"));
}

TEST(ApplyPlanTest, PruneSet) {
  struct Case {
    const char* name;
    std::vector<LiveObject> live;
    bool prune;
    std::vector<ObjectRef> want_prune;
    std::vector<ObjectRef> want_skipped;
  };
  const ObjectRef kept = Deploy("web");
  const Case cases[] = {
      {"tracked and no longer desired", {Live(Svc("old"), &kApp)}, true, {Svc("old")}, {}},
      {"sync without prune prunes nothing", {Live(Svc("old"), &kApp)}, false, {}, {}},
      {"desired objects are never pruned", {Live(kept, &kApp)}, true, {}, {}},
      {"untracked objects are never pruned", {Live(Svc("foreign"), nullptr)}, true, {}, {}},
      {"another app's objects are never pruned", {Live(Svc("theirs"), &kOtherApp)}, true, {}, {}},
      {"Argo annotation Prune=false",
       {Live(Svc("old"), &kApp, {{kArgoSyncOptionsAnnotation, "Prune=false"}})},
       true,
       {},
       {Svc("old")}},
      {"fleetwave annotation Prune=false in a list",
       {Live(Svc("old"), &kApp, {{kSyncOptionsAnnotation, "ServerSideApply=true, Prune=false"}})},
       true,
       {},
       {Svc("old")}},
      {"Prune=true is no protection",
       {Live(Svc("old"), &kApp, {{kSyncOptionsAnnotation, "Prune=true"}})},
       true,
       {Svc("old")},
       {}},
      {"objects inside a namespace go before it",
       {Live(Ns("gone"), &kApp), Live(Crd("w.example.com"), &kApp), Live(Svc("old"), &kApp)},
       true,
       {Svc("old"), Crd("w.example.com"), Ns("gone")},
       {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const ApplyPlan plan = PlanApply(kApp, {Desired(kept)}, c.live, c.prune);
    EXPECT_EQ(plan.prune, c.want_prune);
    EXPECT_EQ(plan.prune_skipped, c.want_skipped);
  }
}

TEST(ApplyPlanTest, DeleteSet) {
  struct Case {
    const char* name;
    std::vector<LiveObject> live;
    bool preserve;
    std::vector<ObjectRef> want_delete;
    std::vector<std::string> want_kept;
    std::vector<ObjectRef> want_unmark;
  };
  const Case cases[] = {
      {"ordinary tracked objects",
       {Live(Deploy("web"), &kApp), Live(Svc("web"), &kApp)},
       false,
       {Svc("web"), Deploy("web")},
       {},
       {}},
      {"untracked and other apps' objects stay",
       {Live(Svc("x"), nullptr), Live(Svc("y"), &kOtherApp)},
       false,
       {},
       {},
       {}},
      {"Delete=false (Argo form)",
       {Live(Svc("web"), &kApp, {{kArgoSyncOptionsAnnotation, "Delete=false"}})},
       false,
       {},
       {"Service/web has Delete=false in its sync options; left in place"},
       {}},
      {"Delete=false (fleetwave form)",
       {Live(Svc("web"), &kApp, {{kSyncOptionsAnnotation, "Prune=false,Delete=false"}})},
       false,
       {},
       {"Service/web has Delete=false in its sync options; left in place"},
       {}},
      {"Namespace without allow-delete",
       {Live(Ns("guestbook"), &kApp)},
       false,
       {},
       {"Namespace/guestbook is deleted only when annotated fleetwave.io/allow-delete: \"true\"; "
        "left in place"},
       {}},
      {"CRD without allow-delete",
       {Live(Crd("w.example.com"), &kApp)},
       false,
       {},
       {"CustomResourceDefinition/w.example.com is deleted only when annotated "
        "fleetwave.io/allow-delete: \"true\"; left in place"},
       {}},
      {"Namespace and CRD with allow-delete go last",
       {Live(Ns("guestbook"), &kApp, {{kAllowDeleteAnnotation, "true"}}),
        Live(Crd("w.example.com"), &kApp, {{kAllowDeleteAnnotation, "true"}}),
        Live(Deploy("web"), &kApp)},
       false,
       {Deploy("web"), Crd("w.example.com"), Ns("guestbook")},
       {},
       {}},
      {"allow-delete does not override Delete=false",
       {Live(Ns("guestbook"), &kApp,
             {{kAllowDeleteAnnotation, "true"}, {kSyncOptionsAnnotation, "Delete=false"}})},
       false,
       {},
       {"Namespace/guestbook has Delete=false in its sync options; left in place"},
       {}},
      {"preserveResourcesOnDeletion unmarks everything",
       {Live(Deploy("web"), &kApp), Live(Ns("guestbook"), &kApp), Live(Svc("x"), nullptr)},
       true,
       {},
       {},
       {Deploy("web"), Ns("guestbook")}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const DeletePlan plan = PlanAppDeletion(kApp, c.live, c.preserve);
    EXPECT_EQ(plan.delete_now, c.want_delete);
    std::vector<std::string> kept;
    for (const auto& k : plan.kept) kept.push_back(k.message);
    EXPECT_EQ(kept, c.want_kept);
    EXPECT_EQ(plan.unmark, c.want_unmark);
    EXPECT_EQ(plan.done, c.want_delete.empty());
  }
}

// Namespaces and CRDs at the front go out one after another; everything from the first other
// object on is sent at once (render order puts them first; one later in the list is not moved).
TEST(SequentialApplyPrefix, TheLeadingNamespacesAndCrdsOnly) {
  auto obj = [](const char* group, const char* kind, const char* name) {
    RenderedObject o;
    o.ref.group = group;
    o.ref.kind = kind;
    o.ref.name = name;
    return o;
  };
  const RenderedObject ns = obj("", "Namespace", "web");
  const RenderedObject crd =
      obj("apiextensions.k8s.io", "CustomResourceDefinition", "widgets.example.com");
  const RenderedObject deploy = obj("apps", "Deployment", "web");
  struct Case {
    const char* name;
    std::vector<RenderedObject> objects;
    size_t want;
  } cases[] = {
      {"none", {}, 0},
      {"only workloads", {deploy, deploy}, 0},
      {"a namespace and a CRD first", {ns, crd, deploy, deploy}, 2},
      {"a namespace after a workload is not moved", {deploy, ns}, 0},
      {"everything ordered", {ns, ns, crd}, 3},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(SequentialApplyPrefix(c.objects), c.want);
  }
}

}  // namespace
}  // namespace fleetwave::engine
