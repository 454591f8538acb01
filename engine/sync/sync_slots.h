// The daemon's global sync slots (its limit on concurrent sync attempts), shared fairly among
// the ApplicationSets that ask for them.
//
// Why not first come, first served: a step that starts many syncs at once (a last wave of 80
// apps with maxUpdate unset) queues 80 requests, and every other set's next sync waited behind
// all of them. fleet_bench at 200 clusters / 10 sets measured that as the step-advance tail:
// each set's last step began 1.5-3.3 s after its previous step was Healthy, while every other
// advance took 80-450 ms. A platform team wants one set's large wave to cost other sets one
// slot's turn, not the whole wave.
//
// Rule: a free slot goes to the waiting holder that holds the fewest slots; among equals, the
// one whose oldest request is oldest. A holder's own requests are granted in the order it made
// them (a set's promotion order is kept). Pure: holders are numbers the caller assigns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <tuple>
#include <vector>

namespace fleetwave::engine {

class SyncSlots {
 public:
  using Holder = uint64_t;
  using Ticket = uint64_t;

  explicit SyncSlots(int limit) : limit_(limit) {}

  // A holder asks for one slot; the ticket identifies the request in Grant()'s answers.
  Ticket Request(Holder holder);
  // The holder gives one slot back. Ignored when it holds none (a release that was already
  // accounted, e.g. after Forget).
  void Release(Holder holder);
  // The holder is gone: its slots are free and its waiting requests dropped.
  void Forget(Holder holder);
  // The requests that get a slot now, in grant order; each is removed from the waiting ones.
  std::vector<Ticket> Grant();

  int active() const { return active_; }
  int held(Holder holder) const;
  size_t waiting() const { return waiting_count_; }

 private:
  struct Pending {
    Ticket ticket;
    uint64_t seq;  // arrival order across all holders
  };
  struct HolderState {
    int held = 0;
    std::deque<Pending> pending;
  };
  // (slots held, seq of the oldest pending request, holder): the first element is next.
  using Key = std::tuple<int, uint64_t, Holder>;
  void Unqueue(Holder holder, const HolderState& h);
  void Enqueue(Holder holder, const HolderState& h);

  int limit_;
  int active_ = 0;
  size_t waiting_count_ = 0;
  uint64_t next_ticket_ = 1;
  uint64_t next_seq_ = 1;
  std::map<Holder, HolderState> holders_;
  std::set<Key> ready_;  // holders with pending requests
};

}  // namespace fleetwave::engine
