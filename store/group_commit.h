// Group commit: concurrent Commit callers share one backend transaction (for SQLite one
// fsync), and each still returns only after its own batch is durable.
//
// Leader/follower, no thread of its own: a caller queues its batch and waits; when no group is
// being committed, one waiting caller becomes the leader, takes every queued batch, commits
// them through the backend's `CommitGroup` and hands each caller its result. Batches that
// arrive meanwhile form the next group. A lone caller is its own group at once, so an idle
// store adds no latency; under load the fsync cost is shared by everyone who waited for it.
//
// The backend applies the batches in queue order, each against the state the batches before
// it left (so every batch keeps its own store revision and its compare-and-set sees exactly
// what a one-by-one commit would have seen). A batch whose comparison fails is left out alone;
// a backend failure fails every batch of the group and acknowledges none (store.h).
//
// Thread-safety: Commit and Counters may be called from any thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "store/store.h"

namespace fleetwave::store {

// One caller's batch inside a group, and where the backend puts its result.
struct GroupedBatch {
  const std::vector<Op>* ops = nullptr;  // non-empty, keys checked
  WriteResult result;
  bool done = false;  // guarded by the committer's mutex
  // Woken alone (no herd of every waiter per group): when its result is in, or when it is
  // first in the queue as a group ends and may lead the next.
  std::condition_variable wake;
};

// A batch's result when its group failed: the failure alone, no revision, no conflict key.
inline WriteResult Failed(Status status) {
  WriteResult out;
  out.status = std::move(status);
  return out;
}

// A batch's result when `key`'s revision is `current`, not the `expected` of its
// compare-and-set: the same words on every backend.
inline WriteResult RevisionConflict(const std::string& key, int64_t current, int64_t expected) {
  WriteResult out;
  out.conflict_key = key;
  out.status = {Code::kConflict, key + ": revision is " + std::to_string(current) + ", expected " +
                                     std::to_string(expected)};
  return out;
}

class GroupCommitter {
 public:
  // Commits `group` (in order) as one transaction and sets every batch's result. Returns
  // whether a transaction was made durable (false when every batch conflicted or it failed).
  // Called by one leader at a time.
  using CommitGroup = std::function<bool(const std::vector<GroupedBatch*>& group)>;
  // Tests only: called by the leader with the size of the group it took, before committing
  // it; batches queued meanwhile wait for the next group. Lets a test shape groups without
  // sleeping.
  using GroupTaken = std::function<void(std::size_t group_size)>;

  explicit GroupCommitter(CommitGroup commit, GroupTaken on_group_taken = {});

  // `ops` must be non-empty with valid keys (the store checks them first).
  WriteResult Commit(const std::vector<Op>& ops);
  CommitCounters Counters() const;

 private:
  const CommitGroup commit_;
  const GroupTaken on_group_taken_;
  mutable std::mutex mu_;
  bool leading_ = false;  // a group is being committed
  std::vector<GroupedBatch*> queue_;
  CommitCounters counters_;
};

}  // namespace fleetwave::store
