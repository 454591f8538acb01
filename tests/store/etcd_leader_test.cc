// Leadership with an etcd lease and the store's fence (store/etcd_leader.h): exactly one of two
// campaigners leads; once its lease is gone (revoked here, as an expiry would delete the key)
// its fenced store commits nothing, and the other takes over with a new term.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "store/etcd_leader.h"
#include "store/etcd_store.h"
#include "tests/store/etcd_process.h"

namespace fleetwave::store {
namespace {

using testing::EtcdCluster;

std::unique_ptr<EtcdClient> Client(const std::string& url) {
  return std::make_unique<EtcdClient>(ParseEtcdUrl(url).target, EtcdTlsFiles{});
}

TEST(EtcdLeader, OneLeaderAndAFormerLeaderCommitsNothing) {
  EtcdCluster etcd(1);
  ASSERT_TRUE(etcd.ok()) << etcd.error();
  const std::string url = etcd.Url("/ha");
  OpenResult a_store = OpenEtcdStore(url);
  OpenResult b_store = OpenEtcdStore(url);
  ASSERT_TRUE(a_store.ok() && b_store.ok()) << a_store.status.message << b_store.status.message;
  auto& a_etcd = static_cast<EtcdStore&>(*a_store.store);
  auto& b_etcd = static_cast<EtcdStore&>(*b_store.store);

  EtcdLeader a(Client(url), "host-a", 10);
  EtcdLeader b(Client(url), "host-b", 10);
  Campaign ca = a.Run();
  ASSERT_TRUE(ca.ok()) << ca.status.message;
  ASSERT_TRUE(ca.leader);
  Campaign cb = b.Run();
  ASSERT_TRUE(cb.ok()) << cb.status.message;
  EXPECT_FALSE(cb.leader);
  EXPECT_EQ(cb.holder, "host-a");
  Status why;
  EXPECT_TRUE(a.KeepAlive(&why)) << why.message;
  Campaign again = a.Run();
  EXPECT_TRUE(again.leader) << "the leader campaigning again still leads";
  EXPECT_EQ(again.term, ca.term);

  a_etcd.Fence(ca.term);
  ASSERT_TRUE(a_store.store->Put("decision", "by a").ok());

  // a's lease ends (here revoked; an expiry during a pause deletes the key the same way).
  ASSERT_TRUE(a.Resign().ok());
  WriteResult stale = a_store.store->Put("decision", "late by a");
  EXPECT_EQ(stale.status.code, Code::kConflict);
  EXPECT_EQ(stale.conflict_key, "<leadership>");
  EXPECT_EQ(stale.status.message, url + ": not the leader any more (leadership term " +
                                      std::to_string(ca.term) +
                                      " ended; nobody leads); nothing of the batch was written");

  Campaign cb2 = b.Run();
  ASSERT_TRUE(cb2.ok() && cb2.leader) << cb2.status.message;
  EXPECT_GT(cb2.term, ca.term);
  b_etcd.Fence(cb2.term);
  ASSERT_TRUE(b_store.store->Put("decision", "by b").ok());
  WriteResult still_stale = a_store.store->Put("decision", "later by a");
  EXPECT_EQ(still_stale.status.code, Code::kConflict);
  EXPECT_NE(still_stale.status.message.find("led by host-b"), std::string::npos)
      << still_stale.status.message;
  EXPECT_EQ(b_store.store->Get("decision").entry.value, "by b");
}

// A standby from its start (Fence(kNoTerm)) writes nothing, even while nobody leads; once it
// wins a term and is fenced to it, its batches commit.
TEST(EtcdLeader, AStandbyThatNeverLedCommitsNothing) {
  EtcdCluster etcd(1);
  ASSERT_TRUE(etcd.ok()) << etcd.error();
  const std::string url = etcd.Url("/ha");
  OpenResult opened = OpenEtcdStore(url);
  ASSERT_TRUE(opened.ok()) << opened.status.message;
  auto& store = static_cast<EtcdStore&>(*opened.store);
  store.Fence(EtcdStore::kNoTerm);
  WriteResult refused = store.Put("watches/sim-0", "[]");
  EXPECT_EQ(refused.status.code, Code::kConflict);
  EXPECT_EQ(refused.conflict_key, "<leadership>");
  EXPECT_NE(refused.status.message.find("does not lead"), std::string::npos)
      << refused.status.message;
  EXPECT_EQ(store.Get("watches/sim-0").status.code, Code::kNotFound);

  EtcdLeader leader(Client(url), "host-b", 10);
  Campaign won = leader.Run();
  ASSERT_TRUE(won.ok() && won.leader) << won.status.message;
  store.Fence(won.term);
  EXPECT_TRUE(store.Put("watches/sim-0", "[]").ok());
}

// A leader that stops renewing (frozen, partitioned) loses the key when etcd expires its lease:
// the standby's campaign succeeds, and the old leader, thawed, learns from its keepalive that it
// lost, and its fenced store writes nothing.
TEST(EtcdLeader, AnExpiredLeaseHandsOverAndFencesTheFrozenLeader) {
  EtcdCluster etcd(1);
  ASSERT_TRUE(etcd.ok()) << etcd.error();
  const std::string url = etcd.Url("/ha");
  OpenResult a_store = OpenEtcdStore(url);
  ASSERT_TRUE(a_store.ok()) << a_store.status.message;
  EtcdLeader a(Client(url), "host-a", 2);  // etcd's minimum TTL with default flags
  EtcdLeader b(Client(url), "host-b", 2);
  Campaign ca = a.Run();
  ASSERT_TRUE(ca.ok() && ca.leader) << ca.status.message;
  static_cast<EtcdStore&>(*a_store.store).Fence(ca.term);
  // a renews no more. Bounded wait for the takeover (the lease's TTL, plus etcd's checks).
  const auto start = std::chrono::steady_clock::now();
  Campaign cb;
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(30)) {
    cb = b.Run();
    ASSERT_TRUE(cb.ok()) << cb.status.message;
    if (cb.leader) break;
    ::usleep(100 * 1000);  // the campaign's retry interval, not a synchronisation
  }
  ASSERT_TRUE(cb.leader) << "no takeover within 30 s";
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("etcd leader: takeover %.1f s after the last renewal (TTL 2 s)\n", took);
  Status why;
  EXPECT_FALSE(a.KeepAlive(&why));
  EXPECT_EQ(why.message, "leader: the lease expired");
  WriteResult w = a_store.store->Put("decision", "by the frozen leader");
  EXPECT_EQ(w.status.code, Code::kConflict);
  EXPECT_NE(w.status.message.find("led by host-b"), std::string::npos) << w.status.message;
  EXPECT_EQ(a_store.store->Get("decision").status.code, Code::kNotFound);
}

}  // namespace
}  // namespace fleetwave::store
