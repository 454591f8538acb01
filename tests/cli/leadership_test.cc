// The daemon's leadership thread (tools/fleetwave/leadership.h) on a real etcd: of two
// instances exactly one leads; a resigning leader hands over at once; a leader whose key is
// gone steps down (its stand_by runs before it campaigns again) and a later term is a new one.
// Every wait is a bounded poll on a condition.
#include "tools/fleetwave/leadership.h"

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
  std::vector<std::string> events;  // "lead N" / "stand_by"
  std::unique_ptr<Leadership> leadership;

  Instance(const std::string& url, const std::string& identity) {
    auto client =
        std::make_unique<store::EtcdClient>(store::ParseEtcdUrl(url).target, store::EtcdTlsFiles{});
    LeadershipCallbacks callbacks;
    callbacks.lead = [this](int64_t term) { Record("lead " + std::to_string(term)); };
    callbacks.stand_by = [this] { Record("stand_by"); };
    leadership = std::make_unique<Leadership>(
        std::make_unique<store::EtcdLeader>(std::move(client), identity, kLease.count()), identity,
        kLease, callbacks);
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

  const auto stopped = std::chrono::steady_clock::now();
  a.leadership->Stop();
  a.leadership->Resign();
  EXPECT_FALSE(a.Leads());
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
  EXPECT_TRUE(a.Leads());
  EXPECT_EQ(a.leadership->View().changes, 3);
}

}  // namespace
}  // namespace fleetwave::cli
