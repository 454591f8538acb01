#include "store/memory_store.h"

#include <string>
#include <utility>

namespace fleetwave::store {

GetResult MemoryStore::Get(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  GetResult out;
  auto it = data_.find(key);
  if (it == data_.end()) {
    out.status = {Code::kNotFound, key + ": not found"};
  } else {
    out.entry = {key, it->second.first, it->second.second};
  }
  return out;
}

ListResult MemoryStore::List(const std::string& prefix) {
  std::lock_guard<std::mutex> lock(mu_);
  ListResult out;
  out.revision = revision_;
  for (auto it = data_.lower_bound(prefix); it != data_.end(); ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) break;
    out.entries.push_back({it->first, it->second.first, it->second.second});
  }
  return out;
}

MemoryStore::MemoryStore(GroupCommitter::GroupTaken on_group_taken)
    : committer_([this](const std::vector<GroupedBatch*>& group) { return CommitGroup(group); },
                 std::move(on_group_taken)) {}

WriteResult MemoryStore::Commit(const std::vector<Op>& ops) {
  WriteResult out;
  for (const Op& op : ops) {
    if (op.key.empty()) {
      out.status = {Code::kInvalid, "empty key"};
      return out;
    }
  }
  if (!ops.empty()) return committer_.Commit(ops);
  std::lock_guard<std::mutex> lock(mu_);
  out.revision = revision_;
  return out;
}

bool MemoryStore::CommitGroup(const std::vector<GroupedBatch*>& group) {
  std::lock_guard<std::mutex> lock(mu_);
  bool any = false;
  for (GroupedBatch* b : group) {
    // Every comparison is against the state before the batch (the group's earlier batches
    // included), as in SqliteStore.
    bool conflict = false;
    for (const Op& op : *b->ops) {
      if (!op.expected_revision) continue;
      auto it = data_.find(op.key);
      const int64_t current = it == data_.end() ? 0 : it->second.second;
      if (current != *op.expected_revision) {
        b->result = RevisionConflict(op.key, current, *op.expected_revision);
        conflict = true;
        break;
      }
    }
    if (conflict) continue;
    ++revision_;
    for (const Op& op : *b->ops) {
      if (op.kind == Op::Kind::kPut) {
        data_[op.key] = {op.value, revision_};
      } else {
        data_.erase(op.key);
      }
    }
    commits_.push_back(*b->ops);
    b->result.revision = revision_;
    any = true;
  }
  return any;
}

int64_t MemoryStore::Revision() {
  std::lock_guard<std::mutex> lock(mu_);
  return revision_;
}

std::vector<std::vector<Op>> MemoryStore::commits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return commits_;
}

}  // namespace fleetwave::store
