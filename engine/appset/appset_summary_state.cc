#include "engine/appset/appset_summary_state.h"

#include <utility>

#include "engine/progress/workload.h"

namespace fleetwave::engine {
namespace {

char Digit(AppDisplayStatus status) { return static_cast<char>('0' + static_cast<int>(status)); }

}  // namespace

void SummaryState::SetAppSet(const Json& appset) {
  // The set-level fields exactly as Summarize reads them: summarised over no rows.
  AppSetSummary empty = Summarize(appset, {}, 0);
  std::vector<StepSummary> declared;
  for (StepSummary& step : empty.steps) {
    if (step.step > 0) declared.push_back(std::move(step));
  }
  empty.steps.clear();
  head_ = std::move(empty);
  const bool rebucket = declared.size() != declared_.size();
  declared_ = std::move(declared);
  if (!rebucket) return;
  buckets_.clear();
  buckets_.resize(declared_.size() + 1);
  attention_.clear();
  counts_ = {};
  for (const auto& [_, row] : rows_) Add(*row, row);
}

size_t SummaryState::BucketOf(const AppRow& row) const {
  return row.step > 0 && static_cast<size_t>(row.step) <= declared_.size()
             ? static_cast<size_t>(row.step)
             : 0;
}

void SummaryState::Add(const AppRow& row, const RowPtr& shared) {
  ++counts_[static_cast<size_t>(row.status)];
  Bucket& b = buckets_[BucketOf(row)];
  ++b.total;
  ++b.counts[static_cast<size_t>(row.status)];
  auto key = std::make_pair(row.cluster, row.name);
  const size_t rank = b.order.Insert(std::move(key));
  b.strip.insert(b.strip.begin() + static_cast<std::ptrdiff_t>(rank), Digit(row.status));
  if (NeedsAttention(row.status)) attention_.emplace(std::make_pair(row.status, row.name), shared);
}

void SummaryState::Subtract(const AppRow& row) {
  --counts_[static_cast<size_t>(row.status)];
  Bucket& b = buckets_[BucketOf(row)];
  --b.total;
  --b.counts[static_cast<size_t>(row.status)];
  const size_t rank = b.order.Erase(std::make_pair(row.cluster, row.name));
  b.strip.erase(rank, 1);
  attention_.erase(std::make_pair(row.status, row.name));
}

void SummaryState::Put(RowPtr row) {
  auto it = rows_.find(row->name);
  if (it != rows_.end()) {
    Subtract(*it->second);
    it->second = row;
  } else {
    it = rows_.emplace(row->name, row).first;
  }
  Add(*row, row);
}

void SummaryState::Remove(const std::string& name) {
  auto it = rows_.find(name);
  if (it == rows_.end()) return;
  Subtract(*it->second);
  rows_.erase(it);
}

AppSetSummary SummaryState::Summary(size_t attention_limit) const {
  AppSetSummary s = head_;
  s.total = rows_.size();
  s.counts = counts_;
  s.steps.reserve(declared_.size() + 1);
  auto fill = [](StepSummary step, const Bucket& b) {
    step.total = b.total;
    step.counts = b.counts;
    step.strip = b.strip;
    return step;
  };
  for (size_t i = 0; i < declared_.size(); ++i)
    s.steps.push_back(fill(declared_[i], buckets_[i + 1]));
  if (buckets_[0].total > 0) {
    StepSummary none;
    none.step = 0;
    s.steps.push_back(fill(std::move(none), buckets_[0]));
  }
  s.attention_total = attention_.size();
  for (auto it = attention_.begin(); it != attention_.end() && s.attention.size() < attention_limit;
       ++it) {
    s.attention.push_back(*it->second);
  }
  return s;
}

}  // namespace fleetwave::engine
