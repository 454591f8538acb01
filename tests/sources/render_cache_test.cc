// RenderCache: a reconcile that finds the same commits and the same app spec reuses the last
// render instead of reading and rendering again; anything that changes the render's inputs, and
// any failure, renders anew.
#include "sources/render_cache.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "sources/fake_source.h"

namespace fleetwave::sources {
namespace {

using engine::Json;

constexpr const char* kRepo = "file:///repo.git";

engine::GeneratedApplication App(const std::string& name, const std::string& ns = "shop") {
  engine::GeneratedApplication app;
  app.name = name;
  app.object = {{"metadata", {{"name", name}}},
                {"spec",
                 {{"source", {{"repoURL", kRepo}, {"targetRevision", "main"}, {"path", "web"}}},
                  {"destination", {{"name", "dev"}, {"namespace", ns}}}}}};
  return app;
}

std::string Deployment(const std::string& image) {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
         "spec: {template: {spec: {containers: [{name: web, image: " +
         image + "}]}}}\n";
}

size_t Reads(const FakeSource& source) {
  const auto calls = source.calls();
  return std::count_if(calls.begin(), calls.end(),
                       [](const std::string& c) { return c.rfind("read ", 0) == 0; });
}

class RenderCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    source.SetRevision(kRepo, "main", "sha1");
    source.SetFiles(kRepo, "sha1", {{"web/app.yaml", Deployment("v1")}});
  }
  // One reconcile: a fresh resolver, as the appset actor makes one per gather.
  AppRender Reconcile(const engine::GeneratedApplication& app) {
    ResolveOnce resolver(source);
    return cache.Render(resolver, "set", app, engine::Discovery::BuiltIn());
  }
  FakeSource source;
  RenderCache cache;
};

TEST_F(RenderCacheTest, SameCommitAndSpecReusesTheRenderWithoutReading) {
  const AppRender first = Reconcile(App("web-dev"));
  ASSERT_TRUE(first.ok()) << first.error().value_or(engine::Error{}).ToString();
  const size_t reads = Reads(source);
  const AppRender second = Reconcile(App("web-dev"));
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(Reads(source), reads);
  EXPECT_EQ(second.objects, first.objects);  // the same shared render
  EXPECT_EQ(second.revisions, first.revisions);
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(cache.misses(), 1u);
}

TEST_F(RenderCacheTest, ANewCommitOrAChangedSpecRendersAgain) {
  ASSERT_TRUE(Reconcile(App("web-dev")).ok());

  source.SetRevision(kRepo, "main", "sha2");
  source.SetFiles(kRepo, "sha2", {{"web/app.yaml", Deployment("v2")}});
  const AppRender moved = Reconcile(App("web-dev"));
  ASSERT_TRUE(moved.ok()) << moved.error().value_or(engine::Error{}).ToString();
  EXPECT_EQ(moved.revisions, std::vector<std::string>{"sha2"});
  EXPECT_NE(moved.objects->front().object.dump().find("v2"), std::string::npos);

  const AppRender other_ns = Reconcile(App("web-dev", "other"));
  ASSERT_TRUE(other_ns.ok()) << other_ns.error().value_or(engine::Error{}).ToString();
  EXPECT_EQ(other_ns.objects->front().ref.namespace_, "other");
  EXPECT_EQ(cache.hits(), 0u);
  EXPECT_EQ(cache.misses(), 3u);
}

TEST_F(RenderCacheTest, AFailedRenderIsNeverKept) {
  source.SetFiles(kRepo, "sha1", {{"web/app.yaml", "kind: [unclosed"}});
  EXPECT_FALSE(Reconcile(App("web-dev")).ok());
  EXPECT_EQ(cache.size(), 0u);
  source.SetFiles(kRepo, "sha1", {{"web/app.yaml", Deployment("v1")}});
  EXPECT_TRUE(Reconcile(App("web-dev")).ok());  // the same commit, read again
  EXPECT_EQ(cache.hits(), 0u);
}

TEST_F(RenderCacheTest, RetainForgetsAppsNoLongerGenerated) {
  ASSERT_TRUE(Reconcile(App("a")).ok());
  ASSERT_TRUE(Reconcile(App("b")).ok());
  cache.Retain({"b"});
  EXPECT_EQ(cache.size(), 1u);
  const size_t reads = Reads(source);
  ASSERT_TRUE(Reconcile(App("b")).ok());
  EXPECT_EQ(Reads(source), reads);
}

}  // namespace
}  // namespace fleetwave::sources
