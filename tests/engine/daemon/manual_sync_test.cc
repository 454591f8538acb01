// Rules the appset actor used to hold itself (issue 25): the pin of a manual sync and who
// started an operation, read from the operation (what sync metrics are labelled with).
#include <gtest/gtest.h>

#include "engine/rollingsync/appset_reconcile.h"
#include "engine/sync/sync_operation.h"

namespace fleetwave::engine {
namespace {

TEST(ManualSyncPin, TheEntrysPinWhenItHasOneElseWhatWasResolved) {
  const std::vector<std::string> resolved = {"c0ffee"};
  struct Case {
    const char* name;
    std::optional<Json> entry;
    std::vector<std::string> want;
  } cases[] = {
      {"no entry (AllAtOnce, or not yet decided)", std::nullopt, {"c0ffee"}},
      {"an entry pinned to an older commit", Json{{"targetRevisions", {"abc123"}}}, {"abc123"}},
      {"a multi-source pin, in order", Json{{"targetRevisions", {"a1", "b2"}}}, {"a1", "b2"}},
      {"an empty pin", Json{{"targetRevisions", Json::array()}}, {"c0ffee"}},
      {"no pin field", Json{{"status", "Waiting"}}, {"c0ffee"}},
      {"a pin of the wrong type", Json{{"targetRevisions", "abc123"}}, {"c0ffee"}},
      {"non-strings are left out", Json{{"targetRevisions", Json::array({"a1", 7})}}, {"a1"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(ManualSyncPin(c.entry ? &*c.entry : nullptr, resolved), c.want);
  }
}

TEST(TriggerOfOperation, ReadFromTheOperationsInitiatedBy) {
  const Json spec = {{"project", "default"}};
  OperationRecord rollout, automated, manual, odd;
  rollout.operation = BuildSyncOperation(spec, {"r1"}, false);
  automated.operation = BuildAutomatedSyncOperation(spec, {"r1"}, false);
  manual.operation = BuildManualSyncOperation(spec, {"r1"}, false, std::nullopt, "alice").operation;
  odd.operation = {{"initiatedBy", "nobody"}};
  EXPECT_EQ(TriggerOfOperation(rollout), SyncStartTrigger::kRollout);  // automated too: rollout
  EXPECT_EQ(TriggerOfOperation(automated), SyncStartTrigger::kAutomated);
  EXPECT_EQ(TriggerOfOperation(manual), SyncStartTrigger::kManual);
  EXPECT_EQ(TriggerOfOperation(odd), SyncStartTrigger::kManual);
}

}  // namespace
}  // namespace fleetwave::engine
