// The daemon's leadership thread (tools/fleetwave/leadership.h) on a real etcd: of two
// instances exactly one leads; a resigning leader hands over at once; a leader whose key is
// gone steps down (its stand_by runs before it campaigns again) and a later term is a new one.
// Every wait is a bounded poll on a condition.
#include "tools/fleetwave/leadership.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "store/etcd_client.h"
#include "store/etcd_store.h"
#include "store/etcd_watch.h"
#include "tests/store/etcd_process.h"

namespace fleetwave::cli {
namespace {

using store::testing::EtcdCluster;

constexpr std::chrono::seconds kLease{2};

bool WaitUntil(const std::function<bool()>& condition, std::chrono::milliseconds bound) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polling, not synchronising
  }
  return true;
}

// One instance: its callbacks' record.
struct Instance {
  std::mutex mu;
  std::vector<std::string> events;      // "lead N" / "stand_by"
  std::vector<std::string> fence_seen;  // the write fence's refusal as each callback ran
  std::shared_ptr<WriteFence> fence = std::make_shared<WriteFence>();
  std::unique_ptr<Leadership> leadership;

  Instance(const std::string& url, const std::string& identity) {
    auto client =
        std::make_unique<store::EtcdClient>(store::ParseEtcdUrl(url).target, store::EtcdTlsFiles{});
    LeadershipCallbacks callbacks;
    callbacks.lead = [this](int64_t term) {
      fence_seen.push_back(fence->Refusal());
      Record("lead " + std::to_string(term));
    };
    callbacks.stand_by = [this] {
      fence_seen.push_back(fence->Refusal());
      Record("stand_by");
    };
    leadership = std::make_unique<Leadership>(
        std::make_unique<store::EtcdLeader>(std::move(client), identity, kLease.count()), identity,
        kLease, callbacks, fence);
    leadership->Start();
  }
  void Record(const std::string& e) {
    std::lock_guard<std::mutex> lock(mu);
    events.push_back(e);
  }
  std::vector<std::string> Events() {
    std::lock_guard<std::mutex> lock(mu);
    return events;
  }
  bool Leads() { return leadership->View().is_leader; }
};

TEST(Leadership, ExactlyOneLeadsAndAResignationHandsOverAtOnce) {
  EtcdCluster etcd(1);
  ASSERT_TRUE(etcd.ok()) << etcd.error();
  const std::string url = etcd.Url("/ha");
  Instance a(url, "host-a");
  ASSERT_TRUE(WaitUntil([&] { return a.Leads(); }, std::chrono::seconds(10)));
  Instance b(url, "host-b");
  ASSERT_TRUE(
      WaitUntil([&] { return b.leadership->View().leader == "host-a"; }, std::chrono::seconds(10)));
  EXPECT_FALSE(b.Leads());
  const LeadershipView va = a.leadership->View();
  EXPECT_EQ(va.self, "host-a");
  EXPECT_EQ(va.leader, "host-a");
  EXPECT_EQ(va.changes, 1);
  EXPECT_EQ(a.Events(), std::vector<std::string>{"lead " + std::to_string(va.term)});
  EXPECT_TRUE(b.Events().empty());

  // Several renewal periods later nothing changed: renewals keep the same term.
  std::this_thread::sleep_for(kLease * 2);  // the input: time passing, not a synchronisation
  EXPECT_TRUE(a.Leads());
  EXPECT_EQ(a.leadership->View().term, va.term);
  EXPECT_FALSE(b.Leads());

  // The writes to clusters follow the leadership: the leader's pass, the standby's do not.
  EXPECT_EQ(a.fence->Refusal(), "");
  EXPECT_NE(b.fence->Refusal(), "");

  const auto stopped = std::chrono::steady_clock::now();
  a.leadership->Stop();
  a.leadership->Resign();
  EXPECT_FALSE(a.Leads());
  EXPECT_NE(a.fence->Refusal(), "") << "a resigned leader writes nothing";
  ASSERT_TRUE(WaitUntil([&] { return b.Leads(); }, std::chrono::seconds(5)));
  const auto took = std::chrono::steady_clock::now() - stopped;
  EXPECT_LT(took, std::chrono::milliseconds(1500))
      << "a resignation is taken over at the next poll";
  EXPECT_GT(b.leadership->View().term, va.term);
}

