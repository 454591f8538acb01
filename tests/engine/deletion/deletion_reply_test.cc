// What a delete command's answer and a failed commit make the deletion actor do: a failed
// delete is forgotten (sent again later) and retried after the interval with its log line; a
// commit conflict reloads, any other commit error retries later.
#include "engine/deletion/deletion_reply.h"

#include <gtest/gtest.h>

namespace fleetwave::engine {
namespace {

using V = std::vector<std::string>;

ObjectRef Ref(const std::string& kind, const std::string& name) {
  return {"apps", kind, "ns", name};
}

V Names(const std::vector<ObjectRef>& refs) {
  V out;
  for (const auto& r : refs) out.push_back(r.KindName());
  return out;
}

SentDelete Sent() {
  return {{"shop", "shop-dev"},
          "dev",
          {Ref("Deployment", "web"), Ref("Service", "web")},
          {Ref("ConfigMap", "keep")}};
}

TEST(DeletionReply, AFailedDeleteIsForgottenLoggedAndRetried) {
  const ObjectResult deleted{Ref("Deployment", "web"), ObjectResultCode::kPruned, "deleted"};
  const ObjectResult refused{Ref("Service", "web"), ObjectResultCode::kSyncFailed, "403 forbidden"};
  const ObjectResult unmarked{Ref("ConfigMap", "keep"), ObjectResultCode::kSynced,
                              "tracking marks removed"};
  struct Case {
    const char* name;
    std::optional<Error> error;
    std::vector<ObjectResult> results;
    V forget;
    V log;
    bool retry;
  } cases[] = {
      {"everything done: nothing forgotten, no retry",
       std::nullopt,
       {deleted, unmarked},
       {},
       {},
       false},
      {"one object failed: only it is sent again",
       std::nullopt,
       {deleted, refused, unmarked},
       {"Service/web"},
       {"appset=shop app=shop-dev cluster=dev Service/web: 403 forbidden; retrying"},
       true},
      {"the command failed: every ref it sent is sent again",
       TransientError("", "cluster dev is unreachable (timeout)"),
       {},
       {"Deployment/web", "Service/web", "ConfigMap/keep"},
       {"appset=shop app=shop-dev cluster=dev delete failed: cluster dev is unreachable "
        "(timeout); retrying"},
       true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const DeleteReplyStep step = OnDeleteReply(Sent(), c.error, c.results);
    EXPECT_EQ(Names(step.forget), c.forget);
    EXPECT_EQ(step.log, c.log);
    EXPECT_EQ(step.retry_later, c.retry);
  }
}

TEST(DeletionReply, NoAnswerForgetsEverythingSentAndRetries) {
  const DeleteReplyStep step = OnDeleteUnanswered(Sent(), "request_timeout");
  EXPECT_EQ(Names(step.forget), (V{"Deployment/web", "Service/web", "ConfigMap/keep"}));
  EXPECT_EQ(step.log,
            V{"appset=shop app=shop-dev cluster=dev did not answer the delete: request_timeout"});
  EXPECT_TRUE(step.retry_later);
}

TEST(DeletionCommitFailed, AConflictReloadsAnyOtherErrorRetriesLater) {
  const CommitFailureStep conflict =
      OnDeletionCommitFailed(true, "revision changed", std::chrono::seconds(5));
  EXPECT_TRUE(conflict.reload);
  EXPECT_FALSE(conflict.retry_later);
  EXPECT_EQ(conflict.log, "");

  const CommitFailureStep failed =
      OnDeletionCommitFailed(false, "disk I/O error", std::chrono::seconds(5));
  EXPECT_FALSE(failed.reload);
  EXPECT_TRUE(failed.retry_later);
  EXPECT_EQ(failed.log, "cannot store the deletions' progress: disk I/O error; retrying in 5s");
}

}  // namespace
}  // namespace fleetwave::engine
