#include "engine/sync/sync_slots.h"

namespace fleetwave::engine {

void SyncSlots::Unqueue(Holder holder, const HolderState& h) {
  if (!h.pending.empty()) ready_.erase(Key{h.held, h.pending.front().seq, holder});
}

void SyncSlots::Enqueue(Holder holder, const HolderState& h) {
  if (!h.pending.empty()) ready_.insert(Key{h.held, h.pending.front().seq, holder});
}

SyncSlots::Ticket SyncSlots::Request(Holder holder) {
  HolderState& h = holders_[holder];
  Unqueue(holder, h);
  const Ticket ticket = next_ticket_++;
  h.pending.push_back({ticket, next_seq_++});
  ++waiting_count_;
  Enqueue(holder, h);
  return ticket;
}

void SyncSlots::Release(Holder holder) {
  auto it = holders_.find(holder);
  if (it == holders_.end() || it->second.held == 0) return;
  HolderState& h = it->second;
  Unqueue(holder, h);
  --h.held;
  --active_;
  Enqueue(holder, h);
  if (h.held == 0 && h.pending.empty()) holders_.erase(it);
}

void SyncSlots::Forget(Holder holder) {
  auto it = holders_.find(holder);
  if (it == holders_.end()) return;
  Unqueue(holder, it->second);
  active_ -= it->second.held;
  waiting_count_ -= it->second.pending.size();
  holders_.erase(it);
}

std::vector<SyncSlots::Ticket> SyncSlots::Grant() {
  std::vector<Ticket> granted;
  while (active_ < limit_ && !ready_.empty()) {
    const Holder holder = std::get<2>(*ready_.begin());
    HolderState& h = holders_.at(holder);
    Unqueue(holder, h);
    granted.push_back(h.pending.front().ticket);
    h.pending.pop_front();
    --waiting_count_;
    ++h.held;
    ++active_;
    Enqueue(holder, h);
  }
  return granted;
}

int SyncSlots::held(Holder holder) const {
  auto it = holders_.find(holder);
  return it == holders_.end() ? 0 : it->second.held;
}

}  // namespace fleetwave::engine
