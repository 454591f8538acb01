// The daemon's leader election (issue 28; docs/state-store.md, "Leader election"): one thread
// of its own (never a CAF scheduler thread: every step blocks on etcd) that campaigns with an
// etcd lease (store/etcd_leader.h) and, once this instance leads, renews the lease about every
// leaseDuration/3. It tells the daemon through two callbacks:
//   lead(term)  this instance won term `term`: fence the store to it and start the deciding
//               work (the coordinator);
//   stand_by()  the leadership ended (the lease expired or could not be renewed for a whole
//               lease): stop the deciding work, and return once it stopped.
// Stepping down is judged twice: etcd says the key is not this term's any more (each renewal
// is a campaign: it renews the lease and reads the key back), or this process could not renew
// for a whole lease by its own monotonic clock - which also
// covers a process frozen (SIGSTOP, a long pause) past its lease: it steps down on waking
// before it asks etcd anything. Correctness does not rest on either: every batch of the store
// is fenced to the term, so etcd refuses a former leader's writes whatever its clock says.
// A standby campaigns again every period (a lease expiry frees the key at etcd's own pace).
//
// Thread-safety: Start/Stop from the owning thread; View() from any thread. The callbacks run
// on the leadership thread, one at a time.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "store/etcd_leader.h"
#include "tools/fleetwave/write_fence.h"

namespace fleetwave::cli {

struct LeadershipView {
  std::string leader;  // who leads as far as this instance knows; empty: unknown / nobody
  std::string self;    // this instance's identity
  bool is_leader = false;
  int64_t term = 0;     // this instance's term while it leads
  int64_t changes = 0;  // how often this instance became leader or stopped leading
};

struct LeadershipCallbacks {
  std::function<void(int64_t term)> lead;
  std::function<void()> stand_by;
  // After every change of the view (leader, role): metrics, sd_notify STATUS, the log.
  std::function<void(const LeadershipView&)> changed;
  std::function<void(const std::string&)> log;
};

class Leadership {
 public:
  // `lease`: the lease's TTL (whole seconds at etcd); the renewal period is a third of it.
  // `fence` (may be null): granted while this instance leads, before `lead` runs, and revoked
  // before the view says standby.
  Leadership(std::unique_ptr<store::EtcdLeader> leader, std::string identity,
             std::chrono::seconds lease, LeadershipCallbacks callbacks,
             std::shared_ptr<WriteFence> fence = nullptr);
  ~Leadership();
  Leadership(const Leadership&) = delete;
  Leadership& operator=(const Leadership&) = delete;

  // Before Start: the longest a standby waits between campaigns (default 1 s). With a watch of
  // the leader key calling Nudge this is only the fallback.
  void SetStandbyPoll(std::chrono::milliseconds poll) { standby_poll_ = poll; }
  void Start();
  // Campaigns (or renews) now instead of at the end of the current wait: the leader key
  // changed (store/etcd_watch.h). Any thread.
  void Nudge();
  // Ends the thread (waits for a step in flight, bounded by etcd's request timeout). Does not
  // call stand_by: the daemon stops its deciding work itself, then calls Resign().
  void Stop();
  // Gives the lease up so a standby takes over at once (a planned stop); after Stop().
  void Resign();
  LeadershipView View() const;

 private:
  void Loop();
  // One step while standing by / while leading; each returns whether the view changed.
  bool Campaign();
  bool Renew();
  bool WaitPeriod();  // false: stopping
  // Records the end of this instance's term and returns the view to announce.
  LeadershipView EndTerm();

  std::unique_ptr<store::EtcdLeader> leader_;
  const std::chrono::seconds lease_;
  const std::chrono::milliseconds period_;
  std::chrono::milliseconds standby_poll_{1000};
  LeadershipCallbacks callbacks_;
  const std::shared_ptr<WriteFence> fence_;
  // When the last renewal that etcd confirmed was sent (the lease runs from about then).
  std::chrono::steady_clock::time_point renewed_at_;
  std::string last_problem_;  // logged once per change

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool nudged_ = false;
  LeadershipView view_;
  std::thread thread_;
};

}  // namespace fleetwave::cli
