// `fleetwave migrate-state` as a user runs it: an SQLite state copied into a real etcd this
// test starts, refused over a prefix that holds keys unless --force, and an interrupted copy
// never opened as a state.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "store/etcd_store.h"
#include "store/sqlite_store.h"
#include "tests/store/child_process.h"
#include "tests/store/etcd_process.h"
#include "tools/fleetwave/commands.h"

namespace fleetwave::cli {
namespace {

using store::testing::EtcdCluster;
using store::testing::TempDir;

std::map<std::string, std::string> Contents(store::Store& s) {
  std::map<std::string, std::string> out;
  for (const auto& e : s.List("").entries) out[e.key] = e.value;
  return out;
}

TEST(MigrateStateCli, CopiesEveryKeyAndRefusesAPrefixThatHoldsKeysUnlessForced) {
  EtcdCluster etcd(1);
  ASSERT_TRUE(etcd.ok()) << etcd.error();
  TempDir dir;
  std::map<std::string, std::string> want;
  {
    store::OpenResult src = store::OpenSqliteStore(dir.db());
    ASSERT_TRUE(src.ok()) << src.status.message;
    // More keys than one etcd txn holds, and bytes that are not text.
    std::vector<store::Op> batch;
    for (int i = 0; i < 300; ++i) {
      const std::string key = "appsets/a" + std::to_string(i) + "/pin";
      const std::string value = std::string("v\0\xff", 3) + std::to_string(i);
      batch.push_back(store::Op::Put(key, value));
      want[key] = value;
    }
    ASSERT_TRUE(src.store->Commit(batch).ok());
    ASSERT_TRUE(src.store->Put("last-good/x", "{}").ok());
    want["last-good/x"] = "{}";
  }
  const std::string from = "sqlite://" + dir.db();
  const std::string to = etcd.Url("/fleetwave");
  size_t bytes = 0;
  for (const auto& [k, v] : want) bytes += k.size() + v.size();

  std::ostringstream out, err;
  ASSERT_EQ(RunMigrateState({"--from", from, "--to", to}, out, err), 0) << err.str();
  EXPECT_EQ(out.str(), "migrate-state: copied 301 keys (" + std::to_string(bytes) +
                           " bytes) from " + from + " (revision 2) to " + to +
                           " in 3 transactions; read back and verified\n");
  EXPECT_EQ(err.str(), "");
  store::OpenResult copy = store::OpenEtcdStore(to);
  ASSERT_TRUE(copy.ok()) << copy.status.message;
  EXPECT_EQ(Contents(*copy.store), want);
  EXPECT_TRUE(copy.store->Put("after", "the daemon writes on").ok());

  std::ostringstream out2, err2;
  EXPECT_EQ(RunMigrateState({"--from", from, "--to", to}, out2, err2), 1);
  EXPECT_EQ(err2.str(), "fleetwave migrate-state: " + to +
                            ": the prefix already holds 304 keys; nothing copied (--force "
                            "deletes them first)\n");
  EXPECT_EQ(out2.str(), "");

  std::ostringstream out3, err3;
  ASSERT_EQ(RunMigrateState({"--from", from, "--to", to, "--force"}, out3, err3), 0) << err3.str();
  EXPECT_NE(out3.str().find(", replacing 304 keys; read back and verified"), std::string::npos)
      << out3.str();
  store::OpenResult again = store::OpenEtcdStore(to);
  ASSERT_TRUE(again.ok()) << again.status.message;
  EXPECT_EQ(Contents(*again.store), want) << "the key written after the first copy is gone";
}

TEST(MigrateStateCli, AnInterruptedCopyIsNeverOpenedAsAState) {
  EtcdCluster etcd(1);
  ASSERT_TRUE(etcd.ok()) << etcd.error();
  const std::string to = etcd.Url("/half");
  // What a copy killed between its chunks leaves: the marker still says incomplete.
  store::EtcdClient raw(store::ParseEtcdUrl(to).target, {});
  ASSERT_TRUE(raw.Call("/v3/kv/put",
                       {{"key", store::Base64Encode("/half/meta/id")},
                        {"value", store::Base64Encode(R"({"identity":"x","complete":false})")}},
                       false)
                  .ok());
  store::OpenResult opened = store::OpenStore(to);
  EXPECT_EQ(opened.status.code, store::Code::kIdentity);
  EXPECT_EQ(opened.status.message,
            "state: " + to +
                ": an unfinished `fleetwave migrate-state` left this prefix half copied; run it "
                "again with --force");
}

TEST(MigrateStateCli, UsageErrors) {
  std::ostringstream out, err;
  EXPECT_EQ(RunMigrateState({"--from", "sqlite:///x/state.db"}, out, err), 2);
  EXPECT_NE(err.str().find("usage: fleetwave migrate-state"), std::string::npos);
  std::ostringstream out2, err2;
  EXPECT_EQ(RunMigrateState({"--from", "sqlite:///x.db", "--to", "sqlite:///y.db"}, out2, err2), 2);
  EXPECT_EQ(err2.str(),
            "fleetwave migrate-state: --to \"sqlite:///y.db\" is not an etcd:// or etcds:// URL\n");
  std::ostringstream out3, err3;
  EXPECT_EQ(RunMigrateState({"--from", "sqlite:///x.db", "--to", "etcd://h:1"}, out3, err3), 2);
  EXPECT_EQ(err3.str(),
            "fleetwave migrate-state: --to: state: \"etcd://h:1\": no /PREFIX after the "
            "endpoints (expected etcd://HOST:PORT[,HOST:PORT...]/PREFIX, or etcds:// for TLS)\n");
}

}  // namespace
}  // namespace fleetwave::cli
