#include "tools/fleetwave/write_fence.h"

#include <utility>

namespace fleetwave::cli {

WriteFence::WriteFence(std::function<Clock::time_point()> now) : now_(std::move(now)) {}

void WriteFence::Grant(int64_t term, Clock::time_point until) {
  std::lock_guard<std::mutex> lock(mu_);
  term_ = term;
  last_term_ = term;
  until_ = until;
}

void WriteFence::Revoke() {
  std::lock_guard<std::mutex> lock(mu_);
  term_ = 0;
}

std::string WriteFence::Refusal() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (term_ == 0) {
    return last_term_ == 0 ? "this instance does not lead (leaderElection)"
                           : "this instance no longer leads (its term " +
                                 std::to_string(last_term_) + " ended)";
  }
  if (now_() >= until_) {
    return "the lease of term " + std::to_string(term_) +
           " may have expired (no renewal confirmed within the lease: this process was paused, "
           "or etcd was unreachable)";
  }
  return "";
}

}  // namespace fleetwave::cli
