// An in-memory `Store` with the same semantics as SqliteStore (one store revision, per-key
// revisions, compare-and-set, atomic batches, byte-ordered prefix listing), for tests of the
// layers above and for `fleetwave` commands that need no durability. Nothing survives the
// object. Commits go through the same group committer (group_commit.h), so concurrent batches
// are grouped, counted and judged exactly as SqliteStore does it. Thread-safe (one mutex).
// tests/store/store_contract_test.cc runs the same cases against both implementations.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "store/group_commit.h"
#include "store/store.h"

namespace fleetwave::store {

class MemoryStore final : public Store {
 public:
  // `on_group_taken`: tests only, as OpenOptions::on_group_taken.
  explicit MemoryStore(GroupCommitter::GroupTaken on_group_taken = {});

  GetResult Get(const std::string& key) override;
  ListResult List(const std::string& prefix) override;
  WriteResult Commit(const std::vector<Op>& ops) override;
  int64_t Revision() override;
  CommitCounters Counters() override { return committer_.Counters(); }

  // Every committed batch, in order (tests assert what was made durable, and when).
  std::vector<std::vector<Op>> commits() const;

 private:
  bool CommitGroup(const std::vector<GroupedBatch*>& group);

  mutable std::mutex mu_;
  std::map<std::string, std::pair<std::string, int64_t>> data_;  // key -> (value, revision)
  int64_t revision_ = 0;
  std::vector<std::vector<Op>> commits_;
  GroupCommitter committer_;  // last: its leader calls into everything above
};

}  // namespace fleetwave::store
