#include "engine/deletion/deletion_reply.h"

namespace fleetwave::engine {
namespace {

void ForgetAll(const SentDelete& sent, DeleteReplyStep& step) {
  step.forget.insert(step.forget.end(), sent.objects.begin(), sent.objects.end());
  step.forget.insert(step.forget.end(), sent.unmark.begin(), sent.unmark.end());
}

std::string Who(const SentDelete& sent) {
  return DeletionWho(sent.app) + " cluster=" + sent.cluster;
}

}  // namespace

DeleteReplyStep OnDeleteReply(const SentDelete& sent, const std::optional<Error>& error,
                              const std::vector<ObjectResult>& results) {
  DeleteReplyStep step;
  if (error) {
    step.log.push_back(Who(sent) + " delete failed: " + error->ToString() + "; retrying");
    step.retry_later = true;
    ForgetAll(sent, step);
  }
  for (const auto& r : results) {
    if (r.status != ObjectResultCode::kSyncFailed) continue;
    step.log.push_back(Who(sent) + " " + r.ref.KindName() + ": " + r.message + "; retrying");
    step.forget.push_back(r.ref);
    step.retry_later = true;
  }
  return step;
}

DeleteReplyStep OnDeleteUnanswered(const SentDelete& sent, const std::string& why) {
  DeleteReplyStep step;
  step.log.push_back(Who(sent) + " did not answer the delete: " + why);
  step.retry_later = true;
  ForgetAll(sent, step);
  return step;
}

CommitFailureStep OnDeletionCommitFailed(bool conflict, const std::string& error,
                                         std::chrono::seconds retry) {
  CommitFailureStep step;
  if (conflict) {
    // An appset actor cancelled or changed a mark meanwhile: read again, decide again.
    step.reload = true;
    return step;
  }
  step.retry_later = true;
  step.log = "cannot store the deletions' progress: " + error + "; retrying in " +
             std::to_string(retry.count()) + "s";
  return step;
}

}  // namespace fleetwave::engine
