#include "store/memory_store.h"

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

WriteResult MemoryStore::Commit(const std::vector<Op>& ops) {
  std::lock_guard<std::mutex> lock(mu_);
  WriteResult out;
  for (const Op& op : ops) {
    if (op.key.empty()) {
      out.status = {Code::kInvalid, "empty key"};
      return out;
    }
  }
  if (ops.empty()) {
    out.revision = revision_;
    return out;
  }
  // Every comparison is against the state before the batch, as in SqliteStore.
  for (const Op& op : ops) {
    if (!op.expected_revision) continue;
    auto it = data_.find(op.key);
    const int64_t current = it == data_.end() ? 0 : it->second.second;
    if (current != *op.expected_revision) {
      out.conflict_key = op.key;
      out.status = {Code::kConflict, op.key + ": revision is " + std::to_string(current) +
                                         ", expected " + std::to_string(*op.expected_revision)};
      return out;
    }
  }
  ++revision_;
  for (const Op& op : ops) {
    if (op.kind == Op::Kind::kPut) {
      data_[op.key] = {op.value, revision_};
    } else {
      data_.erase(op.key);
    }
  }
  commits_.push_back(ops);
  out.revision = revision_;
  return out;
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
