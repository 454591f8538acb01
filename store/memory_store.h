// An in-memory `Store` with the same semantics as SqliteStore (one store revision, per-key
// revisions, compare-and-set, atomic batches, byte-ordered prefix listing), for tests of the
// layers above and for `fleetwave` commands that need no durability. Nothing survives the
// object. Thread-safe (one mutex). tests/store/store_contract_test.cc runs the same cases
// against both implementations.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "store/store.h"

namespace fleetwave::store {

class MemoryStore final : public Store {
 public:
  GetResult Get(const std::string& key) override;
  ListResult List(const std::string& prefix) override;
  WriteResult Commit(const std::vector<Op>& ops) override;
  int64_t Revision() override;

  // Every committed batch, in order (tests assert what was made durable, and when).
  std::vector<std::vector<Op>> commits() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::pair<std::string, int64_t>> data_;  // key -> (value, revision)
  int64_t revision_ = 0;
  std::vector<std::vector<Op>> commits_;
};

}  // namespace fleetwave::store
