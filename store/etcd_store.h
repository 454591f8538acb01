// The `Store` on etcd v3 (docs/state-store.md, "The etcd backend"), through etcd's JSON gateway
// (etcd_client.h). The store model maps one to one:
//   - a batch is one etcd txn, so it commits entirely or not at all, and etcd's cluster
//     revision grows by one per batch; a key's store revision is its mod_revision;
//   - compare-and-set is a txn compare: expected N -> mod_revision == N, expected 0 ->
//     create_revision == 0 (absent). A failed compare reads the compared keys back in the same
//     txn's failure branch, so the conflict names the first failing key at that revision;
//   - durability is etcd's: a txn is acknowledged after a quorum of members wrote it to their
//     WAL (fsync'd).
// Layout under the URL's PREFIX: "<PREFIX>/kv/<key>" for every store key, "<PREFIX>/meta/id"
// for the identity marker ({"identity": ..., "complete": bool}) and "<PREFIX>/meta/rev", put by
// every batch so the store revision is exact even when other clients write to the same etcd.
// Store revisions are etcd revisions minus the marker's create_revision, so a fresh prefix
// starts at 0; they are strictly increasing and contiguous while this prefix is the cluster's
// only writer (other writers make them skip numbers, never repeat or go back).
//
// Limits (etcd 3.4 defaults, or `etcd: {maxTxnOps, maxRequestBytes}` matching the cluster's
// flags): a txn holds at most 128 operations (--max-txn-ops) and a request at most 1.5 MiB
// (--max-request-bytes). A batch is atomic by contract, so a bigger one is refused with kInvalid
// naming the limit, never split. The daemon makes batches of one operation per changed app (and
// six per app when an ApplicationSet is deleted), so a fleet of more than ~20 apps per set needs
// etcd started with a higher --max-txn-ops (docs/state-store.md). Repeated keys in one batch are
// folded to the last operation on each (etcd refuses a txn that writes a key twice).
//
// Opening: no local state lock (one fleetwave per prefix unless leaderElection: elects one
// leader and fences the others, docs/state-store.md); the marker plays the state identity's role: a
// prefix with keys but no marker, or with an unfinished migration's marker, is refused (kIdentity).
//
// Thread-safety: every call may come from any thread; each blocks on the network.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "store/etcd_client.h"
#include "store/etcd_url.h"
#include "store/sqlite_store.h"
#include "store/store.h"

namespace fleetwave::store {

// etcd 3.4's default --max-txn-ops and --max-request-bytes.
inline constexpr size_t kEtcdMaxTxnOps = EtcdLimits{}.max_txn_ops;
inline constexpr size_t kEtcdMaxRequestBytes = EtcdLimits{}.max_request_bytes;
// Distinct keys a batch may write at the defaults: one txn operation is the revision key's put.
inline constexpr size_t kEtcdMaxBatchKeys = kEtcdMaxTxnOps - 1;

// The etcd keys of a prefix.
struct EtcdLayout {
  std::string prefix;
  std::string Data(const std::string& key) const { return prefix + "/kv/" + key; }
  std::string DataPrefix() const { return prefix + "/kv/"; }
  std::string Marker() const { return prefix + "/meta/id"; }
  std::string RevisionKey() const { return prefix + "/meta/rev"; }
  std::string Meta() const { return prefix + "/meta/"; }
  std::string Leader() const { return prefix + "/meta/leader"; }
};

class EtcdStore final : public Store {
 public:
  // `base`: the marker's create_revision (store revision 0).
  EtcdStore(std::unique_ptr<EtcdClient> client, int64_t base, EtcdLimits limits = {});

  GetResult Get(const std::string& key) override;
  ListResult List(const std::string& prefix) override;
  WriteResult Commit(const std::vector<Op>& ops) override;
  int64_t Revision() override;
  CommitCounters Counters() override;
  // From now on every batch commits only while the leader key's create_revision is `term`
  // (etcd_leader.h); a batch refused for it is kConflict with conflict_key "<leadership>".
  // kNoTerm: this instance has not led yet (a standby from its start): every batch is refused
  // so, without being sent (its cluster watches run, and nothing they see may be written).
  static constexpr int64_t kNoTerm = -1;
  void Fence(int64_t term) { fence_.store(term); }
  // The etcd revision of store revision 0 (a standby's watch reads etcd revisions).
  int64_t base() const { return base_; }

 private:
  std::unique_ptr<EtcdClient> client_;
  const EtcdLayout layout_;
  const int64_t base_;
  const EtcdLimits limits_;
  std::atomic<int64_t> batches_{0};
  std::atomic<int64_t> fence_{0};  // 0: unfenced
};

// Opens the prefix `url` names (etcd:// or etcds://), creating its marker when it is empty.
// TLS files come from `options.etcd_tls`.
OpenResult OpenEtcdStore(const std::string& url, const OpenOptions& options = {},
                         const EtcdClientOptions& client_options = {});

}  // namespace fleetwave::store
