#include "store/group_commit.h"

#include <exception>
#include <string>
#include <utility>

namespace fleetwave::store {

GroupCommitter::GroupCommitter(CommitGroup commit, GroupTaken on_group_taken)
    : commit_(std::move(commit)), on_group_taken_(std::move(on_group_taken)) {}

WriteResult GroupCommitter::Commit(const std::vector<Op>& ops) {
  GroupedBatch mine;
  mine.ops = &ops;
  std::unique_lock<std::mutex> lock(mu_);
  queue_.push_back(&mine);
  // Either a leader commits this batch, or it is left queued when a group ends and this
  // caller leads the next one.
  mine.wake.wait(lock, [&] { return mine.done || !leading_; });
  if (mine.done) return std::move(mine.result);

  leading_ = true;
  std::vector<GroupedBatch*> group;
  group.swap(queue_);
  lock.unlock();
  if (on_group_taken_) on_group_taken_(group.size());
  bool durable = false;
  try {
    durable = commit_(group);
  } catch (const std::exception& e) {
    // A leader that throws must still release its followers, or every later commit hangs.
    for (GroupedBatch* b : group)
      b->result = Failed({Code::kIo, std::string("commit: ") + e.what()});
  }
  lock.lock();
  for (GroupedBatch* b : group) {
    if (b->result.ok()) ++counters_.batches;
    b->done = true;
  }
  if (durable) ++counters_.transactions;
  leading_ = false;
  WriteResult out = std::move(mine.result);
  // Notified under the lock: a follower woken here can only return (and destroy its batch)
  // after the unlock, when none of them is touched any more. The first queued caller leads the
  // next group, unless a newcomer takes the lead first - then its group includes that caller.
  for (GroupedBatch* b : group) {
    if (b != &mine) b->wake.notify_one();
  }
  if (!queue_.empty()) queue_.front()->wake.notify_one();
  lock.unlock();
  return out;
}

CommitCounters GroupCommitter::Counters() const {
  std::lock_guard<std::mutex> lock(mu_);
  CommitCounters out = counters_;
  out.queued = static_cast<int64_t>(queue_.size());
  return out;
}

}  // namespace fleetwave::store
