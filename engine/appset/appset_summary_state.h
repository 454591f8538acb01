// An ApplicationSet's summary (appset_summary.h) kept current one row at a time, for a board
// that publishes per changed app: Put and Remove take the old row's contribution out of the
// counts, its step's heat strip and the attention list and add the new one's, in
// O(log apps); Summary() reads the counters, copies the strips and walks the first
// `attention_limit` of the attention list (ordered by status, then name), never the rows.
//
// Summarize stays the oracle: tests/engine/fleetview/summary_state_test.cc drives seeded random
// sequences of puts, removals and set changes and requires Summary() to equal Summarize over
// the same rows after every step.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/appset/app_query.h"
#include "engine/appset/appset_summary.h"
#include "engine/rollingsync/order_statistics.h"

namespace fleetwave::engine {

class SummaryState {
 public:
  using RowPtr = std::shared_ptr<const AppRow>;

  // The set-level part from the set's JSON (name, rollout word, strategy, current step, the
  // declared steps). When the number of declared steps changes, rows move between steps
  // (a step past the last declared one counts as step 0): that re-sorts every row, O(apps).
  void SetAppSet(const Json& appset);
  // Adds the row, or replaces the one with its name.
  void Put(RowPtr row);
  void Remove(const std::string& name);

  AppSetSummary Summary(size_t attention_limit) const;
  size_t size() const { return rows_.size(); }

 private:
  struct Bucket {
    size_t total = 0;
    StatusCounts counts{};
    OrderStatisticSet<std::pair<std::string, std::string>> order;  // (cluster, name)
    std::string strip;  // one digit per member, in `order`
  };
  size_t BucketOf(const AppRow& row) const;
  void Add(const AppRow& row, const RowPtr& shared);
  void Subtract(const AppRow& row);

  AppSetSummary head_;  // the set-level fields; its counts, steps and attention stay empty
  std::vector<StepSummary> declared_;  // per declared step: step, matchExpressions, maxUpdate
  std::map<std::string, RowPtr, std::less<>> rows_;
  StatusCounts counts_{};
  std::vector<Bucket> buckets_ = std::vector<Bucket>(1);  // [0] no step, [i] declared step i
  std::map<std::pair<AppDisplayStatus, std::string>, RowPtr> attention_;
};

}  // namespace fleetwave::engine
