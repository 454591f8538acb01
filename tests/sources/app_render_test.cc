// RenderApp: the objects a generated app applies, from its sources at the resolved (or pinned)
// revisions, as `fleetwave render` prints them and the daemon applies them.
#include "sources/app_render.h"

#include <gtest/gtest.h>

#include "sources/fake_source.h"

namespace fleetwave::sources {
namespace {

using engine::Json;

constexpr const char* kRepo = "file:///repo.git";
constexpr const char* kDeployment =
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 1}\n";

engine::GeneratedApplication App(Json sync_policy) {
  engine::GeneratedApplication app;
  app.name = "web-dev";
  app.object = {{"metadata", {{"name", "web-dev"}}},
                {"spec",
                 {{"source", {{"repoURL", kRepo}, {"targetRevision", "main"}, {"path", "web"}}},
                  {"destination", {{"name", "dev"}, {"namespace", "shop"}}}}}};
  if (!sync_policy.is_null()) app.object["spec"]["syncPolicy"] = sync_policy;
  return app;
}

std::vector<std::string> KindNames(const AppRender& r) {
  std::vector<std::string> out;
  for (const auto& o : *r.objects)
    out.push_back(o.ref.kind + "/" + o.ref.namespace_ + "/" + o.ref.name);
  return out;
}

TEST(RenderApp, CreateNamespaceAddsTheDestinationNamespaceFirstUnlessTheManifestsDefineIt) {
  struct Case {
    std::string name;
    Json sync_policy;
    std::string extra_manifest;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"no option", Json(), "", {"Deployment/shop/web"}},
      {"CreateNamespace=true",
       {{"syncOptions", {"CreateNamespace=true"}}},
       "",
       {"Namespace//shop", "Deployment/shop/web"}},
      {"CreateNamespace=false",
       {{"syncOptions", {"CreateNamespace=false"}}},
       "",
       {"Deployment/shop/web"}},
      {"the manifests define it already",
       {{"syncOptions", {"CreateNamespace=true"}}},
       "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {team: a}}\n",
       {"Namespace//shop", "Deployment/shop/web"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FakeSource source;
    source.SetRevision(kRepo, "main", "1111111111111111111111111111111111111111");
    std::map<std::string, std::string> files = {{"web/deploy.yaml", kDeployment}};
    if (!c.extra_manifest.empty()) files["web/ns.yaml"] = c.extra_manifest;
    source.SetFiles(kRepo, "1111111111111111111111111111111111111111", files);
    ResolveOnce resolver(source);
    AppRender r =
        RenderApp(resolver, "shop", App(c.sync_policy), nullptr, engine::Discovery::BuiltIn());
    ASSERT_TRUE(r.ok()) << r.error().value_or(engine::Error{}).ToString();
    EXPECT_EQ(KindNames(r), c.want);
    EXPECT_EQ(r.revisions, std::vector<std::string>{"1111111111111111111111111111111111111111"});
  }
}

TEST(RenderApp, PinnedRevisionsReplaceTheTargetRevision) {
  FakeSource source;
  source.SetRevision(kRepo, "main", "2222222222222222222222222222222222222222");
  source.SetRevision(kRepo, "1111111111111111111111111111111111111111",
                     "1111111111111111111111111111111111111111");
  source.SetFiles(kRepo, "1111111111111111111111111111111111111111", {{"web/d.yaml", kDeployment}});
  ResolveOnce resolver(source);
  const std::vector<std::string> pinned = {"1111111111111111111111111111111111111111"};
  AppRender r = RenderApp(resolver, "shop", App(Json()), &pinned, engine::Discovery::BuiltIn());
  ASSERT_TRUE(r.ok()) << r.error().value_or(engine::Error{}).ToString();
  EXPECT_EQ(r.revisions, pinned);
}

TEST(RenderApp, AnUnknownRevisionIsAnErrorNamingTheRepository) {
  FakeSource source;
  ResolveOnce resolver(source);
  AppRender r = RenderApp(resolver, "shop", App(Json()), nullptr, engine::Discovery::BuiltIn());
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.objects, nullptr);
  EXPECT_NE(r.error().value_or(engine::Error{}).ToString().find(kRepo), std::string::npos)
      << r.error().value_or(engine::Error{}).ToString();
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].kind, engine::ErrorKind::kNotFound);
  EXPECT_EQ(r.errors[0].object, kRepo) << "the object is the repository, the message what is wrong";
}

// The set's ErrorOccurred condition is made of the repository problems only
// (engine/repository_condition.h): a failed fetch or an unknown revision is one, a file that does
// not parse is the app's own.
TEST(RenderApp, RepositoryErrorsAreTheResolvesThatFailedNotTheFilesThatDoNotParse) {
  const std::string sha = "3333333333333333333333333333333333333333";
  struct Case {
    const char* name;
    bool fetch_fails;
    bool known_revision;
    const char* file;
    size_t repository_errors;
  };
  const std::vector<Case> cases = {
      {"the fetch fails", true, true, kDeployment, 1},
      {"the revision is gone", false, false, kDeployment, 1},
      {"a file does not parse", false, true, "kind: [", 0},
      {"all is well", false, true, kDeployment, 0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    FakeSource source;
    if (c.known_revision) source.SetRevision(kRepo, "main", sha);
    source.SetFiles(kRepo, sha, {{"web/d.yaml", c.file}});
    if (c.fetch_fails) {
      source.SetFetchError(kRepo, engine::TransientError(kRepo, "cannot fetch: unreachable"));
    }
    ResolveOnce resolver(source);
    const AppRender r =
        RenderApp(resolver, "shop", App(Json()), nullptr, engine::Discovery::BuiltIn());
    ASSERT_EQ(r.repository_errors.size(), c.repository_errors);
    EXPECT_EQ(r.ok(), std::string(c.name) == "all is well");
    for (const auto& e : r.repository_errors) EXPECT_EQ(e.object, kRepo);
  }
}

}  // namespace
}  // namespace fleetwave::sources
