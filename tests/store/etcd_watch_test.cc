// The leader key's watch (store/etcd_watch.h) on a real etcd: it reports the key's puts and
// deletes and nothing of other keys, counts every (re)opening of its stream as a change, moves
// to another member when its member dies, and stops within about a second. Every wait is a
// bounded poll on a condition.
#include "store/etcd_watch.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "store/etcd_client.h"
#include "tests/store/etcd_process.h"

namespace fleetwave::store {
namespace {

using testing::EtcdCluster;

bool WaitUntil(const std::function<bool()>& condition, std::chrono::milliseconds bound) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polling, not synchronising
  }
  return true;
}

void Put(EtcdClient& admin, const std::string& key) {
  const EtcdReply r =
      admin.Call("/v3/kv/put", {{"key", Base64Encode(key)}, {"value", Base64Encode("x")}}, false);
  ASSERT_TRUE(r.ok()) << r.status.message;
}

void Delete(EtcdClient& admin, const std::string& key) {
  const EtcdReply r = admin.Call("/v3/kv/deleterange", {{"key", Base64Encode(key)}}, false);
  ASSERT_TRUE(r.ok()) << r.status.message;
}

TEST(EtcdKeyWatch, ReportsThePutsAndDeletesOfItsKeyOnlyAndStopsPromptly) {
  EtcdCluster etcd(1);
  ASSERT_TRUE(etcd.ok()) << etcd.error();
  const EtcdTarget target = ParseEtcdUrl(etcd.Url("/w")).target;
  EtcdClient admin(target, {});
  std::atomic<int> changes{0};
  EtcdKeyWatch watch(
      std::make_unique<EtcdClient>(target, EtcdTlsFiles{}), "/w/meta/leader", [&] { ++changes; },
      nullptr);
  watch.Start();
  ASSERT_TRUE(WaitUntil([&] { return changes.load() == 1; }, std::chrono::seconds(10)))
      << "the stream's creation counts as a change";
  Put(admin, "/w/meta/leader");
  ASSERT_TRUE(WaitUntil([&] { return changes.load() == 2; }, std::chrono::seconds(10)));
  Put(admin, "/w/meta/leader-not");  // another key: never reported
  Put(admin, "/w/meta/other");
  Delete(admin, "/w/meta/leader");
  ASSERT_TRUE(WaitUntil([&] { return changes.load() >= 3; }, std::chrono::seconds(10)));
  // etcd streams in revision order: had the other keys been reported, it would be before the
  // delete.
  EXPECT_EQ(changes.load(), 3);

  const auto asked = std::chrono::steady_clock::now();
  watch.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(3));
}

TEST(EtcdKeyWatch, MovesToAnotherMemberWhenItsMemberDies) {
  EtcdCluster etcd(3);
  ASSERT_TRUE(etcd.ok()) << etcd.error();
  const EtcdTarget target = ParseEtcdUrl(etcd.Url("/w")).target;
  std::atomic<int> changes{0};
  std::atomic<int> problems{0};
  EtcdKeyWatch watch(
      std::make_unique<EtcdClient>(target, EtcdTlsFiles{}), "/w/meta/leader", [&] { ++changes; },
      [&](const std::string&) { ++problems; }, std::chrono::milliseconds(100));
  watch.Start();
  ASSERT_TRUE(WaitUntil([&] { return changes.load() == 1; }, std::chrono::seconds(10)));
  etcd.Kill(0);  // the member the stream is on (the first endpoint)
  ASSERT_TRUE(WaitUntil([&] { return changes.load() == 2; }, std::chrono::seconds(20)))
      << "reopened on another member (a reopening counts as a change)";
  EXPECT_GE(problems.load(), 1) << "the ended stream is logged";
  // The killed member may have led the cluster: the put is retried until a new one answers.
  EtcdClient admin(ParseEtcdUrl(etcd.Url("/w", false)).target, {});
  ASSERT_TRUE(WaitUntil(
      [&] {
        return admin
            .Call("/v3/kv/put",
                  {{"key", Base64Encode("/w/meta/leader")}, {"value", Base64Encode("x")}}, false)
            .ok();
      },
      std::chrono::seconds(30)));
  EXPECT_TRUE(WaitUntil([&] { return changes.load() >= 3; }, std::chrono::seconds(10)));
  watch.Stop();
}

}  // namespace
}  // namespace fleetwave::store
