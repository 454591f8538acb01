#include "store/store_health.h"

#include <utility>

namespace fleetwave::store {

void StoreHealth::Report(const Status& outcome, bool sticky) {
  const bool failure = outcome.code == Code::kIo || outcome.code == Code::kSchema;
  std::lock_guard<std::mutex> lock(mu_);
  if (sticky_) return;  // the first sticky failure is the one shown until restart
  if (failure) {
    // Already unhealthy: one change, one notification (unless it turns out to be sticky).
    if (!problem_.ok() && !sticky) return;
    sticky_ = sticky;
    problem_ = outcome;
  } else {
    if (problem_.ok()) return;
    problem_ = Status{};
  }
  for (const Listener& l : listeners_) l(problem_);
}

bool StoreHealth::Blocked(Status* why) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!sticky_) return false;
  *why = problem_;
  return true;
}

Status StoreHealth::Current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return problem_;
}

void StoreHealth::Subscribe(Listener listener) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!problem_.ok()) listener(problem_);
  listeners_.push_back(std::move(listener));
}

}  // namespace fleetwave::store
