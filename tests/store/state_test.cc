// The typed layer: the key layout (written out by hand here, since changing it strands data in
// the field), escaping, one consistent view per appset, deletions, workloads, input files,
// compare-and-set through a batch, and undecodable values reported instead of thrown.
#include "store/state.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store/sqlite_store.h"
#include "tests/store/child_process.h"

namespace fleetwave::store {
namespace {

using testing::TempDir;

TEST(StateKeys, Layout) {
  struct Case {
    std::string name, got, want;
  };
  const std::vector<Case> cases = {
      {"status", keys::AppStatus("guestbook", "gb-prod"), "appsets/guestbook/status/gb-prod"},
      {"pin", keys::Pin("guestbook", "gb-prod"), "appsets/guestbook/pin/gb-prod"},
      {"applied hash", keys::AppliedHash("gs", "a"), "appsets/gs/applied/a"},
      {"operation", keys::Operation("gs", "a"), "appsets/gs/operation/a"},
      {"app spec", keys::AppSpec("gs", "a"), "appsets/gs/spec/a"},
      {"conditions", keys::Conditions("gs"), "appsets/gs/conditions"},
      {"rollout", keys::Rollout("gs"), "appsets/gs/rollout"},
      {"set deletion", keys::SetDeletion("gs"), "deletions/gs/set"},
      {"app deletion", keys::AppDeletion("gs", "a"), "deletions/gs/app/a"},
      {"workload with a slash in the cluster name",
       keys::Workload("arn:aws:eks:us-east-2:1:cluster/prod", "web", "Deployment", "api"),
       "workloads/arn:aws:eks:us-east-2:1:cluster%2Fprod/web/Deployment/api"},
      {"input file path", keys::InputFile("/etc/fleetwave/appsets/a.yaml"),
       "inputs/%2Fetc%2Ffleetwave%2Fappsets%2Fa.yaml"},
      {"percent and control bytes", keys::Segment("50%\n"), "50%25%0A"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.got, c.want);
  }
  for (const std::string name : {"plain", "a/b", "100%", "%2F", "tab\there"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(keys::Unsegment(keys::Segment(name)), name);
  }
}

class StateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    OpenResult r = OpenSqliteStore(dir_.db());
    ASSERT_TRUE(r.ok()) << r.status.message;
    store_ = std::move(r.store);
    state_ = std::make_unique<State>(*store_);
  }
  TempDir dir_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<State> state_;
};

TEST_F(StateTest, OneAppSetIsReadAsOneView) {
  StateBatch batch;
  batch.PutAppStatus("gs", "a", {{"status", "Healthy"}, {"step", "1"}})
      .PutAppStatus("gs", "b", {{"status", "Waiting"}})
      .PutPin("gs", "a", {{"revision", "abc123"}})
      .PutAppliedHash("gs", "a", "h-1")
      .PutAppSpec("gs", "a", {{"project", "default"}})
      .PutOperation("gs", "a", {{"id", "op-1"}, {"phase", "Running"}})
      .PutConditions("gs", Json::array({{{"type", "ResourcesUpToDate"}}}))
      .PutRollout("gs", {{"stepStartedAt", "2026-03-01T12:00:00Z"}, {"paused", true}})
      // Another set whose name extends this one's must not leak into the view.
      .PutPin("gs-2", "a", {{"revision", "zzz"}});
  WriteResult w = state_->Commit(batch);
  ASSERT_TRUE(w.ok()) << w.status.message;

  Loaded<AppSetRecords> set = state_->LoadAppSet("gs");
  ASSERT_TRUE(set.ok()) << set.status.message;
  const AppSetRecords& r = set.value;
  EXPECT_EQ(r.revision, w.revision);
  ASSERT_EQ(r.statuses.size(), 2u);
  EXPECT_EQ(r.statuses.at("b").value["status"], "Waiting");
  ASSERT_EQ(r.pins.size(), 1u);
  EXPECT_EQ(r.pins.at("a").value["revision"], "abc123");
  EXPECT_EQ(r.pins.at("a").revision, w.revision);
  EXPECT_EQ(r.applied_hashes.at("a").value, "h-1");
  EXPECT_EQ(r.operations.at("a").value["phase"], "Running");
  EXPECT_EQ(r.specs.at("a").value["project"], "default");
  ASSERT_TRUE(r.conditions && r.rollout);
  EXPECT_EQ(r.rollout->value["paused"], true);

  // RemoveApp forgets one app entirely and nothing else.
  ASSERT_TRUE(state_->Commit(StateBatch().RemoveApp("gs", "a")).ok());
  Loaded<AppSetRecords> after = state_->LoadAppSet("gs");
  EXPECT_EQ(after.value.statuses.size(), 1u);
  EXPECT_TRUE(after.value.pins.empty());
  EXPECT_TRUE(after.value.applied_hashes.empty());
  EXPECT_TRUE(after.value.operations.empty());
  EXPECT_TRUE(after.value.specs.empty());
  EXPECT_TRUE(after.value.rollout.has_value());
}

TEST_F(StateTest, APinMovesOnlyFromTheRevisionItWasReadAt) {
  ASSERT_TRUE(state_->Commit(StateBatch().PutPin("gs", "a", {{"revision", "r1"}}, 0)).ok());
  const int64_t read_at = state_->LoadAppSet("gs").value.pins.at("a").revision;
  // Someone else (a manual sync) moves the pin first.
  ASSERT_TRUE(state_->Commit(StateBatch().PutPin("gs", "a", {{"revision", "r2"}})).ok());
  WriteResult stale = state_->Commit(StateBatch()
                                         .PutPin("gs", "a", {{"revision", "r3"}}, read_at)
                                         .PutOperation("gs", "a", {{"phase", "Running"}}));
  EXPECT_EQ(stale.status.code, Code::kConflict);
  EXPECT_EQ(stale.conflict_key, keys::Pin("gs", "a"));
  Loaded<AppSetRecords> set = state_->LoadAppSet("gs");
  EXPECT_EQ(set.value.pins.at("a").value["revision"], "r2");
  EXPECT_TRUE(set.value.operations.empty()) << "the operation was in the failed batch";
}

TEST_F(StateTest, DeletionsWorkloadsAndInputFiles) {
  StateBatch batch;
  batch.PutDeletion("old", "", {{"phase", "DeletingStep"}, {"step", 2}})
      .PutDeletion("gs", "gone-app", {{"phase", "Pending"}, {"since", "2026-03-01T12:00:00Z"}})
      .PutWorkload("c/1", "web", "Deployment", "api",
                   {{"condition", "Progressing"}, {"revision", "7"}})
      .PutWorkload("c/1", "web", "StatefulSet", "db", {{"revision", "3"}})
      .PutWorkload("c/10", "web", "Deployment", "x", {{"revision", "1"}})
      .PutInputFile("/etc/fleetwave/fleetwave.yaml", "progressiveSyncs: true\n")
      .PutInputFile("/etc/fleetwave/appsets/gs.yaml", "kind: ApplicationSet\n");
  ASSERT_TRUE(state_->Commit(batch).ok());

  Loaded<std::vector<PendingDeletion>> deletions = state_->LoadDeletions();
  ASSERT_TRUE(deletions.ok());
  ASSERT_EQ(deletions.value.size(), 2u);
  EXPECT_EQ(deletions.value[0].appset, "gs");
  EXPECT_EQ(deletions.value[0].app, "gone-app");
  EXPECT_EQ(deletions.value[1].appset, "old");
  EXPECT_EQ(deletions.value[1].app, "");
  EXPECT_EQ(deletions.value[1].record.value["phase"], "DeletingStep");

  Loaded<std::vector<WorkloadRecord>> workloads = state_->LoadWorkloads("c/1");
  ASSERT_TRUE(workloads.ok());
  ASSERT_EQ(workloads.value.size(), 2u) << "c/10 is another cluster";
  EXPECT_EQ(workloads.value[0].kind, "Deployment");
  EXPECT_EQ(workloads.value[0].record.value["revision"], "7");
  EXPECT_EQ(workloads.value[1].name, "db");

  EXPECT_EQ(state_->LoadInputFile("/etc/fleetwave/fleetwave.yaml").value,
            std::optional<std::string>("progressiveSyncs: true\n"));
  EXPECT_EQ(state_->LoadInputFile("/etc/fleetwave/none.yaml").value, std::nullopt);
  Loaded<std::map<std::string, std::string>> inputs = state_->LoadInputFiles();
  ASSERT_EQ(inputs.value.size(), 2u);
  EXPECT_EQ(inputs.value.at("/etc/fleetwave/appsets/gs.yaml"), "kind: ApplicationSet\n");

  ASSERT_TRUE(state_
                  ->Commit(StateBatch().RemoveDeletion("old", "").RemoveWorkload(
                      "c/1", "web", "Deployment", "api"))
                  .ok());
  EXPECT_EQ(state_->LoadDeletions().value.size(), 1u);
  EXPECT_EQ(state_->LoadWorkloads("c/1").value.size(), 1u);
}

TEST_F(StateTest, AValueThatIsNotJsonIsReportedNotThrown) {
  ASSERT_TRUE(store_->Put(keys::Pin("gs", "a"), "{not json").ok());
  Loaded<AppSetRecords> set = state_->LoadAppSet("gs");
  EXPECT_EQ(set.status.code, Code::kCorrupt);
  EXPECT_EQ(set.status.message, "appsets/gs/pin/a: stored value is not JSON");
}

}  // namespace
}  // namespace fleetwave::store
