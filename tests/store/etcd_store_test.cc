// EtcdStore beyond the shared contract (store_contract_test.cc): the state URL, etcd's
// transaction limits, repeated keys in a batch, endpoint failover, the prefix marker, the
// commit failpoints, and a 3-member cluster losing its leader to kill -9 during commits. All
// against real etcd members this test starts (etcd_process.h).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "store/etcd_store.h"
#include "store/etcd_url.h"
#include "store/failpoint.h"
#include "tests/store/child_process.h"
#include "tests/store/etcd_process.h"

namespace fleetwave::store {
namespace {

using testing::Child;
using testing::EtcdCluster;
using testing::FreePort;
using testing::Reporter;

EtcdCluster& SharedEtcd() {
  static EtcdCluster etcd(1);
  return etcd;
}

std::unique_ptr<Store> Open(const std::string& url) {
  OpenResult r = OpenEtcdStore(url);
  EXPECT_TRUE(r.ok()) << r.status.message;
  return std::move(r.store);
}

std::string FreshPrefix() {
  static int n = 0;
  return "/etcd-store-test-" + std::to_string(::getpid()) + "-" + std::to_string(++n);
}

TEST(EtcdUrl, ParsesEndpointsAndPrefixAndNamesTheBadPart) {
  EtcdUrlResult one = ParseEtcdUrl("etcd://127.0.0.1:2379/fleetwave/");
  ASSERT_TRUE(one.ok()) << one.status.message;
  EXPECT_FALSE(one.target.tls);
  EXPECT_EQ(one.target.endpoints, (std::vector<std::string>{"127.0.0.1:2379"}));
  EXPECT_EQ(one.target.prefix, "/fleetwave");
  EtcdUrlResult three = ParseEtcdUrl("etcds://a:1,b.example:2,[::1]:3/x/y");
  ASSERT_TRUE(three.ok()) << three.status.message;
  EXPECT_TRUE(three.target.tls);
  EXPECT_EQ(three.target.endpoints, (std::vector<std::string>{"a:1", "b.example:2", "[::1]:3"}));
  EXPECT_EQ(three.target.prefix, "/x/y");

  const std::string form =
      " (expected etcd://HOST:PORT[,HOST:PORT...]/PREFIX, or etcds:// for TLS)";
  struct Case {
    std::string url, message;
  };
  const std::vector<Case> cases = {
      {"etcd://h:1", "no /PREFIX after the endpoints"},
      {"etcd://h:1/", "the PREFIX is empty"},
      {"etcd:///p", "no HOST:PORT"},
      {"etcd://h/p", "endpoint \"h\" is not HOST:PORT"},
      {"etcd://h:1,,h:2/p", "endpoint \"\" is not HOST:PORT"},
      {"etcd://h:99999/p", "endpoint \"h:99999\" is not HOST:PORT"},
      {"etcd://user:secret@h:1/p",
       "credentials in the URL are not supported (use etcds:// with client certificates)"},
      {"etcd://h:1/p?x=1", "the PREFIX \"/p?x=1\" has a query or fragment"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.url);
    EtcdUrlResult r = ParseEtcdUrl(c.url);
    EXPECT_EQ(r.status.code, Code::kInvalid);
    EXPECT_EQ(r.status.message.find("secret"), std::string::npos) << "never credentials";
    const std::string shown = c.url == "etcd://user:secret@h:1/p" ? "etcd://***@h:1/p" : c.url;
    EXPECT_EQ(r.status.message, "state: \"" + shown + "\": " + c.message + form);
  }
}

TEST(EtcdStore, RefusesABatchBeyondOneTransactionAndWritesNothingOfIt) {
  ASSERT_TRUE(SharedEtcd().ok()) << SharedEtcd().error();
  const std::string prefix = FreshPrefix();
  auto store = Open(SharedEtcd().Url(prefix));
  ASSERT_TRUE(store);
  std::vector<Op> most, too_many;
  for (size_t i = 0; i < kEtcdMaxBatchKeys; ++i)
    most.push_back(Op::Put("k/" + std::to_string(i), "v"));
  too_many = most;
  too_many.push_back(Op::Put("k/last", "v"));
  WriteResult refused = store->Commit(too_many);
  EXPECT_EQ(refused.status.code, Code::kInvalid);
  EXPECT_EQ(refused.status.message,
            SharedEtcd().Url(prefix) +
                ": a batch of 128 keys is more than one etcd transaction holds (127 keys: "
                "etcd's --max-txn-ops 128 less the store's revision key); a batch is atomic, so "
                "it is not split");
  EXPECT_TRUE(store->List("k/").entries.empty());
  EXPECT_EQ(store->Revision(), 0);
  WriteResult fits = store->Commit(most);
  ASSERT_TRUE(fits.ok()) << fits.status.message;
  EXPECT_EQ(fits.revision, 1);
  EXPECT_EQ(store->List("k/").entries.size(), kEtcdMaxBatchKeys);

  WriteResult big = store->Put("big", std::string(kEtcdMaxRequestBytes, 'x'));
  EXPECT_EQ(big.status.code, Code::kInvalid);
  EXPECT_NE(big.status.message.find("etcd's --max-request-bytes 1572864"), std::string::npos)
      << big.status.message;
  ASSERT_TRUE(store->Put("large", std::string(1024 * 1024, 'y')).ok()) << "1 MiB fits";
  EXPECT_EQ(store->Get("large").entry.value.size(), 1024u * 1024u);
}

// A cluster started with a higher --max-txn-ops takes bigger batches when `etcd.maxTxnOps`
// says so; a store told more than its cluster allows is refused by etcd, still kInvalid.
TEST(EtcdStore, TheLimitsFollowTheClustersFlags) {
  EtcdCluster big({1}, {"--max-txn-ops=300"});
  ASSERT_TRUE(big.ok()) << big.error();
  std::vector<Op> batch;
  for (int i = 0; i < 299; ++i) batch.push_back(Op::Put("k/" + std::to_string(i), "v"));
  OpenOptions options;
  options.etcd_limits.max_txn_ops = 300;
  OpenResult r = OpenEtcdStore(big.Url("/big"), options);
  ASSERT_TRUE(r.ok()) << r.status.message;
  WriteResult w = r.store->Commit(batch);
  ASSERT_TRUE(w.ok()) << w.status.message;
  EXPECT_EQ(r.store->List("k/").entries.size(), 299u);

  ASSERT_TRUE(SharedEtcd().ok()) << SharedEtcd().error();
  OpenResult wrong = OpenEtcdStore(SharedEtcd().Url(FreshPrefix()), options);
  ASSERT_TRUE(wrong.ok()) << wrong.status.message;
  WriteResult refused = wrong.store->Commit(batch);
  EXPECT_EQ(refused.status.code, Code::kInvalid);
  EXPECT_NE(refused.status.message.find("etcdserver: too many operations in txn request"),
            std::string::npos)
      << refused.status.message;
  EXPECT_TRUE(wrong.store->List("").entries.empty());
}

TEST(EtcdStore, ARepeatedKeyEndsAsItsLastOperationAndEveryBatchGetsARevision) {
  ASSERT_TRUE(SharedEtcd().ok()) << SharedEtcd().error();
  auto store = Open(SharedEtcd().Url(FreshPrefix()));
  ASSERT_TRUE(store);
  ASSERT_EQ(store->Commit({Op::Put("a", "1"), Op::Delete("a")}).revision, 1);
  EXPECT_EQ(store->Get("a").status.code, Code::kNotFound);
  ASSERT_EQ(store->Commit({Op::Delete("b"), Op::Put("b", "2"), Op::Put("c", "3")}).revision, 2);
  EXPECT_EQ(store->Get("b").entry.value, "2");
  EXPECT_EQ(store->Get("b").entry.revision, 2);
  // etcd itself does not advance for a txn that changes nothing; the store does.
  EXPECT_EQ(store->Delete("absent").revision, 3);
  EXPECT_EQ(store->Revision(), 3);
  EXPECT_EQ(store->Counters().batches, 3);
}

TEST(EtcdStore, ReopeningKeepsKeysAndRevisionsAndAForeignPrefixIsRefused) {
  EtcdCluster& etcd = SharedEtcd();
  ASSERT_TRUE(etcd.ok()) << etcd.error();
  const std::string prefix = FreshPrefix();
  {
    OpenResult first = OpenEtcdStore(etcd.Url(prefix));
    ASSERT_TRUE(first.ok()) << first.status.message;
    ASSERT_EQ(first.notes.size(), 1u);
    EXPECT_NE(first.notes[0].find("new state prefix"), std::string::npos) << first.notes[0];
    ASSERT_TRUE(first.store->Put("pin", "r1").ok());
    ASSERT_TRUE(first.store->Put("pin", "r2", 1).ok());
  }
  OpenResult again = OpenEtcdStore(etcd.Url(prefix));
  ASSERT_TRUE(again.ok()) << again.status.message;
  EXPECT_TRUE(again.notes.empty());
  EXPECT_EQ(again.store->Revision(), 2);
  EXPECT_EQ(again.store->Get("pin").entry.revision, 2);
  EXPECT_TRUE(again.store->Put("pin", "r3", 2).ok());

  // Keys under a prefix that fleetwave did not create (no marker).
  const std::string foreign = FreshPrefix();
  EtcdClient raw(ParseEtcdUrl(etcd.Url(foreign)).target, {});
  ASSERT_TRUE(raw.Call("/v3/kv/put",
                       {{"key", Base64Encode(foreign + "/kv/x")}, {"value", Base64Encode("1")}},
                       false)
                  .ok());
  OpenResult refused = OpenEtcdStore(etcd.Url(foreign));
  EXPECT_EQ(refused.status.code, Code::kIdentity);
  EXPECT_EQ(refused.status.message,
            "state: " + etcd.Url(foreign) + ": the prefix holds 1 keys but no marker " + foreign +
                "/meta/id; it was not written by fleetwave (or by an interrupted migrate-state: "
                "run it again with --force)");
}

TEST(EtcdStore, AnUnreachableEndpointIsSkippedAndAllUnreachableIsIoNamingThem) {
  EtcdCluster& etcd = SharedEtcd();
  ASSERT_TRUE(etcd.ok()) << etcd.error();
  const std::string dead = "127.0.0.1:" + std::to_string(FreePort());
  const std::string prefix = FreshPrefix();
  OpenResult r = OpenEtcdStore("etcd://" + dead + "," + etcd.Endpoints() + prefix);
  ASSERT_TRUE(r.ok()) << r.status.message;
  EXPECT_TRUE(r.store->Put("a", "1").ok());

  OpenResult none = OpenEtcdStore("etcd://" + dead + prefix);
  EXPECT_EQ(none.status.code, Code::kIo);
  EXPECT_EQ(none.status.message.rfind("state: etcd://" + dead + prefix +
                                          ": cannot be read: etcd://" + dead + "/v3/kv/range: ",
                                      0),
            0u)
      << none.status.message;
}

// Both sides of the txn: a process that dies before sending it leaves nothing, one that dies
// after etcd answered (before acknowledging) leaves the whole batch; earlier acknowledged
// writes are there either way.
TEST(EtcdStore, CommitFailpointsLoseNothingAcknowledged) {
  EtcdCluster& etcd = SharedEtcd();
  ASSERT_TRUE(etcd.ok()) << etcd.error();
  struct Case {
    std::string failpoint;
    bool in_flight_committed;
  };
  for (const Case& c : {Case{kFailBeforeCommit, false}, Case{kFailAfterCommit, true}}) {
    SCOPED_TRACE(c.failpoint);
    const std::string url = etcd.Url(FreshPrefix());
    const std::string failpoint = c.failpoint;
    Child child("", [url, failpoint](const Reporter& report, int) {
      OpenResult r = OpenEtcdStore(url);
      if (!r.ok()) return report.Line("open failed: " + r.status.message);
      for (const std::string key : {"pin/a", "pin/b"}) {
        if (r.store->Put(key, "v1").ok()) report.Line(key);
      }
      ::setenv("FLEETWAVE_FAILPOINT", failpoint.c_str(), 1);
      WriteResult w = r.store->Commit({Op::Put("pin/a", "v2"), Op::Put("operation/b", "v2")});
      report.Line(w.ok() ? "in-flight acknowledged" : "in-flight failed");
    });
    EXPECT_EQ(child.ReadAll(), (std::vector<std::string>{"pin/a", "pin/b"}));
    EXPECT_EQ(child.Wait(), kFailpointExitCode);
    auto store = Open(url);
    ASSERT_TRUE(store);
    std::map<std::string, std::string> got;
    for (const Entry& e : store->List("").entries) got[e.key] = e.value;
    std::map<std::string, std::string> want = {{"pin/a", "v1"}, {"pin/b", "v1"}};
    if (c.in_flight_committed) want = {{"pin/a", "v2"}, {"pin/b", "v1"}, {"operation/b", "v2"}};
    EXPECT_EQ(got, want);
    EXPECT_EQ(store->Revision(), c.in_flight_committed ? 3 : 2);
  }
}

// etcds://: a CA, a server certificate for 127.0.0.1 and a client certificate made here with
// openssl; etcd requires the client certificate. The store works with the `etcd:` files and
// fails without the client certificate, naming the endpoint.
TEST(EtcdStore, EtcdsWithAClientCertificate) {
  testing::TempDir pki;
  const std::string d = pki.path();
  const std::string script =
      "set -e; cd " + d +
      "; openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=test-ca -keyout ca.key "
      "-out ca.pem 2>/dev/null;"
      " printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n' > ext;"
      " for n in server client; do openssl req -newkey rsa:2048 -nodes -subj /CN=$n -keyout "
      "$n.key -out $n.csr 2>/dev/null; openssl x509 -req -in $n.csr -CA ca.pem -CAkey ca.key "
      "-CAcreateserial -days 2 -extfile ext -out $n.pem 2>/dev/null; done";
  std::ofstream(d + "/pki.sh") << script << "\n";
  ASSERT_EQ(std::system(("bash " + d + "/pki.sh").c_str()), 0) << "openssl failed";
  const EtcdTlsFiles client{d + "/ca.pem", d + "/client.pem", d + "/client.key"};
  EtcdCluster etcd(1,
                   {"--cert-file=" + d + "/server.pem", "--key-file=" + d + "/server.key",
                    "--client-cert-auth", "--trusted-ca-file=" + d + "/ca.pem"},
                   client);
  ASSERT_TRUE(etcd.ok()) << etcd.error();
  OpenOptions options;
  options.etcd_tls = client;
  OpenResult r = OpenStore(etcd.Url("/tls"), options);
  ASSERT_TRUE(r.ok()) << r.status.message;
  ASSERT_TRUE(r.store->Put("a", "1").ok());
  EXPECT_EQ(r.store->Get("a").entry.value, "1");

  OpenOptions no_cert;
  no_cert.etcd_tls.ca_file = client.ca_file;
  OpenResult refused = OpenStore(etcd.Url("/tls"), no_cert);
  EXPECT_EQ(refused.status.code, Code::kIo);
  EXPECT_EQ(
      refused.status.message.rfind("state: " + etcd.Url("/tls") + ": cannot be read: etcds://" +
                                       etcd.Endpoints() + "/v3/kv/range: ",
                                   0),
      0u)
      << refused.status.message;
}

}  // namespace
}  // namespace fleetwave::store
