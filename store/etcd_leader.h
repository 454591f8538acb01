// Leadership of one etcd state prefix with a lease (issue 28; docs/state-store.md, "Leader
// election"): campaign, keep alive, resign, and the fence that makes EtcdStore refuse every
// batch once this instance is no longer the leader. The daemon drives it from its leadership
// thread (tools/fleetwave/leadership.h).
//
// Campaign: grant a lease, then one txn puts "<PREFIX>/meta/leader" = identity with the lease,
// guarded by create_revision == 0; the key's create_revision R is the leadership's term.
// Fencing: EtcdStore::Fence(R) adds "create_revision(leader key) == R" to every batch's txn, so
// after the lease expired (a long pause, a partition) or another instance took over, no batch
// of the old leader commits - etcd itself judges it, not a local clock.
// Thread-safety: one thread drives a leader object; the store may be used from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "store/etcd_client.h"
#include "store/store.h"

namespace fleetwave::store {

struct Campaign {
  Status status;  // kIo when etcd could not be asked
  bool leader = false;
  std::string holder;  // who leads (this identity when `leader`)
  int64_t term = 0;    // the leader key's create_revision (leader only): EtcdStore::Fence
  bool ok() const { return status.ok(); }
};

class EtcdLeader {
 public:
  // `client`: on the state URL (its prefix); `ttl_seconds`: the lease (etcd raises a TTL
  // below its minimum, 2 s with default flags).
  EtcdLeader(std::unique_ptr<EtcdClient> client, std::string identity, int64_t ttl_seconds);

  Campaign Run();
  // Renews the lease; false when it expired (this instance is no longer the leader).
  bool KeepAlive(Status* why);
  // Gives the leadership up at once (revokes the lease, which deletes the key).
  Status Resign();

 private:
  std::unique_ptr<EtcdClient> client_;
  const std::string identity_;
  const int64_t ttl_;
  int64_t lease_ = 0;
};

}  // namespace fleetwave::store
