// The global sync slots shared fairly among sets (engine/sync/sync_slots.h).
#include "engine/sync/sync_slots.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <vector>

namespace fleetwave::engine {
namespace {

using Tickets = std::vector<SyncSlots::Ticket>;

TEST(SyncSlotsTest, GrantsUpToTheLimitAndAReleaseGrantsTheNext) {
  SyncSlots slots(2);
  const auto a1 = slots.Request(1);
  const auto a2 = slots.Request(1);
  const auto a3 = slots.Request(1);
  EXPECT_EQ(slots.Grant(), (Tickets{a1, a2}));
  EXPECT_EQ(slots.Grant(), Tickets{});
  EXPECT_EQ(slots.active(), 2);
  EXPECT_EQ(slots.waiting(), 1u);
  slots.Release(1);
  EXPECT_EQ(slots.Grant(), Tickets{a3});
}

// The case fleet_bench found: set 1 starts a wave of many syncs, set 2 then asks for one. Set 2
// gets the next free slot instead of waiting behind the whole wave.
TEST(SyncSlotsTest, ASetsOneSyncDoesNotWaitBehindAnotherSetsWave) {
  SyncSlots slots(2);
  Tickets wave;
  for (int i = 0; i < 80; ++i) wave.push_back(slots.Request(1));
  EXPECT_EQ(slots.Grant(), (Tickets{wave[0], wave[1]}));
  const auto other = slots.Request(2);
  EXPECT_EQ(slots.Grant(), Tickets{});  // no free slot yet
  slots.Release(1);
  EXPECT_EQ(slots.Grant(), Tickets{other});
  slots.Release(1);
  EXPECT_EQ(slots.Grant(), Tickets{wave[2]});
}

TEST(SyncSlotsTest, AmongHoldersWithEqualSlotsTheOldestRequestGoesFirst) {
  SyncSlots slots(1);
  const auto b = slots.Request(7);
  const auto a = slots.Request(3);
  EXPECT_EQ(slots.Grant(), Tickets{b});  // holder 7 asked first; the holder's number is no rank
  slots.Release(7);
  EXPECT_EQ(slots.Grant(), Tickets{a});
}

TEST(SyncSlotsTest, AHoldersOwnRequestsAreGrantedInTheirOrder) {
  SyncSlots slots(3);
  const auto x1 = slots.Request(1);
  const auto y1 = slots.Request(2);
  const auto x2 = slots.Request(1);
  const auto x3 = slots.Request(1);
  const auto y2 = slots.Request(2);
  // 1 and 2 alternate while their holdings are equal; each in its own order.
  EXPECT_EQ(slots.Grant(), (Tickets{x1, y1, x2}));
  slots.Release(1);
  slots.Release(1);
  EXPECT_EQ(slots.Grant(), (Tickets{x3, y2}));
}

TEST(SyncSlotsTest, AForgottenHolderFreesItsSlotsAndItsWaitsAreDropped) {
  SyncSlots slots(2);
  slots.Request(1);
  slots.Request(1);
  slots.Request(1);
  EXPECT_EQ(slots.Grant().size(), 2u);
  const auto other = slots.Request(2);
  slots.Forget(1);
  EXPECT_EQ(slots.active(), 0);
  EXPECT_EQ(slots.waiting(), 1u);
  EXPECT_EQ(slots.Grant(), Tickets{other});
  slots.Release(1);  // a late release of a forgotten holder changes nothing
  EXPECT_EQ(slots.active(), 1);
  EXPECT_EQ(slots.held(2), 1);
}

TEST(SyncSlotsTest, AReleaseWithoutASlotIsIgnored) {
  SyncSlots slots(1);
  slots.Release(5);
  const auto t = slots.Request(5);
  EXPECT_EQ(slots.Grant(), Tickets{t});
  slots.Release(5);
  slots.Release(5);
  EXPECT_EQ(slots.active(), 0);
  EXPECT_EQ(slots.held(5), 0);
}

// The indexed queue against the rule read literally (scan every holder), on random sequences.
TEST(SyncSlotsTest, AgreesWithAScanOfEveryHolderOnRandomSequences) {
  for (unsigned seed = 1; seed <= 50; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937 rng(seed);
    const int limit = 1 + static_cast<int>(rng() % 5);
    SyncSlots slots(limit);
    struct Req {
      SyncSlots::Ticket ticket;
      uint64_t seq;
    };
    std::map<SyncSlots::Holder, std::vector<Req>> pending;
    std::map<SyncSlots::Holder, int> held;
    int active = 0;
    uint64_t seq = 0;
    for (int step = 0; step < 400; ++step) {
      const SyncSlots::Holder h = rng() % 6;
      switch (rng() % 4) {
        case 0:
        case 1:
          pending[h].push_back({slots.Request(h), ++seq});
          break;
        case 2:
          if (held[h] > 0) {
            --held[h];
            --active;
          }
          slots.Release(h);
          break;
        case 3:
          if (rng() % 8 == 0) {
            active -= held[h];
            held[h] = 0;
            pending[h].clear();
            slots.Forget(h);
          }
          break;
      }
      Tickets want;
      while (active < limit) {
        std::optional<SyncSlots::Holder> best;
        for (const auto& [holder, reqs] : pending) {
          if (reqs.empty()) continue;
          if (!best || held[holder] < held[*best] ||
              (held[holder] == held[*best] && reqs.front().seq < pending[*best].front().seq)) {
            best = holder;
          }
        }
        if (!best) break;
        want.push_back(pending[*best].front().ticket);
        pending[*best].erase(pending[*best].begin());
        ++held[*best];
        ++active;
      }
      ASSERT_EQ(slots.Grant(), want) << "step " << step;
      ASSERT_EQ(slots.active(), active);
    }
  }
}

}  // namespace
}  // namespace fleetwave::engine
