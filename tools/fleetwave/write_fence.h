// Whether this instance may write to a cluster now (issue 28; docs/state-store.md, "Leader
// election"): the cluster-side half of the leadership fence. The store's half is etcd's own
// (EtcdStore::Fence refuses a former leader's batches); a Kubernetes API server knows nothing of
// terms, so a write that is already decided - an apply in flight, a retry, a prune - is stopped
// here instead, on this side, right before it is sent (clients::ClientOptions::write_refusal).
//
// A grant holds for one term and until a point of the monotonic clock: the last renewal etcd
// confirmed plus the lease. It ends when the leadership thread revokes it (a step-down, a
// resignation) or when that point passes, whichever is first - so a process frozen past its
// lease (SIGSTOP, a long pause) refuses every write the moment it thaws, whichever of its
// threads runs first, before the leadership thread has even noticed. The standby can only take
// over after etcd expired the lease, which is no earlier than that point.
//
// The fence is asked twice per attempt: by the client before the request goes to the
// transport, and by the transport once the connection (TCP, TLS) is up, right before the
// request's first byte (clients::HttpRequest::send_refusal). The second ask matters: from the
// first to the socket a write may wait a loop turn or a new connection's handshakes, and a
// process frozen there past its lease would send it on waking, after its term. What remains is
// the one function call between the second ask and the socket: a freeze exactly there sends
// one write late. No client-side fence closes that window.
//
// Thread-safety: every method from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

namespace fleetwave::cli {

class WriteFence {
 public:
  using Clock = std::chrono::steady_clock;
  explicit WriteFence(std::function<Clock::time_point()> now = &Clock::now);

  // Term `term` may write until `until` (a new term, or a renewal of the same term).
  void Grant(int64_t term, Clock::time_point until);
  // No write from now on until the next Grant.
  void Revoke();
  // Empty when a write may be sent now; else why not (for the refused request's error).
  std::string Refusal() const;

 private:
  const std::function<Clock::time_point()> now_;
  mutable std::mutex mu_;
  int64_t term_ = 0;  // 0: no grant
  int64_t last_term_ = 0;
  Clock::time_point until_{};
};

}  // namespace fleetwave::cli
