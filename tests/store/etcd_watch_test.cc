// The leader key's watch (store/etcd_watch.h) on a real etcd: it reports the key's puts and
// deletes and nothing of other keys, counts every (re)opening of its stream as a change, moves
// to another member when its member dies, and stops within about a second. The prefix watch
// (a standby's mirror of the committed state) holds exactly the prefix's keys and values after
// every change, in store keys and store revisions, and reads the prefix afresh when its stream
// ends. Every wait is a bounded poll on a condition.
#include "store/etcd_watch.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

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

void PutValue(EtcdClient& admin, const std::string& key, const std::string& value) {
  const EtcdReply r =
      admin.Call("/v3/kv/put", {{"key", Base64Encode(key)}, {"value", Base64Encode(value)}}, false);
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

// What a prefix watch reported, copied on its thread.
struct Mirror {
  std::mutex mu;
  std::map<std::string, std::string> values;   // store key -> value
  std::map<std::string, int64_t> revisions;    // store key -> store revision
  std::vector<std::set<std::string>> changes;  // keys of each non-reset change
  int resets = 0;
  int64_t revision = 0;

  void operator()(const EtcdPrefixWatch::Change& c) {
    std::lock_guard<std::mutex> lock(mu);
    values.clear();
    revisions.clear();
    for (const auto& [key, entry] : *c.entries) {
      values[key] = entry.value;
      revisions[key] = entry.revision;
    }
    if (c.reset) {
      ++resets;
    } else {
      changes.push_back(c.keys);
    }
    revision = c.revision;
  }
  std::map<std::string, std::string> Values() {
    std::lock_guard<std::mutex> lock(mu);
    return values;
  }
};

int64_t ModRevision(EtcdClient& admin, const std::string& key) {
  const EtcdReply r = admin.Call("/v3/kv/range", {{"key", Base64Encode(key)}}, true);
  if (!r.ok() || !r.body.contains("kvs")) return -1;
  return JsonInt(r.body["kvs"][0], "mod_revision");
}

TEST(EtcdPrefixWatch, MirrorsThePrefixsKeysAndValuesAfterEveryChange) {
  EtcdCluster etcd(1);
  ASSERT_TRUE(etcd.ok()) << etcd.error();
  const EtcdTarget target = ParseEtcdUrl(etcd.Url("/p")).target;
  EtcdClient admin(target, {});
  PutValue(admin, "/p/kv/appsets/a/rollout", "1");  // before the start: in the first read
  PutValue(admin, "/p/kv/inputs/x", "other");       // another prefix: never mirrored
  const int64_t base = 2;  // as EtcdStore::base(): store revision = etcd revision - base
  auto mirror = std::make_shared<Mirror>();
  EtcdPrefixWatch watch(
      std::make_unique<EtcdClient>(target, EtcdTlsFiles{}), "appsets/", base,
      [mirror](const EtcdPrefixWatch::Change& c) { (*mirror)(c); }, nullptr);
  watch.Start();
  ASSERT_TRUE(WaitUntil([&] { return mirror->Values().size() == 1; }, std::chrono::seconds(10)));
  EXPECT_EQ(mirror->Values(), (std::map<std::string, std::string>{{"appsets/a/rollout", "1"}}));
  {
    std::lock_guard<std::mutex> lock(mirror->mu);
    EXPECT_EQ(mirror->resets, 1);
    EXPECT_EQ(mirror->revisions["appsets/a/rollout"],
              ModRevision(admin, "/p/kv/appsets/a/rollout") - base);
  }

  PutValue(admin, "/p/kv/appsets/a/status/app-1", "{}");
  PutValue(admin, "/p/kv/appsets/a/rollout", "2");
  PutValue(admin, "/p/kv/inputs/y", "other");
  PutValue(admin, "/p/kv/appsets/b/conditions", "[]");
  Delete(admin, "/p/kv/appsets/a/status/app-1");
  const std::map<std::string, std::string> expected = {{"appsets/a/rollout", "2"},
                                                       {"appsets/b/conditions", "[]"}};
  // etcd may hand several events in one message: waited for by the content, not the count.
  ASSERT_TRUE(WaitUntil([&] { return mirror->Values() == expected; }, std::chrono::seconds(10)));
  std::lock_guard<std::mutex> lock(mirror->mu);
  EXPECT_EQ(mirror->resets, 1) << "no reset while the stream lives";
  std::set<std::string> reported;
  for (const auto& keys : mirror->changes) reported.insert(keys.begin(), keys.end());
  EXPECT_EQ(reported, (std::set<std::string>{"appsets/a/status/app-1", "appsets/a/rollout",
                                             "appsets/b/conditions"}))
      << "only the prefix's keys";
  EXPECT_EQ(mirror->revision, ModRevision(admin, "/p/kv/appsets/b/conditions") + 1 - base)
      << "current as of the last change (the delete's revision)";
}

TEST(EtcdPrefixWatch, ReadsThePrefixAgainWhenItsStreamEnds) {
  EtcdCluster etcd(3);
  ASSERT_TRUE(etcd.ok()) << etcd.error();
  const EtcdTarget target = ParseEtcdUrl(etcd.Url("/p")).target;
  auto mirror = std::make_shared<Mirror>();
  std::atomic<int> problems{0};
  EtcdPrefixWatch watch(
      std::make_unique<EtcdClient>(target, EtcdTlsFiles{}), "appsets/", 0,
      [mirror](const EtcdPrefixWatch::Change& c) { (*mirror)(c); },
      [&](const std::string&) { ++problems; }, std::chrono::milliseconds(100));
  watch.Start();
  ASSERT_TRUE(WaitUntil(
      [&] {
        std::lock_guard<std::mutex> lock(mirror->mu);
        return mirror->resets == 1;
      },
      std::chrono::seconds(10)));
  etcd.Kill(0);  // the member the stream is on (the first endpoint)
  // Written while the stream is down or reopening: the fresh read holds it whatever happened.
  EtcdClient admin(ParseEtcdUrl(etcd.Url("/p", false)).target, {});
  ASSERT_TRUE(WaitUntil(
      [&] {
        return admin
            .Call("/v3/kv/put",
                  {{"key", Base64Encode("/p/kv/appsets/a/rollout")}, {"value", Base64Encode("3")}},
                  false)
            .ok();
      },
      std::chrono::seconds(30)));
  ASSERT_TRUE(WaitUntil(
      [&] {
        std::lock_guard<std::mutex> lock(mirror->mu);
        return mirror->resets >= 2 && mirror->values.count("appsets/a/rollout") > 0;
      },
      std::chrono::seconds(20)))
      << "read afresh on another member";
  EXPECT_EQ(mirror->Values(), (std::map<std::string, std::string>{{"appsets/a/rollout", "3"}}));
  EXPECT_GE(problems.load(), 1) << "the ended stream is logged";
  watch.Stop();
}

}  // namespace
}  // namespace fleetwave::store
