// What the deletion actor does with the answer to a delete command it sent, and with a failed
// commit of a round (issue 25: no domain decision in actors/). A delete that failed, for the
// whole command or for one object, is forgotten among the sent refs so the next round sends it
// again, and the actor wakes after its retry interval; a commit conflict means another actor
// changed a mark meanwhile, so the actor reads the records again instead of retrying blindly.
// Pure; the actor keeps the sent refs, the timer and the log. Pinned by
// tests/engine/deletion/deletion_reply_test.cc.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "engine/deletion/deletion_sweep.h"
#include "engine/error.h"
#include "engine/object_ref.h"
#include "engine/sync/operation_record.h"

namespace fleetwave::engine {

// What one delete command sent (DeleteSend's objects and unmark).
struct SentDelete {
  DeletionKey app;  // appset and app
  std::string cluster;
  std::vector<ObjectRef> objects;
  std::vector<ObjectRef> unmark;
};

struct DeleteReplyStep {
  std::vector<ObjectRef> forget;  // sent refs to send again in a later round
  std::vector<std::string> log;   // in order
  bool retry_later = false;       // wake after the retry interval
};

// The cluster answered: `error` when the command as a whole failed (every ref it sent is
// forgotten), and one result per object, each kSyncFailed one forgotten and logged.
DeleteReplyStep OnDeleteReply(const SentDelete& sent, const std::optional<Error>& error,
                              const std::vector<ObjectResult>& results);

// The cluster did not answer at all (`why`: the request's error): every ref is forgotten.
DeleteReplyStep OnDeleteUnanswered(const SentDelete& sent, const std::string& why);

struct CommitFailureStep {
  bool reload = false;       // read the stored records again and decide again
  bool retry_later = false;  // wake after the retry interval
  std::string log;           // "" when nothing is logged
};

// A round's commit failed with `error`; `conflict`: a record changed since it was read.
CommitFailureStep OnDeletionCommitFailed(bool conflict, const std::string& error,
                                         std::chrono::seconds retry);

}  // namespace fleetwave::engine
