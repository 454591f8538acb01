// The coordinator's global sync slots (its limit on concurrent sync attempts): a slot goes back
// when its holder releases it, so a fleet can run more attempts in a lifetime than the limit.
#include <gtest/gtest.h>
#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include <memory>
#include <string>
#include <vector>

#include "actors/atoms.h"
#include "actors/blocking_pool.h"
#include "actors/coordinator.h"
#include "actors/services.h"
#include "sources/fake_source.h"
#include "store/memory_store.h"

namespace fleetwave::actors {
namespace {

using request_atom = caf::atom_constant<caf::atom("request")>;

// Asks for slots on (request_atom, n) and gives one back on (release_atom); counts its grants.
caf::behavior SlotHolder(caf::event_based_actor* self, SetParent coordinator,
                         std::shared_ptr<int> granted) {
  return {
      [=](request_atom, int n) {
        for (int i = 0; i < n; ++i) {
          self->request(coordinator, caf::infinite, slot_atom::value).then([=](slot_atom) {
            ++*granted;
          });
        }
      },
      [=](release_atom) { self->send(coordinator, release_atom::value); },
  };
}

class CoordinatorSlotsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    services_.store = &store_;
    services_.source = &source_;
    services_.pool = &pool_;
    services_.now = [] { return engine::FromUnixSeconds(1'800'000'000); };
    services_.log = [](const std::string&) {};
    cfg_.set("scheduler.policy", caf::atom("testing"));
    system_ = std::make_unique<caf::actor_system>(cfg_);
    sched_ = &dynamic_cast<caf::scheduler::test_coordinator&>(system_->scheduler());
    CoordinatorConfig config;
    config.services = &services_;
    config.initial.config_path = "fleetwave.yaml";
    config.load = [initial = config.initial] { return initial; };
    config.max_concurrent_syncs = 2;
    coordinator_ = SpawnCoordinator(*system_, config);
    sched_->run();
  }
  void TearDown() override {
    caf::anon_send(coordinator_, stop_atom::value);
    for (auto& h : holders_) caf::anon_send_exit(h, caf::exit_reason::user_shutdown);
    sched_->run();
  }
  caf::actor Holder(std::shared_ptr<int> granted) {
    holders_.push_back(system_->spawn(SlotHolder, SetParent(coordinator_), std::move(granted)));
    return holders_.back();
  }

  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> system_;
  caf::scheduler::test_coordinator* sched_ = nullptr;
  store::MemoryStore store_;
  sources::FakeSource source_;
  BlockingPool pool_{0};
  Services services_;
  CoordinatorActor coordinator_;
  std::vector<caf::actor> holders_;
};

TEST_F(CoordinatorSlotsTest, AReleasedSlotGoesToTheNextWaiter) {
  auto a = std::make_shared<int>(0);
  auto b = std::make_shared<int>(0);
  caf::actor holder_a = Holder(a);
  caf::actor holder_b = Holder(b);
  caf::anon_send(holder_a, request_atom::value, 2);
  sched_->run();
  caf::anon_send(holder_b, request_atom::value, 1);
  sched_->run();
  EXPECT_EQ(*a, 2);
  EXPECT_EQ(*b, 0) << "a third slot was granted over the limit of 2";

  caf::anon_send(holder_a, release_atom::value);
  sched_->run();
  EXPECT_EQ(*b, 1) << "a's release did not free its slot";

  // Many more attempts than the limit over a lifetime: every release frees a slot.
  for (int round = 0; round < 10; ++round) {
    caf::anon_send(holder_a, request_atom::value, 1);
    sched_->run();
    caf::anon_send(holder_b, release_atom::value);
    sched_->run();
    caf::anon_send(holder_b, request_atom::value, 1);
    caf::anon_send(holder_a, release_atom::value);
    sched_->run();
  }
  EXPECT_EQ(*a, 12);
  EXPECT_EQ(*b, 11);
}

TEST_F(CoordinatorSlotsTest, AReleaseFromAnActorHoldingNoSlotFreesNothing) {
  auto a = std::make_shared<int>(0);
  auto b = std::make_shared<int>(0);
  auto c = std::make_shared<int>(0);
  caf::actor holder_a = Holder(a);
  caf::actor holder_b = Holder(b);
  caf::actor stranger = Holder(c);
  caf::anon_send(holder_a, request_atom::value, 2);
  caf::anon_send(holder_b, request_atom::value, 1);
  sched_->run();
  caf::anon_send(stranger, release_atom::value);
  sched_->run();
  EXPECT_EQ(*b, 0);
}

// A set's one sync does not wait behind another set's whole wave (engine/sync/sync_slots.h):
// the next free slot goes to the actor holding fewer.
TEST_F(CoordinatorSlotsTest, ASlotGoesToTheActorHoldingFewerNotToTheLongestQueue) {
  auto a = std::make_shared<int>(0);
  auto b = std::make_shared<int>(0);
  caf::actor holder_a = Holder(a);
  caf::actor holder_b = Holder(b);
  caf::anon_send(holder_a, request_atom::value, 8);  // a wave: 2 granted, 6 waiting
  sched_->run();
  caf::anon_send(holder_b, request_atom::value, 1);
  sched_->run();
  ASSERT_EQ(*a, 2);
  ASSERT_EQ(*b, 0);
  caf::anon_send(holder_a, release_atom::value);
  sched_->run();
  EXPECT_EQ(*b, 1) << "b waited behind a's wave";
  EXPECT_EQ(*a, 2);
  caf::anon_send(holder_a, release_atom::value);
  sched_->run();
  EXPECT_EQ(*a, 3) << "a's wave goes on once b holds as many";
}

}  // namespace
}  // namespace fleetwave::actors
