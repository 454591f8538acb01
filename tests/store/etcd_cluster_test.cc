// A 3-member etcd cluster on loopback loses its leader to kill -9 while EtcdStore commits in a
// loop: every batch the store acknowledged is readable afterwards from the two members left
// (a quorum of 2 of 3), wholly and at the revision it was acknowledged with, and every batch
// that failed is there wholly or not at all - never in part.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "store/etcd_store.h"
#include "tests/store/etcd_process.h"

namespace fleetwave::store {
namespace {

using testing::EtcdCluster;

std::string BatchKey(int batch, const char* part) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "b/%05d/%s", batch, part);
  return buf;
}

// `victim` picks the member to kill, given the cluster.
void KillMidCommits(const std::function<int(EtcdCluster&)>& victim) {
  EtcdCluster cluster(3);
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  // Connect quickly to a dead member; a write waits through etcd's own election and timeout.
  const EtcdClientOptions client{500, 20000};
  OpenResult opened = OpenEtcdStore(cluster.Url("/fleetwave"), {}, client);
  ASSERT_TRUE(opened.ok()) << opened.status.message;
  Store& store = *opened.store;

  constexpr int kBeforeKill = 40;
  constexpr int kAfterKill = 40;
  std::mutex mu;
  std::condition_variable cv;
  int acked = 0;
  bool killed = false;
  int killed_index = -1;
  std::thread killer([&] {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return acked >= kBeforeKill; });
    lock.unlock();
    // Killed while the writer keeps committing (the writer does not wait for this).
    killed_index = victim(cluster);
    cluster.Kill(killed_index);
    lock.lock();
    killed = true;
  });

  std::vector<std::optional<int64_t>> results;  // acknowledged revision per batch
  int acked_after_kill = 0;
  int failed = 0;
  std::chrono::milliseconds longest{0};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (acked_after_kill < kAfterKill && std::chrono::steady_clock::now() < deadline) {
    const int i = static_cast<int>(results.size());
    const std::string v = std::to_string(i);
    const auto start = std::chrono::steady_clock::now();
    WriteResult w = store.Commit(
        {Op::Put(BatchKey(i, "x"), v), Op::Put(BatchKey(i, "y"), v), Op::Put(BatchKey(i, "z"), v)});
    longest = std::max(longest, std::chrono::duration_cast<std::chrono::milliseconds>(
                                    std::chrono::steady_clock::now() - start));
    if (w.ok()) {
      results.push_back(w.revision);
      std::lock_guard<std::mutex> lock(mu);
      ++acked;
      if (killed) ++acked_after_kill;
      cv.notify_all();
    } else {
      EXPECT_EQ(w.status.code, Code::kIo) << w.status.message;
      results.push_back(std::nullopt);
      ++failed;
      std::printf("batch %d failed: %s\n", i, w.status.message.c_str());
    }
  }
  killer.join();
  ASSERT_GE(acked_after_kill, kAfterKill) << "the two members left kept committing";
  std::printf(
      "etcd cluster: %zu batches, %d failed around the kill of member %d, longest commit "
      "%lld ms\n",
      results.size(), failed, killed_index, static_cast<long long>(longest.count()));
  ::testing::Test::RecordProperty("longest_commit_ms", static_cast<int>(longest.count()));

  // Read from the survivors only.
  OpenResult survivors = OpenEtcdStore(cluster.Url("/fleetwave", /*all=*/false), {}, client);
  ASSERT_TRUE(survivors.ok()) << survivors.status.message;
  ListResult list = survivors.store->List("b/");
  ASSERT_TRUE(list.ok()) << list.status.message;
  std::map<std::string, Entry> got;
  for (const Entry& e : list.entries) got[e.key] = e;
  int64_t previous = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    SCOPED_TRACE("batch " + std::to_string(i));
    const int batch = static_cast<int>(i);
    int present = 0;
    std::optional<int64_t> revision;
    for (const char* part : {"x", "y", "z"}) {
      auto it = got.find(BatchKey(batch, part));
      if (it == got.end()) continue;
      ++present;
      EXPECT_EQ(it->second.value, std::to_string(i));
      if (revision) {
        EXPECT_EQ(it->second.revision, *revision) << "one batch, one revision";
      }
      revision = it->second.revision;
    }
    if (results[i]) {
      EXPECT_EQ(present, 3) << "acknowledged, so all of it is durable";
      EXPECT_EQ(revision, results[i]);
      EXPECT_GT(*results[i], previous) << "revisions only grow";
      previous = *results[i];
    } else {
      EXPECT_TRUE(present == 0 || present == 3) << present << " of 3 keys: half applied";
    }
  }
}

// The leader: the survivors elect another while the store's txn waits.
TEST(EtcdCluster, KillingTheLeaderMidCommitsLosesNoAcknowledgedWrite) {
  KillMidCommits([](EtcdCluster& c) { return std::max(c.Leader(), 0); });
}

// The member the store sends to (the URL's first): its connection breaks, possibly with a txn
// in flight, which is then reported failed (kIo) and must be wholly there or absent.
TEST(EtcdCluster, KillingTheMemberTheStoreTalksToLosesNoAcknowledgedWrite) {
  KillMidCommits([](EtcdCluster&) { return 0; });
}

}  // namespace
}  // namespace fleetwave::store
