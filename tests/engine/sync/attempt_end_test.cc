// What the end of a sync attempt reports (engine/sync/attempt_end.h).
#include "engine/sync/attempt_end.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace fleetwave::engine {
namespace {

const char* kByRollout = R"({"initiatedBy":{"username":"applicationset-controller"}})";
const char* kByAutomation = R"({"initiatedBy":{"automated":true}})";
const char* kByOperator = R"({"initiatedBy":{"username":"alice"}})";

OperationRecord Ended(const char* operation, OperationPhase phase, const std::string& message,
                      int64_t retry_count = 0) {
  OperationRecord r =
      StartOperation("op-7", Json::parse(operation), {"r1"}, FromUnixSeconds(1'700'000'000));
  r.phase = phase;
  r.message = message;
  r.retry_count = retry_count;
  return r;
}

TEST(AttemptEndTest, SyncFinishedOf) {
  struct Case {
    const char* name;
    OperationRecord record;
    std::optional<SyncFinished> want;
  };
  const Case cases[] = {
      {"still Running (a retry is due): nothing finished",
       Ended(kByRollout, OperationPhase::kRunning, "boom", 1), std::nullopt},
      {"rollout's sync Succeeded", Ended(kByRollout, OperationPhase::kSucceeded, ""),
       SyncFinished{"rollout", "Succeeded"}},
      {"automated sync Failed", Ended(kByAutomation, OperationPhase::kFailed, "x"),
       SyncFinished{"automated", "Failed"}},
      {"operator's sync Error", Ended(kByOperator, OperationPhase::kError, "x"),
       SyncFinished{"manual", "Error"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(SyncFinishedOf(c.record), c.want);
  }
}

TEST(AttemptEndTest, AttemptEndLine) {
  struct Case {
    const char* name;
    std::optional<std::string> cluster;
    OperationRecord record;
    const char* want;
  };
  const Case cases[] = {
      {"a retry is due", "sim-1",
       Ended(kByRollout, OperationPhase::kRunning, "one or more objects failed to apply", 2),
       "cluster=sim-1 app=dev-a sync op-7 attempt failed (one or more objects failed to apply), "
       "retry 2"},
      {"succeeded with a message", "sim-1",
       Ended(kByRollout, OperationPhase::kSucceeded, "successfully synced"),
       "cluster=sim-1 app=dev-a sync op-7 Succeeded: successfully synced"},
      {"succeeded without a message", "sim-1", Ended(kByRollout, OperationPhase::kSucceeded, ""),
       "cluster=sim-1 app=dev-a sync op-7 Succeeded"},
      {"failed after retries", "sim-2",
       Ended(kByOperator, OperationPhase::kFailed, "boom (retried 3 times).", 3),
       "cluster=sim-2 app=dev-a sync op-7 Failed: boom (retried 3 times)."},
      {"app no longer generated: no cluster named", std::nullopt,
       Ended(kByOperator, OperationPhase::kError, "no cluster named sim-9"),
       "app=dev-a sync op-7 Error: no cluster named sim-9"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(AttemptEndLine("dev-a", c.cluster, c.record), c.want);
  }
}

TEST(AttemptEndTest, AnAppNoLongerGeneratedEndsWithoutItsRetryPolicy) {
  const Time t0 = FromUnixSeconds(1'700'000'000);
  const Json spec_with_retry = {{"syncPolicy", {{"retry", {{"limit", 2}}}}}};
  const Json spec_without = {{"project", "default"}};
  ObjectRef web;
  web.kind = "Deployment";
  web.name = "web";
  const std::vector<ObjectResult> failed = {{web, ObjectResultCode::kSyncFailed, "boom"}};
  struct Case {
    const char* name;
    const char* operation;  // the running operation (with or without its own retry)
    const Json* spec;       // the app as generated now; nullptr: no longer generated
    OperationPhase phase;
  } cases[] = {
      {"generated, its spec retries: retried", "{}", &spec_with_retry, OperationPhase::kRunning},
      {"generated, no retry anywhere: failed", "{}", &spec_without, OperationPhase::kFailed},
      {"no longer generated: failed, no retry to fall back to", "{}", nullptr,
       OperationPhase::kFailed},
      {"no longer generated, the operation's own retry: retried", R"({"retry":{"limit":2}})",
       nullptr, OperationPhase::kRunning},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const OperationRecord running = StartOperation("op-1", Json::parse(c.operation), {"r1"}, t0);
    const OperationRecord ended =
        EndAttempt(running, c.spec, failed, std::nullopt, t0 + std::chrono::seconds(3));
    EXPECT_EQ(ended.phase, c.phase);
    EXPECT_EQ(ended.next_attempt_at.has_value(), c.phase == OperationPhase::kRunning);
  }
}

}  // namespace
}  // namespace fleetwave::engine
