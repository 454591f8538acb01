// What a standby serves of a set (engine/appset/shared_appset_view.h): the leader's stored records
// as the board's set JSON and Applications, with nothing the records do not hold, and the rows the
// fleet view derives from them showing the leader's step and entries.
#include "engine/appset/shared_appset_view.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/appset/app_query.h"
#include "engine/sync/operation_record.h"
#include "engine/time.h"

namespace fleetwave::engine {
namespace {

const Time kT0 = Time{} + std::chrono::hours(24 * 365 * 56);

Json Entry(const std::string& app, const std::string& status, const std::string& step) {
  return {{"application", app}, {"status", status}, {"step", step}, {"message", "m-" + app}};
}

Json Spec(const std::string& cluster) {
  return {{"project", "default"}, {"destination", {{"name", cluster}, {"namespace", "web"}}}};
}

StoredAppSetParts Rolling() {
  StoredAppSetParts p;
  p.name = "guestbook";
  p.statuses = {{"guestbook-dev", Entry("guestbook-dev", "Healthy", "1")},
                {"guestbook-qa-1", Entry("guestbook-qa-1", "Progressing", "2")},
                {"guestbook-qa-2", Entry("guestbook-qa-2", "Waiting", "2")}};
  p.specs = {{"guestbook-dev", Spec("sim-0")},
             {"guestbook-qa-1", Spec("sim-1")},
             {"guestbook-qa-2", Spec("sim-2")}};
  p.operations = {{"guestbook-qa-1",
                   OperationRecordToJson(StartOperation("op-1", Json::object(), {"abc"}, kT0))}};
  p.conditions = Json::array({{{"type", "RolloutProgressing"}, {"status", "True"}}});
  p.rollout = Json{{"step", 2}, {"stepStartedAt", "2026-03-01T12:00:00Z"}};
  p.revision = 42;
  return p;
}

TEST(SharedAppSetView, TheSetCarriesTheStoredStatusAndSaysItIsTheSharedStateAtItsRevision) {
  const Json spec = {{"file", "/etc/fleetwave/sets/guestbook.yaml"},
                     {"strategy", {{"type", "RollingSync"}}}};
  Issues issues;
  const SharedAppSetView view = SharedAppSetViewOf(Rolling(), spec, issues);
  EXPECT_TRUE(issues.empty());
  const Json expected = {
      {"metadata", {{"name", "guestbook"}}},
      {"spec", spec},
      {"status",
       {{"applicationStatus", Json::array({Entry("guestbook-dev", "Healthy", "1"),
                                           Entry("guestbook-qa-1", "Progressing", "2"),
                                           Entry("guestbook-qa-2", "Waiting", "2")})},
        {"conditions", Json::array({{{"type", "RolloutProgressing"}, {"status", "True"}}})},
        {"rollout", {{"step", 2}, {"stepStartedAt", "2026-03-01T12:00:00Z"}}}}},
      {"sharedState", {{"source", "etcd"}, {"revision", 42}}}};
  EXPECT_EQ(view.appset, expected) << view.appset.dump(2);
}

TEST(SharedAppSetView, ApplicationsHoldTheStoredSpecAndOperationAndNothingGuessed) {
  Issues issues;
  const SharedAppSetView view = SharedAppSetViewOf(Rolling(), Json(), issues);
  ASSERT_EQ(view.applications.size(), 3u);
  std::vector<std::string> names;
  for (const Json& a : view.applications) names.push_back(a["metadata"]["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"guestbook-dev", "guestbook-qa-1", "guestbook-qa-2"}));
  const Json& qa1 = view.applications[1];
  EXPECT_EQ(qa1["kind"], "Application");
  EXPECT_EQ(qa1["spec"], Spec("sim-1"));
  EXPECT_EQ(qa1["status"]["operationState"],
            OperationRecordToJson(StartOperation("op-1", Json::object(), {"abc"}, kT0)));
  // Health and sync are the leader's judgement of live objects: not in the records, not shown.
  EXPECT_FALSE(qa1["status"].contains("health"));
  EXPECT_FALSE(qa1["status"].contains("sync"));
  EXPECT_FALSE(view.applications[0]["status"].contains("operationState"));
  EXPECT_FALSE(view.appset.contains("spec")) << "no spec of its own inputs: left out";
}

TEST(SharedAppSetView, TheFleetViewsRowsShowTheLeadersStepAndEntries) {
  Issues issues;
  const SharedAppSetView view = SharedAppSetViewOf(Rolling(), Json(), issues);
  std::vector<const Json*> apps;
  for (const Json& a : view.applications) apps.push_back(&a);
  EXPECT_EQ(RowFactsOf(view.appset).current_step, 2);
  const std::vector<AppRow> rows = AppRowsOf(view.appset, apps);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].rollout, "Healthy");
  EXPECT_EQ(rows[1].rollout, "Progressing");
  EXPECT_EQ(rows[1].cluster, "sim-1");
  EXPECT_EQ(rows[1].step, 2);
  EXPECT_EQ(rows[1].operation, "Running");
  EXPECT_EQ(rows[2].rollout, "Waiting");
}

TEST(SharedAppSetView, AnEmptySetAndAnUndecodableOperation) {
  StoredAppSetParts empty;
  empty.name = "quiet";
  Issues issues;
  const SharedAppSetView none = SharedAppSetViewOf(empty, Json(), issues);
  EXPECT_EQ(none.appset["status"],
            (Json{{"applicationStatus", Json::array()}, {"conditions", Json::array()}}))
      << "no rollout record: no status.rollout; no conditions: an empty list";
  EXPECT_TRUE(none.applications.empty());

  StoredAppSetParts bad = Rolling();
  bad.operations["guestbook-qa-1"] = {{"id", 7}, {"phase", "Running"}};
  const SharedAppSetView view = SharedAppSetViewOf(bad, Json(), issues);
  EXPECT_FALSE(view.applications[1]["status"].contains("operationState"));
  ASSERT_FALSE(issues.empty());
  EXPECT_NE(issues[0].path.find("appsets/guestbook/operation/guestbook-qa-1"), std::string::npos)
      << issues[0].path;
}

}  // namespace
}  // namespace fleetwave::engine
