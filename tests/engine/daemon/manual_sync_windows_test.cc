// An operator's sync under its AppProject (issue 29, StartManualSync with the set's projects):
// a deny window refuses it unless the window has manualSync: true, naming the window; an app
// its project refuses is refused with Argo CD's message; without projects nothing changes.
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "engine/appset/app_project.h"
#include "engine/rollingsync/appset_reconcile.h"

namespace fleetwave::engine {
namespace {

Time T(const char* text) { return *ParseRfc3339(text); }

ObservedApp App(const std::string& server) {
  ObservedApp o;
  o.desired.name = "web";
  o.desired.cluster = "prod";
  o.desired.object = {{"spec",
                       {{"project", "prod"},
                        {"source", {{"repoURL", "https://git.example.com/web"}, {"path", "web"}}},
                        {"destination", {{"server", server}, {"namespace", "web"}}}}}};
  o.revisions = {"c0ffee"};
  return o;
}

std::shared_ptr<AppProjects> Prod(bool manual_sync) {
  AppProject p;
  p.name = "prod";
  p.source_repos = {"*"};
  p.destinations = {{"https://prod", "", "*"}};
  SyncWindow w;
  w.deny = true;
  w.schedule_text = "0 12 * * *";
  std::string why;
  w.schedule = *ParseCron(w.schedule_text, &why);
  w.duration_seconds = 3600;
  w.duration_text = "1h";
  w.applications = {"*"};
  w.manual_sync = manual_sync;
  p.sync_windows = {w};
  auto projects = std::make_shared<AppProjects>();
  projects->projects = {p};
  return projects;
}

TEST(ManualSyncWindows, ADenyWindowRefusesAnOperatorsSyncUnlessItAllowsManualSyncs) {
  const Time in = T("2026-03-01T12:30:00Z");
  const Time out = T("2026-03-01T14:00:00Z");
  const ObservedApp app = App("https://prod");
  ManualSyncDecision d =
      StartManualSync(app, std::nullopt, {}, std::nullopt, "alice", in, Prod(false).get());
  ASSERT_FALSE(d.start);
  EXPECT_EQ(d.error->kind, ErrorKind::kConflict);
  EXPECT_EQ(d.error->ToString(),
            "sync window deny '0 12 * * *' 1h (UTC) of project 'prod' is active");
  d = StartManualSync(app, std::nullopt, {}, std::nullopt, "alice", in, Prod(true).get());
  EXPECT_TRUE(d.start) << "manualSync: true lets an operator's sync through";
  d = StartManualSync(app, std::nullopt, {}, std::nullopt, "alice", out, Prod(false).get());
  EXPECT_TRUE(d.start) << "outside the window";
  d = StartManualSync(app, std::nullopt, {}, std::nullopt, "alice", in);
  EXPECT_TRUE(d.start) << "without AppProjects nothing is enforced";
}

TEST(ManualSyncWindows, AnAppItsProjectRefusesIsNeverSynced) {
  const ManualSyncDecision d =
      StartManualSync(App("https://stage"), std::nullopt, {}, std::nullopt, "alice",
                      T("2026-03-01T14:00:00Z"), Prod(true).get());
  ASSERT_FALSE(d.start);
  EXPECT_EQ(d.error->kind, ErrorKind::kInvalidInput);
  EXPECT_EQ(d.error->ToString(),
            "application destination server 'https://stage' and namespace 'web' do not match any "
            "of the allowed destinations in project 'prod'");
}

}  // namespace
}  // namespace fleetwave::engine