TEST(Leadership, ALeaderWhoseKeyIsGoneStepsDownAndLeadsANewTerm) {
  EtcdCluster etcd(1);
  ASSERT_TRUE(etcd.ok()) << etcd.error();
  const std::string url = etcd.Url("/ha");
  Instance a(url, "host-a");
  ASSERT_TRUE(WaitUntil([&] { return a.Leads(); }, std::chrono::seconds(10)));
  const int64_t first = a.leadership->View().term;
  // Someone removes the key (an operator, or etcd's expiry of a lease this process missed).
  store::EtcdClient admin(store::ParseEtcdUrl(url).target, store::EtcdTlsFiles{});
  store::EtcdReply removed =
      admin.Call("/v3/kv/deleterange",
                 {{"key", store::Base64Encode(store::EtcdLayout{"/ha"}.Leader())}}, false);
  ASSERT_TRUE(removed.ok()) << removed.status.message;
  ASSERT_TRUE(WaitUntil(
      [&] {
        const auto e = a.Events();
        return e.size() >= 3;
      },
      std::chrono::seconds(10)));
  const std::vector<std::string> events = a.Events();
  EXPECT_EQ(events[0], "lead " + std::to_string(first));
  EXPECT_EQ(events[1], "stand_by") << "the coordinator of the ended term stops first";
  ASSERT_EQ(events[2].rfind("lead ", 0), 0u);
  EXPECT_GT(std::stoll(events[2].substr(5)), first) << "a new term, so a new fence";
  // Granted before a term's work starts; revoked before the ended term's work is stopped, so
  // an apply that work still had in flight is not sent.
  ASSERT_EQ(a.fence_seen.size(), 3u);
  EXPECT_EQ(a.fence_seen[0], "");
  EXPECT_THAT(a.fence_seen[1], ::testing::HasSubstr("no longer leads"));
  EXPECT_EQ(a.fence_seen[2], "");
  EXPECT_TRUE(a.Leads());
  EXPECT_EQ(a.leadership->View().changes, 3);
}

}  // namespace
}  // namespace fleetwave::cli

namespace fleetwave::cli {
namespace {

// The leader key's watch (store/etcd_watch.h): a standby whose poll is far away takes over the
// moment the leader resigns, because the watch nudges it; without the watch it would wait for
// its poll (30 s here, longer than the bound).
TEST(Leadership, AWatchingStandbyTakesOverAtOnceWithoutWaitingForItsPoll) {
  EtcdCluster etcd(1);
  ASSERT_TRUE(etcd.ok()) << etcd.error();
  const std::string url = etcd.Url("/ha");
  const std::chrono::seconds long_lease{90};  // renewals and polls every 30 s
  auto make = [&](const std::string& identity) {
    auto client =
        std::make_unique<store::EtcdClient>(store::ParseEtcdUrl(url).target, store::EtcdTlsFiles{});
    auto l = std::make_unique<Leadership>(
        std::make_unique<store::EtcdLeader>(std::move(client), identity, long_lease.count()),
        identity, long_lease, LeadershipCallbacks{});
    l->SetStandbyPoll(std::chrono::seconds(30));
    return l;
  };
  auto a = make("host-a");
  a->Start();
  ASSERT_TRUE(WaitUntil([&] { return a->View().is_leader; }, std::chrono::seconds(10)));
  auto b = make("host-b");
  std::atomic<int> nudges{0};
  store::EtcdKeyWatch watch(
      std::make_unique<store::EtcdClient>(store::ParseEtcdUrl(url).target, store::EtcdTlsFiles{}),
      store::EtcdLayout{"/ha"}.Leader(),
      [&] {
        ++nudges;
        b->Nudge();
      },
      nullptr);
  b->Start();
  ASSERT_TRUE(WaitUntil([&] { return b->View().leader == "host-a"; }, std::chrono::seconds(10)));
  watch.Start();
  // The watch's creation counts as a change (one nudge, one campaign that finds host-a).
  ASSERT_TRUE(WaitUntil([&] { return nudges.load() >= 1; }, std::chrono::seconds(10)));
  EXPECT_FALSE(b->View().is_leader);

  const auto resigned = std::chrono::steady_clock::now();
  a->Stop();
  a->Resign();
  ASSERT_TRUE(WaitUntil([&] { return b->View().is_leader; }, std::chrono::seconds(5)))
      << "host-b still waits for its poll";
  EXPECT_LT(std::chrono::steady_clock::now() - resigned, std::chrono::seconds(5));
  watch.Stop();
  b->Stop();
}

}  // namespace
}  // namespace fleetwave::cli
