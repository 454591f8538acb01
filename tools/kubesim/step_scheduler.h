// Which simulated clusters need a controller step, and when. A cluster that was written, or
// whose last step changed something, is active: it steps on the next tick. A settled cluster
// sleeps until the exact time its controllers said something becomes due (a pod turning
// ready or available, a progress deadline), or forever until written. So at rest nothing is
// stepped, and the server's timer sleeps until the earliest due time.
// Not thread-safe: io thread only.
#pragma once

#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "tools/kubesim/clock.h"

namespace fleetwave::kubesim {

class StepScheduler {
 public:
  explicit StepScheduler(int clusters);
  // The cluster steps on the next tick. Returns true when no cluster was active before (so a
  // sleeping timer must be woken).
  bool MarkActive(int cluster);
  // The cluster settled: nothing to do until `due` (nullopt: until it is written).
  void Sleep(int cluster, std::optional<TimePoint> due);
  // Removes and returns, in index order, every cluster that needs a step at `now`: the
  // active ones and the ones due by `now`.
  std::vector<int> TakeDue(TimePoint now);
  // Some cluster steps on the next tick.
  bool busy() const { return !active_.empty(); }
  // The earliest due time of a sleeping cluster; nullopt when none has one.
  std::optional<TimePoint> NextDue() const;
  std::size_t active_count() const { return active_.size(); }
  std::size_t timed_count() const { return timed_.size(); }

 private:
  void Untime(int cluster);

  std::set<int> active_;
  std::set<std::pair<TimePoint, int>> timed_;
  std::vector<std::optional<TimePoint>> due_of_;  // each cluster's entry in timed_
};

}  // namespace fleetwave::kubesim
