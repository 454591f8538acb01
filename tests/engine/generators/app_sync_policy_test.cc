// spec.syncPolicy.applicationsSync: decoding, the allow/hold-back decision per action, and
// the held-back log line logged once.
#include "engine/appset/app_sync_policy.h"

#include <gtest/gtest.h>

#include "tests/engine/generators/generators_testing.h"

namespace fleetwave::engine {
namespace {

using testing::DecodeSpec;
using testing::Messages;

const char* kTemplate =
    "  template:\n    metadata: {name: x}\n    spec: {project: default, source: {repoURL: r, "
    "path: p}, destination: {server: s, namespace: n}}\n";

struct Case {
  const char* policy;
  bool create, update, del;
};

TEST(ApplicationsSync, EachPolicyAllowsItsActions) {
  const Case cases[] = {
      {"sync", true, true, true},
      {"create-only", true, false, false},
      {"create-update", true, true, false},
      {"create-delete", true, false, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.policy);
    auto d = DecodeSpec(std::string("spec:\n  syncPolicy: {applicationsSync: ") + c.policy +
                        ", preserveResourcesOnDeletion: true}\n" + kTemplate);
    ASSERT_TRUE(d.issues.empty()) << Messages(d.issues)[0];
    const ApplicationsSync p = d.appset->applications_sync;
    EXPECT_STREQ(ApplicationsSyncName(p), c.policy);
    EXPECT_TRUE(d.appset->preserve_resources_on_deletion);
    EXPECT_FALSE(DeleteResourcesWithApplication(*d.appset));
    EXPECT_EQ(ApplicationsSyncAllows(p, AppAction::kCreate), c.create);
    EXPECT_EQ(ApplicationsSyncAllows(p, AppAction::kUpdate), c.update);
    EXPECT_EQ(ApplicationsSyncAllows(p, AppAction::kDelete), c.del);
  }
}

TEST(ApplicationsSync, AbsentMeansSync) {
  auto d = DecodeSpec(std::string("spec:\n") + kTemplate);
  ASSERT_TRUE(d.issues.empty());
  EXPECT_EQ(d.appset->applications_sync, ApplicationsSync::kSync);
  EXPECT_FALSE(d.appset->preserve_resources_on_deletion);
  EXPECT_TRUE(DeleteResourcesWithApplication(*d.appset));
}

TEST(ApplicationsSync, UnknownPolicyIsAnError) {
  auto d =
      DecodeSpec(std::string("spec:\n  syncPolicy: {applicationsSync: Create-Only}\n") + kTemplate);
  EXPECT_EQ(Messages(d.issues),
            (std::vector<std::string>{
                "set.yaml:5:34: spec.syncPolicy.applicationsSync: unsupported value "
                "\"Create-Only\" (supported: create-only, create-update, create-delete, sync)"}));
}

TEST(ApplicationsSync, HeldBackLineIsLoggedOncePerAppAndAction) {
  auto d =
      DecodeSpec(std::string("spec:\n  syncPolicy: {applicationsSync: create-only}\n") + kTemplate);
  ASSERT_TRUE(d.appset);
  EXPECT_EQ(HeldBackMessage(*d.appset, d.appset->applications_sync, AppAction::kDelete, "web-dev"),
            "appset argocd/web: applicationsSync create-only holds back delete of Application "
            "web-dev");
  HeldBackLog log;
  EXPECT_TRUE(log.FirstTime("web-dev", AppAction::kDelete));
  EXPECT_FALSE(log.FirstTime("web-dev", AppAction::kDelete));
  EXPECT_TRUE(log.FirstTime("web-dev", AppAction::kUpdate));
  EXPECT_TRUE(log.FirstTime("web-prod", AppAction::kDelete));
  log.Clear("web-dev", AppAction::kDelete);
  EXPECT_TRUE(log.FirstTime("web-dev", AppAction::kDelete));
}

}  // namespace
}  // namespace fleetwave::engine
