#include "tools/kubesim/step_scheduler.h"

#include <algorithm>

namespace fleetwave::kubesim {

StepScheduler::StepScheduler(int clusters) : due_of_(static_cast<std::size_t>(clusters)) {}

bool StepScheduler::MarkActive(int cluster) {
  bool was_idle = active_.empty();
  active_.insert(cluster);
  return was_idle;
}

void StepScheduler::Untime(int cluster) {
  auto& due = due_of_[static_cast<std::size_t>(cluster)];
  if (due) timed_.erase({*due, cluster});
  due.reset();
}

void StepScheduler::Sleep(int cluster, std::optional<TimePoint> due) {
  active_.erase(cluster);
  Untime(cluster);
  if (!due) return;
  due_of_[static_cast<std::size_t>(cluster)] = due;
  timed_.insert({*due, cluster});
}

std::vector<int> StepScheduler::TakeDue(TimePoint now) {
  std::vector<int> out(active_.begin(), active_.end());
  active_.clear();
  while (!timed_.empty() && timed_.begin()->first <= now) {
    int cluster = timed_.begin()->second;
    timed_.erase(timed_.begin());
    due_of_[static_cast<std::size_t>(cluster)].reset();
    out.push_back(cluster);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::optional<TimePoint> StepScheduler::NextDue() const {
  if (timed_.empty()) return std::nullopt;
  return timed_.begin()->first;
}

}  // namespace fleetwave::kubesim
