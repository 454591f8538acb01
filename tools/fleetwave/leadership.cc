#include "tools/fleetwave/leadership.h"

#include <pthread.h>

#include <algorithm>
#include <utility>

namespace fleetwave::cli {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

Leadership::Leadership(std::unique_ptr<store::EtcdLeader> leader, std::string identity,
                       std::chrono::seconds lease, LeadershipCallbacks callbacks,
                       std::shared_ptr<WriteFence> fence)
    : leader_(std::move(leader)),
      lease_(lease),
      period_(std::max(std::chrono::milliseconds(100),
                       std::chrono::duration_cast<std::chrono::milliseconds>(lease) / 3)),
      callbacks_(std::move(callbacks)),
      fence_(std::move(fence)) {
  view_.self = std::move(identity);
}

Leadership::~Leadership() { Stop(); }

void Leadership::Start() {
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "fw-leader");
    Loop();
  });
}

void Leadership::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Leadership::Resign() {
  LeadershipView now = View();
  if (!now.is_leader) return;
  if (fence_) fence_->Revoke();
  const store::Status resigned = leader_->Resign();
  if (callbacks_.log) {
    callbacks_.log(resigned.ok() ? "leader: " + now.self + " resigned (a standby takes over now)"
                                 : resigned.message + " (a standby takes over when it expires)");
  }
  now = EndTerm();
  if (callbacks_.changed) callbacks_.changed(now);
}

LeadershipView Leadership::EndTerm() {
  // First: a write in flight is refused from here on, before anyone hears of the step-down.
  if (fence_) fence_->Revoke();
  std::lock_guard<std::mutex> lock(mu_);
  view_.is_leader = false;
  view_.leader.clear();
  view_.term = 0;
  ++view_.changes;
  return view_;
}

LeadershipView Leadership::View() const {
  std::lock_guard<std::mutex> lock(mu_);
  return view_;
}

void Leadership::Loop() {
  for (;;) {
    const bool leading = View().is_leader;
    const bool changed = leading ? Renew() : Campaign();
    if (changed && callbacks_.changed) callbacks_.changed(View());
    if (!WaitPeriod()) return;
  }
}

void Leadership::Nudge() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    nudged_ = true;
  }
  cv_.notify_all();
}

bool Leadership::WaitPeriod() {
  std::unique_lock<std::mutex> lock(mu_);
  // A standby asks at least every standby_poll_ (1 s by default), so a takeover follows an
  // expiry within about a second whatever the lease even when no watch tells it
  // (docs/state-store.md: takeover within leaseDuration + 3 s).
  const auto wait = view_.is_leader ? period_ : std::min(period_, standby_poll_);
  cv_.wait_for(lock, wait, [this] { return stop_ || nudged_; });
  nudged_ = false;
  return !stop_;
}

bool Leadership::Campaign() {
  const auto sent = Clock::now();
  const store::Campaign c = leader_->Run();
  if (!c.ok()) {
    if (c.status.message != last_problem_ && callbacks_.log) callbacks_.log(c.status.message);
    last_problem_ = c.status.message;
    return false;
  }
  last_problem_.clear();
  if (!c.leader) {
    std::lock_guard<std::mutex> lock(mu_);
    if (view_.leader == c.holder) return false;
    view_.leader = c.holder;
    if (callbacks_.log) callbacks_.log("leader: standby; " + c.holder + " leads");
    return true;
  }
  // The lease was granted or renewed during Run(): it runs from no earlier than `sent`.
  renewed_at_ = sent;
  if (callbacks_.log) {
    callbacks_.log("leader: " + c.holder + " (this instance) leads, term " +
                   std::to_string(c.term));
  }
  // Fenced and started before the view says leader: a mutation the API lets through finds the
  // coordinator there.
  if (fence_) fence_->Grant(c.term, sent + lease_);
  if (callbacks_.lead) callbacks_.lead(c.term);
  std::lock_guard<std::mutex> lock(mu_);
  view_.is_leader = true;
  view_.leader = c.holder;
  view_.term = c.term;
  ++view_.changes;
  return true;
}

bool Leadership::Renew() {
  std::string lost;
  const auto sent = Clock::now();
  const int64_t term = View().term;
  if (sent - renewed_at_ >= lease_) {
    // Checked before asking etcd: a process thawed after a freeze longer than its lease knows
    // it lost without a round trip.
    lost = "no renewal of the lease was confirmed for " + std::to_string(lease_.count()) +
           " s (this process was paused, or etcd was unreachable)";
  } else {
    // A campaign renews the lease and reads the key back: it still leads only while the key
    // is its own at the same term (a key deleted by hand and re-created is a new term).
    const store::Campaign c = leader_->Run();
    if (c.ok() && c.leader && c.term == term) {
      renewed_at_ = sent;
      if (fence_) fence_->Grant(term, sent + lease_);
      last_problem_.clear();
      return false;
    }
    if (c.ok()) {
      lost = c.leader ? "term " + std::to_string(term) +
                            " ended (its lease expired or the leader key was removed)"
                      : "the lease expired; " +
                            (c.holder.empty() ? std::string("nobody") : c.holder) + " leads";
    } else if (Clock::now() - renewed_at_ >= lease_) {
      lost = c.status.message;
    } else {
      // Not reachable now: still the leader until the lease could have run out.
      if (c.status.message != last_problem_ && callbacks_.log) callbacks_.log(c.status.message);
      last_problem_ = c.status.message;
      return false;
    }
  }
  if (callbacks_.log) callbacks_.log("leader: stepping down to standby: " + lost);
  const LeadershipView now = EndTerm();
  // The view says standby before the deciding work stops, so the API refuses mutations at once.
  if (callbacks_.changed) callbacks_.changed(now);
  if (callbacks_.stand_by) callbacks_.stand_by();
  return false;
}

}  // namespace fleetwave::cli
