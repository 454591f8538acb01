// Operation records and Argo CD's retry rule (engine/sync/operation_record.h,
// engine/sync/retry_policy.h). Times: 1700000000 is 2023-11-14T22:13:20Z.
#include "engine/sync/operation_record.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/sync/retry_policy.h"
#include "tests/engine/sync/sync_builders.h"

namespace fleetwave::engine {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

Json Obj(const char* text) { return Json::parse(text); }
Time At(long long s) { return FromUnixSeconds(1'700'000'000 + s); }

TEST(RetryPolicyTest, GoDurations) {
  struct Case {
    const char* text;
    std::optional<Duration> want;
  };
  const Case cases[] = {
      {"5s", seconds(5)},      {"1m30s", seconds(90)},  {"500ms", milliseconds(500)},
      {"1.5h", minutes(90)},   {"2h45m", minutes(165)}, {"10", seconds(10)},
      {"0", Duration::zero()}, {"", std::nullopt},      {"s", std::nullopt},
      {"5x", std::nullopt},    {"-1s", std::nullopt},   {"1.2.3s", std::nullopt},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(ParseGoDuration(c.text), c.want);
  }
}

TEST(RetryPolicyTest, Backoff) {
  struct Case {
    const char* name;
    const char* retry;
    int64_t retry_count;
    Duration want;
  };
  const Case cases[] = {
      {"defaults: first retry waits 5s", R"({"limit":3})", 0, seconds(5)},
      {"defaults: doubled", R"({"limit":3})", 1, seconds(10)},
      {"defaults: doubled again", R"({"limit":3})", 2, seconds(20)},
      {"defaults: capped at 3m", R"({"limit":-1})", 10, minutes(3)},
      {"custom", R"({"backoff":{"duration":"10s","factor":3,"maxDuration":"1m"}})", 1, seconds(30)},
      {"custom capped", R"({"backoff":{"duration":"10s","factor":3,"maxDuration":"1m"}})", 2,
       minutes(1)},
      {"seconds as a plain string", R"({"backoff":{"duration":"30"}})", 0, seconds(30)},
      {"maxDuration 0 means no cap", R"({"backoff":{"maxDuration":"0"}})", 10, seconds(5120)},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const DecodedRetryPolicy p = DecodeRetryPolicy(Obj(c.retry));
    EXPECT_FALSE(p.error) << p.error.value_or(Error{}).message;
    EXPECT_EQ(RetryBackoff(p.policy, c.retry_count), c.want);
  }
  EXPECT_EQ(DecodeRetryPolicy(Obj(R"({"backoff":{"duration":"abc"}})")).error,
            InvalidInputError("", "invalid retry backoff duration \"abc\""));
  EXPECT_EQ(DecodeRetryPolicy(Obj(R"({"backoff":{"factor":1.5}})")).error,
            InvalidInputError("", "invalid retry backoff factor 1.5"));
}

TEST(RetryPolicyTest, Limit) {
  struct Case {
    int64_t limit;
    int64_t retry_count;
    bool want;
  };
  const Case cases[] = {{0, 0, false}, {2, 0, true},  {2, 1, true},
                        {2, 2, false}, {-1, 0, true}, {-1, 1000, true}};
  for (const auto& c : cases) {
    SCOPED_TRACE(std::to_string(c.limit) + "/" + std::to_string(c.retry_count));
    RetryPolicy p;
    p.limit = c.limit;
    EXPECT_EQ(MayRetry(p, c.retry_count), c.want);
  }
}

OperationRecord Running(const char* retry, int64_t retry_count = 0) {
  OperationRecord r = StartOperation(
      "op-1", Obj((std::string(R"({"sync":{"revision":"abc"},"retry":)") + retry + "}").c_str()),
      {"abc"}, At(0));
  r.retry_count = retry_count;
  return r;
}

TEST(OperationRecordTest, FinishAttempt) {
  const ObjectResult ok{testing::Deploy("web"), ObjectResultCode::kSynced, "configured"};
  const ObjectResult bad{testing::Svc("web"), ObjectResultCode::kSyncFailed, "conflict"};
  struct Case {
    const char* name;
    const char* retry;
    int64_t retry_count;
    std::vector<ObjectResult> results;
    std::optional<Error> error;
    OperationPhase want_phase;
    int64_t want_retry_count;
    std::optional<Time> want_next;
    std::string want_message;
  };
  const Case cases[] = {
      {"every object applied",
       R"({"limit":2})",
       0,
       {ok},
       std::nullopt,
       OperationPhase::kSucceeded,
       0,
       std::nullopt,
       "successfully synced (all tasks run)"},
      {"an object failed, retries left",
       R"({"limit":2})",
       0,
       {ok, bad},
       std::nullopt,
       OperationPhase::kRunning,
       1,
       At(105),
       "one or more objects failed to apply. Retrying attempt #1 at 2023-11-14T22:15:05Z."},
      {"second retry waits twice as long",
       R"({"limit":2})",
       1,
       {bad},
       std::nullopt,
       OperationPhase::kRunning,
       2,
       At(110),
       "one or more objects failed to apply. Retrying attempt #2 at 2023-11-14T22:15:10Z."},
      {"retries exhausted",
       R"({"limit":2})",
       2,
       {bad},
       std::nullopt,
       OperationPhase::kFailed,
       2,
       std::nullopt,
       "one or more objects failed to apply (retried 2 times)."},
      {"limit 0: no retry",
       R"({"limit":0})",
       0,
       {bad},
       std::nullopt,
       OperationPhase::kFailed,
       0,
       std::nullopt,
       "one or more objects failed to apply"},
      {"the attempt could not run: Error, retried too",
       R"({"limit":1})",
       0,
       {},
       TransientError("", "cluster is unreachable"),
       OperationPhase::kRunning,
       1,
       At(105),
       "cluster is unreachable. Retrying attempt #1 at 2023-11-14T22:15:05Z."},
      {"Error after the last retry",
       R"({"limit":1})",
       1,
       {},
       TransientError("", "cluster is unreachable"),
       OperationPhase::kError,
       1,
       std::nullopt,
       "cluster is unreachable (retried 1 times)."},
      {"refused credentials: the policy decides, they may be fixed meanwhile",
       R"({"limit":1})",
       0,
       {},
       PermanentError("cluster prod", "401 Unauthorized"),
       OperationPhase::kRunning,
       1,
       At(105),
       "cluster prod: 401 Unauthorized. Retrying attempt #1 at 2023-11-14T22:15:05Z."},
      {"manifests that do not render at the pinned revision: never retried",
       R"({"limit":5})",
       0,
       {},
       InvalidInputError("repo@abc:web/a.yaml:3:1", "a manifest must be an object"),
       OperationPhase::kError,
       0,
       std::nullopt,
       "repo@abc:web/a.yaml:3:1: a manifest must be an object (not retried: the manifests at "
       "this revision are invalid)"},
      {"unlimited, capped backoff",
       R"({"limit":-1})",
       20,
       {bad},
       std::nullopt,
       OperationPhase::kRunning,
       21,
       At(280),
       "one or more objects failed to apply. Retrying attempt #21 at 2023-11-14T22:18:00Z."},
      {"unreadable backoff: no retry",
       R"({"limit":2,"backoff":{"duration":"soon"}})",
       0,
       {bad},
       std::nullopt,
       OperationPhase::kFailed,
       0,
       std::nullopt,
       "one or more objects failed to apply (failed to retry: invalid retry backoff duration "
       "\"soon\")"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const OperationRecord r =
        FinishAttempt(Running(c.retry, c.retry_count), c.results, c.error, At(100));
    EXPECT_EQ(OperationPhaseName(r.phase), OperationPhaseName(c.want_phase));
    EXPECT_EQ(r.retry_count, c.want_retry_count);
    EXPECT_EQ(r.next_attempt_at, c.want_next);
    EXPECT_EQ(r.message, c.want_message);
    EXPECT_EQ(r.finished_at, At(100));
    EXPECT_EQ(r.started_at, At(0));
    EXPECT_EQ(r.results, c.results);
  }
}

TEST(OperationRecordTest, JsonRoundTrip) {
  OperationRecord r =
      FinishAttempt(Running(R"({"limit":1})"),
                    {{testing::Deploy("web"), ObjectResultCode::kSynced, "configured"},
                     {testing::Svc("old"), ObjectResultCode::kPruned, ""}},
                    std::nullopt, At(7));
  const Json j = OperationRecordToJson(r);
  EXPECT_EQ(j, Obj(R"j({"id":"op-1","operation":{"sync":{"revision":"abc"},"retry":{"limit":1}},
      "phase":"Succeeded","message":"successfully synced (all tasks run)",
      "startedAt":"2023-11-14T22:13:20Z","finishedAt":"2023-11-14T22:13:27Z",
      "syncResult":{"revision":"abc","resources":[
        {"group":"apps","kind":"Deployment","namespace":"guestbook","name":"web","status":"Synced","message":"configured"},
        {"group":"","kind":"Service","namespace":"guestbook","name":"old","status":"Pruned"}]}})j"));
  Issues issues;
  const auto back = OperationRecordFromJson(j, issues);
  ASSERT_TRUE(back);
  EXPECT_TRUE(issues.empty());
  EXPECT_EQ(OperationRecordToJson(*back), j);

  Issues bad_issues;
  EXPECT_FALSE(
      OperationRecordFromJson(Obj(R"({"id":"x","phase":"Bogus","startedAt":"now"})"), bad_issues));
  EXPECT_FALSE(bad_issues.empty());
}

}  // namespace
}  // namespace fleetwave::engine
